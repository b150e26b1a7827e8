import type { Ctx } from '../../deps.js';
import { NotFoundError } from '../../platform/errors.js';
import { customerFilterFor, visibleToCaller } from '../../platform/agent-scope.js';
import { decodeCursor, toPage, type Page } from '../../platform/http/pagination.js';
import type { Prisma, Transaction } from '../../generated/prisma/client.js';
import { readTransaction, transitionTransaction } from './transactions.repo.js';
import { refFilters } from './transactions.filters.js';

/** Errors: 404 TRANSACTION_NOT_FOUND (also another platform's transaction). */
export async function getTransaction(ctx: Ctx, id: string): Promise<Transaction> {
  const t = await readTransaction(ctx, id);
  // An agent (A17) sees only its customer's transactions.
  if (!t || !visibleToCaller(ctx, t.customerId)) throw new NotFoundError('TRANSACTION_NOT_FOUND', 'Transaction not found.');
  return t;
}

export interface ListTransactionsQuery {
  limit: number;
  cursor?: string;
  sortOrder: 'asc' | 'desc';
  status?: string[];
  type?: string;
  customerId?: string;
  currency?: string;
  accountIdentifier?: string;
  senderAccountIdentifier?: string;
  receiverAccountIdentifier?: string;
  startDate?: Date;
  endDate?: Date;
  platformCustomerId?: string;
  reference?: string;
}

/**
 * Cursor pagination on the UUIDv7 id: a page continues strictly after the last id seen, so rows
 * inserted while a client pages through are never returned twice and never shift a row out.
 */
export async function listTransactions(ctx: Ctx, query: ListTransactionsQuery): Promise<Page<Transaction>> {
  const q = ctx.agent ? { ...query, customerId: customerFilterFor(ctx, query.customerId) } : query;
  const after = decodeCursor(q.cursor);
  const where: Prisma.TransactionWhereInput = {
    ...(q.status?.length ? { status: { in: q.status } } : {}),
    ...(q.type ? { type: q.type } : {}),
    // Decision Part B §2: passing the platform's own id lists platform-owned transactions.
    ...(q.customerId ? (q.customerId === ctx.platformId ? { customerId: null } : { customerId: q.customerId }) : {}),
    ...(q.senderAccountIdentifier ? { sourceAccountId: q.senderAccountIdentifier } : {}),
    ...(q.receiverAccountIdentifier ? { destinationAccountId: q.receiverAccountIdentifier } : {}),
    ...(q.accountIdentifier ? { OR: [{ sourceAccountId: q.accountIdentifier }, { destinationAccountId: q.accountIdentifier }] } : {}),
    ...(q.startDate || q.endDate ? { createdAt: { ...(q.startDate ? { gte: q.startDate } : {}), ...(q.endDate ? { lte: q.endDate } : {}) } } : {}),
    ...(after ? { id: q.sortOrder === 'desc' ? { lt: after } : { gt: after } } : {}),
  };
  where.AND = [...(q.currency ? [{ OR: [{ sendingCurrency: q.currency }, { receivingCurrency: q.currency }] }] : []), ...(await refFilters(ctx, q))];
  const rows = await ctx.db.transaction.findMany({ where, orderBy: { id: q.sortOrder }, take: q.limit + 1 });
  return toPage(rows, q.limit, (r) => r);
}

/** A PENDING quote whose `expiresAt` passed: quote and transaction become EXPIRED (terminal). */
export async function expireQuote(ctx: Ctx, quoteId: string): Promise<void> {
  await ctx.db.$transaction(async (tx) => {
    const t = await tx.transaction.findUnique({ where: { quoteId } });
    if (!t || t.status !== 'PENDING') return;
    await transitionTransaction(ctx, tx, t, 'expire', { failureReason: 'QUOTE_EXPIRED' }, 'QUOTE_EXPIRED');
  });
}
