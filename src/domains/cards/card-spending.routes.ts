import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { parseInput } from '../../platform/http/validate.js';
import { sandboxOnly } from '../../platform/http/sandbox.js';
import { revealCard, requireIssuer } from './card-issuing.service.js';
import { SIMULATIONS, simulateCardEvent, type Simulation } from './card-transactions.service.js';
import { getCard } from './cards.service.js';

const cardIdParams = z.object({ cardId: z.string().min(1).max(200) });
const simulateParams = z.object({ cardId: z.string().min(1).max(200), kind: z.enum(SIMULATIONS) });

const amount = z.number().int().min(1).max(Number.MAX_SAFE_INTEGER);
const merchant = z.strictObject({
  descriptor: z.string().min(1).max(200),
  mcc: z.string().regex(/^\d{4}$/).optional(),
  country: z.string().regex(/^[A-Z]{2}$/).optional(),
});
/** REF's `Currency` is an object ({code, …}); a bare code is accepted too. */
const currency = z.union([z.string(), z.looseObject({ code: z.string() })]).transform((c) => (typeof c === 'string' ? c : c.code)).pipe(z.string().regex(/^[A-Z]{3,4}$/));
const txId = z.string().min(1).max(200);

/** REF's simulate bodies, per simulation (`SandboxCard*Request`). */
const SIMULATION_BODIES: Record<Simulation, z.ZodType<object>> = {
  authorization: z.strictObject({ amount, currency, merchant }),
  credit_authorization: z.strictObject({ amount, currency, merchant }),
  financial_authorization: z.strictObject({ amount, currency, merchant }),
  financial_credit_authorization: z.strictObject({ amount, currency, merchant }),
  credit_authorization_advice: z.strictObject({ amount, currency, merchant }),
  balance_inquiry: z.strictObject({ merchant }),
  authorization_advice: z.strictObject({ cardTransactionId: txId, amount }),
  clearing: z.strictObject({ cardTransactionId: txId, amount: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER) }),
  return: z.strictObject({ cardTransactionId: txId, amount }),
  return_reversal: z.strictObject({ cardTransactionId: txId }),
};


/** POST /cards/{id}/reveal and the ten sandbox simulators (issue 27). Without a card issuer: 501 (REF). */
export async function cardSpendingRoutes(app: FastifyInstance) {
  const issuerConfigured = async (req: { ctx: Parameters<typeof requireIssuer>[0] }) => void requireIssuer(req.ctx);

  app.post('/cards/:cardId/reveal', { preHandler: issuerConfigured }, async (req) => {
    const { cardId } = parseInput(cardIdParams, req.params);
    return revealCard(req.ctx, await getCard(req.ctx, cardId), req.principal?.credentialId);
  });

  app.post('/sandbox/cards/:cardId/simulate/:kind', { preHandler: [sandboxOnly, issuerConfigured] }, async (req, reply) => {
    const { cardId, kind } = parseInput(simulateParams, req.params);
    const body = parseInput(SIMULATION_BODIES[kind], req.body ?? {});
    reply.status(202);
    return simulateCardEvent(req.ctx, cardId, kind, body);
  });
}
