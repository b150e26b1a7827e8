import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { parseInput } from '../../platform/http/validate.js';
import { sandboxOnly } from '../../platform/http/sandbox.js';
import { getQuote, getTransaction, transactionResource } from '../payments/index.js';
import { sendTestEvent } from '../webhooks/index.js';
import { accountLookupParams, accountLookupQuery, kycLinkQuery, sandboxSendBody, sandboxUmaReceiveBody, transferBody, transferOutBody } from './ref-compat.schemas.js';
import { kycLinkFor, lookupExternalAccount, sandboxSend, sandboxUmaReceive, transferIn, transferOut } from './ref-compat.service.js';

/**
 * RFC 9745 `Deprecation` (the date API version 2025-10-13 deprecated the transfer endpoints, A20)
 * and the successor to move to.
 */
function deprecated(reply: FastifyReply): void {
  reply.header('deprecation', '@1760313600');
  reply.header('link', '</quotes>; rel="successor-version"');
}

/**
 * Rebuilds a transfer's answer from what its effect committed: transfer-out's quote (its transaction
 * answers), transfer-in's transaction. The effect writes the Idempotency-Key record (issue 24).
 */
const replayTransfer = {
  claimedByEffect: true,
  replay: async (req: FastifyRequest, id: string | undefined) => {
    const transactionId = id?.startsWith('Quote:') ? (await getQuote(req.ctx, id)).transactionId : id ?? '';
    return { status: 201, body: transactionResource(await getTransaction(req.ctx, transactionId)) };
  },
};

/** REF's client paths that the spec serves elsewhere or not at all (issue 13). */
export async function refCompatRoutes(app: FastifyInstance) {
  app.get('/customers/kyc-link', { config: { query: kycLinkQuery } }, async (req) => kycLinkFor(req.ctx, parseInput(kycLinkQuery, req.query)));

  app.post('/webhooks/test', async (req) => sendTestEvent(req.ctx));

  app.post('/sandbox/send', { preHandler: sandboxOnly, config: { idempotent: true } }, async (req) => {
    return transactionResource(await sandboxSend(req.ctx, parseInput(sandboxSendBody, req.body ?? {})));
  });

  // hook:25c — the incoming-approval handshake commits before it asks the platform: a retry after a crash rebuilds the answer.
  const replayReceive = async (req: FastifyRequest, id: string | undefined) => ({ status: 200, body: transactionResource(await getTransaction(req.ctx, id ?? '')) });
  app.post('/sandbox/uma/receive', { preHandler: sandboxOnly, config: { idempotent: { replay: replayReceive } } }, async (req) => {
    return transactionResource(await sandboxUmaReceive(req.ctx, parseInput(sandboxUmaReceiveBody, req.body ?? {})));
  });

  app.get('/receiver/external-account/:accountId', { config: { agent: 'CREATE_QUOTE', query: accountLookupQuery } }, async (req) => {
    const { accountId } = parseInput(accountLookupParams, req.params);
    return lookupExternalAccount(req.ctx, accountId, parseInput(accountLookupQuery, req.query));
  });

  app.post('/transfer-out', { config: { idempotent: replayTransfer } }, async (req, reply) => {
    deprecated(reply);
    const t = await transferOut(req.ctx, parseInput(transferOutBody, req.body ?? {}));
    reply.status(201);
    return transactionResource(t);
  });

  app.post('/transfer-in', { config: { idempotent: replayTransfer } }, async (req, reply) => {
    deprecated(reply);
    const body = parseInput(transferBody.partial({ amount: true }), req.body ?? {});
    const t = await transferIn(req.ctx, body);
    reply.status(201);
    return transactionResource(t);
  });
}
