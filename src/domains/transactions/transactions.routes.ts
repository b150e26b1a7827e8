import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { parseInput } from '../../platform/http/validate.js';
import { paginationQuery } from '../../platform/http/pagination.js';
import { TRANSACTION_STATUSES } from './transactions.model.js';
import { transactionResource } from './transactions.resource.js';
import { getTransaction, listTransactions } from './transactions.service.js';

const isoDate = z.iso.datetime({ offset: true }).transform((s) => new Date(s));
/** Repeated keys or comma-joined values (decisions Part B §1). */
const statusList = z
  .union([z.string(), z.array(z.string())])
  .transform((v) => (Array.isArray(v) ? v : [v]).flatMap((s) => s.split(',')).filter(Boolean))
  .pipe(z.array(z.enum(TRANSACTION_STATUSES)));

const listQuery = z.object({
  ...paginationQuery,
  sortOrder: z.enum(['asc', 'desc']).default('desc'),
  status: statusList.optional(),
  type: z.enum(['OUTGOING', 'INCOMING']).optional(),
  customerId: z.string().max(200).optional(),
  accountIdentifier: z.string().max(200).optional(),
  senderAccountIdentifier: z.string().max(200).optional(),
  receiverAccountIdentifier: z.string().max(200).optional(),
  startDate: isoDate.optional(),
  endDate: isoDate.optional(),
});

export async function transactionRoutes(app: FastifyInstance) {
  app.get('/transactions', async (req) => {
    const page = await listTransactions(req.ctx, parseInput(listQuery, req.query));
    return { ...page, data: page.data.map((t) => transactionResource(t)) };
  });

  app.get('/transactions/:transactionId', async (req) => {
    const { transactionId } = parseInput(z.object({ transactionId: z.string().max(200) }), req.params);
    return transactionResource(await getTransaction(req.ctx, transactionId));
  });
}
