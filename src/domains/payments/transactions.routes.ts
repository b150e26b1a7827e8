import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { parseInput } from '../../platform/http/validate.js';
import { paginationQuery } from '../../platform/http/pagination.js';
import { windowEnd, windowStart } from '../../platform/http/date-bounds.js';
import { TRANSACTION_STATUSES } from './transactions.model.js';
import { transactionResource } from './transactions.resource.js';
import { getTransaction, getTransactionBody, listTransactions } from './transactions.service.js';
import { approveTransaction, cancelTransaction, rejectTransaction } from './approvals.service.js';
import { confirmReceiptBody, confirmReceiptDelivery } from './receipts.service.js';
import { cardTransactionById, cardTransactionsPage, withCardQuery, withCardTransactions } from '../cards/index.js'; // hook:27

const transactionParams = z.object({ transactionId: z.string().max(200) });
/** B§6.2: free-text reason, informational (kept in the status history). */
const reasonBody = z.object({ reason: z.string().max(500).optional() }).strict();
const approveBody = z.object({ receiverCustomerInfo: z.record(z.string(), z.unknown()).optional() }).strict();

/** Repeated keys or comma-joined values (decisions Part B §1). */
const statusList = z
  .union([z.string(), z.array(z.string())])
  .transform((v) => (Array.isArray(v) ? v : [v]).flatMap((s) => s.split(',')).filter(Boolean))
  .pipe(z.array(z.enum(TRANSACTION_STATUSES)));

export const listQuery = z.object({
  ...paginationQuery,
  sortOrder: z.enum(['asc', 'desc']).default('desc'),
  status: statusList.optional(),
  type: z.enum(['OUTGOING', 'INCOMING']).optional(),
  customerId: z.string().max(200).optional(),
  /** Sent or received in this currency (ours; the dashboard's filter). */
  currency: z.string().regex(/^[A-Z0-9]{3,5}$/).optional(),
  accountIdentifier: z.string().max(200).optional(),
  senderAccountIdentifier: z.string().max(200).optional(),
  receiverAccountIdentifier: z.string().max(200).optional(),
  startDate: windowStart.optional(),
  endDate: windowEnd.optional(),
  // REF's client filters (issue 13).
  platformCustomerId: z.string().min(1).max(255).optional(),
  reference: z.string().min(1).max(200).optional(),
});

/** Approve, reject and cancel answer the transaction as it is: a lost answer is rebuilt the same way. */
const replayTransaction = {
  replay: async (req: FastifyRequest) => {
    const { transactionId } = parseInput(transactionParams, req.params);
    return { status: 200, body: transactionResource(await getTransaction(req.ctx, transactionId)) };
  },
};

export async function transactionRoutes(app: FastifyInstance) {
  app.get('/transactions', { config: { agent: 'VIEW_TRANSACTIONS', query: withCardQuery(listQuery) } }, async (req) => { // hook:27
    const cards = await cardTransactionsPage(req.ctx, req.query); // hook:27 — type=CARD or cardId: REF's CardTransaction
    if (cards) return cards;
    const q = parseInput(listQuery, req.query);
    return withCardTransactions(req.ctx, q, (cursor) => listTransactions(req.ctx, { ...q, cursor }), (t) => transactionResource(t)); // hook:27 — unfiltered: payments and card transactions in one keyset list
  });

  app.get('/transactions/:transactionId', { config: { agent: 'VIEW_TRANSACTIONS' } }, async (req, reply) => {
    const { transactionId } = parseInput(transactionParams, req.params);
    const card = await cardTransactionById(req.ctx, transactionId); // hook:27
    if (card) return card;
    // The body as JSON text, kept per version of the row (getTransactionBody).
    return reply.type('application/json; charset=utf-8').send(await getTransactionBody(req.ctx, transactionId));
  });

  // Agent payments above the approval threshold (A17): the platform decides. Agents may not.
  app.post('/transactions/:transactionId/approve', { config: { idempotent: replayTransaction } }, async (req) => {
    const { transactionId } = parseInput(transactionParams, req.params);
    parseInput(approveBody, req.body ?? {});
    return transactionResource(await approveTransaction(req.ctx, transactionId));
  });

  app.post('/transactions/:transactionId/reject', { config: { idempotent: replayTransaction } }, async (req) => {
    const { transactionId } = parseInput(transactionParams, req.params);
    const { reason } = parseInput(reasonBody, req.body ?? {});
    return transactionResource(await rejectTransaction(req.ctx, transactionId, reason));
  });

  // REF's receipt delivery confirmation (issue 25): repeatable, so no Idempotency-Key is needed.
  app.post('/transactions/:transactionId/confirm', async (req) => {
    const { transactionId } = parseInput(transactionParams, req.params);
    return transactionResource(await confirmReceiptDelivery(req.ctx, transactionId, parseInput(confirmReceiptBody, req.body ?? {})));
  });

  app.post('/transactions/:transactionId/cancel', { config: { idempotent: replayTransaction, agent: 'CANCEL_TRANSACTION' } }, async (req) => {
    const { transactionId } = parseInput(transactionParams, req.params);
    const { reason } = parseInput(reasonBody, req.body ?? {});
    return transactionResource(await cancelTransaction(req.ctx, transactionId, reason));
  });
}
