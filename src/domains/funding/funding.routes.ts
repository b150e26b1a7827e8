import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { parseInput } from '../../platform/http/validate.js';
import { sandboxOnly } from '../../platform/http/sandbox.js';
import { depositResource, getDeposit, receiveDeposit } from './funding.service.js';
import { originatorFields } from './originator.js';

/** POST /sandbox/deposits (README "Sandbox: real-time funding"): exactly one of reference, invoice, address (+ network). */
const depositBody = z
  .object({
    depositId: z.string().min(1).max(200).optional(),
    reference: z.string().min(1).max(100).optional(),
    invoice: z.string().min(1).max(2000).optional(),
    address: z.string().min(1).max(200).optional(),
    network: z.enum(['SOLANA', 'BASE', 'POLYGON', 'ETHEREUM', 'TRON', 'SPARK', 'LIGHTNING', 'RTP', 'FEDNOW']).optional(),
    amount: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER),
    currency: z.string().regex(/^[A-Z]{3,4}$/),
    /** REF's originator fields of the payer (issue 25): shown on the funded transaction's source. */
    originator: z.strictObject(originatorFields).optional(),
  })
  .strict()
  .refine((b) => [b.reference, b.invoice, b.address].filter(Boolean).length === 1, { message: 'Give exactly one of reference, invoice, address.', path: ['reference'] })
  .refine((b) => !b.address || b.network, { message: 'An address needs its network.', path: ['network'] });

export async function fundingRoutes(app: FastifyInstance) {
  const replay = async (req: FastifyRequest, id: string | undefined) => ({ status: 201, body: depositResource(await getDeposit(req.ctx, id ?? '')) });
  app.post('/sandbox/deposits', { preHandler: sandboxOnly, config: { idempotent: { replay } } }, async (req, reply) => {
    const body = parseInput(depositBody, req.body ?? {});
    reply.status(201);
    return depositResource(await receiveDeposit(req.ctx, { ...body, amount: BigInt(body.amount) }));
  });
}
