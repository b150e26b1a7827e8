import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { Ctx } from '../../deps.js';
import type { Prisma, Quote } from '../../generated/prisma/client.js';
import { customerFilterFor } from '../../platform/agent-scope.js';
import { paginationQuery, type Page } from '../../platform/http/pagination.js';
import { afterKeyset, decodeKeyset, keysetOrder, toKeysetPage } from '../../platform/http/keyset.js';
import { parseInput } from '../../platform/http/validate.js';
import { quoteResource } from './quotes.resource.js';
import { quoteScaChallenge } from '../sca/index.js';

const QUOTE_STATUSES = ['PENDING', 'PENDING_AUTHORIZATION', 'PROCESSING', 'COMPLETED', 'FAILED', 'EXPIRED'] as const;
const dateTime = z.iso.datetime({ offset: true }).transform((s) => new Date(s));

/** `GET /quotes` (REF's `quotes.list`, issue 13): every filter REF documents, newest first. */
export const listQuotesQuery = z.object({
  ...paginationQuery,
  customerId: z.string().min(1).max(200).optional(),
  sendingAccountId: z.string().min(1).max(200).optional(),
  receivingAccountId: z.string().min(1).max(200).optional(),
  sendingUmaAddress: z.string().min(1).max(400).optional(),
  receivingUmaAddress: z.string().min(1).max(400).optional(),
  status: z.enum(QUOTE_STATUSES).optional(),
  createdAfter: dateTime.optional(),
  createdBefore: dateTime.optional(),
});
export type ListQuotesQuery = z.output<typeof listQuotesQuery>;

/**
 * Cursor pagination on the UUIDv7 id, newest first (decision A4); with a creation window, on
 * (createdAt, id). Each filter has an index `(platform_id, filter, id)` that also gives the order
 * (issue 30, migration 20261203000000).
 */
export async function listQuotes(ctx: Ctx, query: ListQuotesQuery): Promise<Page<Quote>> {
  const customerId = customerFilterFor(ctx, query.customerId);
  const byTime = Boolean(query.createdAfter || query.createdBefore);
  const after = decodeKeyset(query.cursor);
  const and: Prisma.QuoteWhereInput[] = [];
  if (customerId) and.push(customerId === ctx.platformId ? { customerId: null } : { customerId });
  if (query.sendingAccountId) and.push({ sourceAccountId: query.sendingAccountId });
  if (query.receivingAccountId) and.push({ destinationAccountId: query.receivingAccountId });
  if (query.status) and.push({ status: query.status });
  if (byTime) and.push({ createdAt: { ...(query.createdAfter ? { gte: query.createdAfter } : {}), ...(query.createdBefore ? { lte: query.createdBefore } : {}) } });
  // The address paid, whether delivered by a UMA counterparty or to a local receiver (issue 30: its own indexed column).
  if (query.receivingUmaAddress) and.push({ destinationUmaAddress: query.receivingUmaAddress });
  if (query.sendingUmaAddress) {
    const senders = await ctx.db.customer.findMany({ where: { umaAddress: query.sendingUmaAddress }, select: { id: true } });
    and.push({ customerId: { in: senders.map((c) => c.id) } });
  }
  if (after && byTime && !after.at) {
    const row = await ctx.db.quote.findFirst({ where: { id: after.id }, select: { createdAt: true } });
    if (row) after.at = row.createdAt;
  }
  and.push(afterKeyset(after, 'desc', byTime) as Prisma.QuoteWhereInput);
  const orderBy = keysetOrder('desc', byTime) as Prisma.QuoteOrderByWithRelationInput[];
  const rows = await ctx.db.quote.findMany({ where: { AND: and }, orderBy, take: query.limit + 1 });
  return toKeysetPage(rows, query.limit, byTime, (r) => r);
}

export async function quoteListRoutes(app: FastifyInstance) {
  app.get('/quotes', { config: { agent: 'CREATE_QUOTE', query: listQuotesQuery } }, async (req) => {
    const page = await listQuotes(req.ctx, parseInput(listQuotesQuery, req.query));
    const data = await Promise.all(page.data.map(async (q) => quoteResource(q, await quoteScaChallenge(req.ctx, q))));
    return { ...page, data };
  });
}
