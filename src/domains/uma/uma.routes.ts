import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { parseInput } from '../../platform/http/validate.js';
import { sandboxOnly } from '../../platform/http/sandbox.js';
import { lookupResource } from './uma.resource.js';
import { lookupReceiver } from './uma.service.js';
import { receiveSandboxUmaPayment } from './uma.incoming.js';
import { getTransaction, transactionResource } from '../payments/index.js';

const lookupQuery = z.object({ customerId: z.string().min(1).max(200).optional(), senderUmaAddress: z.string().min(1).max(400).optional() });

/** Decision A19: JSON numbers are exact below 2^53. */
const incomingBody = z
  .object({
    receiverUmaAddress: z.string().min(1).max(400),
    amount: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER),
    currency: z.string().regex(/^[A-Z]{3,4}$/),
    senderUmaAddress: z.string().min(1).max(400).optional(),
    description: z.string().max(1000).optional(),
    senderInformation: z.record(z.string(), z.string().max(500)).optional(),
  })
  .strict();

export async function umaRoutes(app: FastifyInstance) {
  app.get('/receiver/uma/:umaAddress', { config: { agent: 'CREATE_QUOTE', query: lookupQuery } }, async (req) => {
    const { umaAddress } = parseInput(z.object({ umaAddress: z.string().max(400) }), req.params);
    const q = parseInput(lookupQuery, req.query);
    return lookupResource(await lookupReceiver(req.ctx, { umaAddress, ...q }));
  });

  const replayIncoming = async (req: FastifyRequest, id: string | undefined) => ({ status: 201, body: transactionResource(await getTransaction(req.ctx, id ?? '')) });
  app.post('/sandbox/uma/incoming', { preHandler: sandboxOnly, config: { idempotent: { replay: replayIncoming } } }, async (req, reply) => {
    const body = parseInput(incomingBody, req.body ?? {});
    reply.status(201);
    return transactionResource(await receiveSandboxUmaPayment(req.ctx, { ...body, amount: BigInt(body.amount) }));
  });
}
