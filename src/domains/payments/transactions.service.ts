import type { Ctx } from '../../deps.js';
import { NotFoundError } from '../../platform/errors.js';
import { customerFilterFor, visibleToCaller } from '../../platform/agent-scope.js';
import type { Page } from '../../platform/http/pagination.js';
import { afterKeyset, decodeKeyset, keysetOrder, mergeBranches, toKeysetPage, type Keyset } from '../../platform/http/keyset.js';
import type { Prisma, Transaction } from '../../generated/prisma/client.js';
import { LRUCache } from 'lru-cache';
import { readTransaction, readTransactionVersion, readVersionedTransaction, transitionTransaction } from './transactions.repo.js';
import { transactionResource } from './transactions.resource.js';
import { refFilters } from './transactions.filters.js';
import { releaseDailyUsage, settleActionOfTransaction } from '../agents/index.js';

/** Errors: 404 TRANSACTION_NOT_FOUND (also another platform's transaction). */
export async function getTransaction(ctx: Ctx, id: string): Promise<Transaction> {
  const t = await readTransaction(ctx, id);
  // An agent (A17) sees only its customer's transactions.
  if (!t || !visibleToCaller(ctx, t.customerId)) throw notFound();
  return t;
}

const notFound = () => new NotFoundError('TRANSACTION_NOT_FOUND', 'Transaction not found.');

/**
 * GET /transactions/{id}'s body, the JSON of transactionResource(getTransaction(…)). Every request reads
 * the row's version from Postgres (`xmin`, changed by any update of the row): when this process already
 * built the body of that version, it is sent again, without reading and parsing the whole row or
 * building and serializing the resource (platforms poll a payment's status; most polls find it
 * unchanged). Otherwise the row is read whole and its body kept, per process, least recently used
 * first out. The answer is always the row as committed when the request read it, and scoped as
 * getTransaction scopes it. Errors as getTransaction.
 */
export async function getTransactionBody(ctx: Ctx, id: string): Promise<string> {
  const cache = bodiesOf(ctx);
  const kept = cache.get(id);
  if (kept) {
    const current = await readTransactionVersion(ctx, id);
    if (!current || !visibleToCaller(ctx, current.customerId)) throw notFound();
    if (current.version === kept.version) return kept.body;
  }
  const read = await readVersionedTransaction(ctx, id);
  if (!read || !visibleToCaller(ctx, read.t.customerId)) throw notFound();
  const body = JSON.stringify(transactionResource(read.t));
  cache.set(id, { version: read.version, body });
  return body;
}

/** Bodies built by getTransactionBody, per database client (a process has one; tests have several). */
const bodies = new WeakMap<object, LRUCache<string, { version: string; body: string }>>();

function bodiesOf(ctx: Ctx): LRUCache<string, { version: string; body: string }> {
  let cache = bodies.get(ctx.prisma);
  if (!cache) bodies.set(ctx.prisma, (cache = new LRUCache({ max: 10_000, maxSize: 32 << 20, sizeCalculation: (v) => v.body.length + v.version.length })));
  return cache;
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
 * Cursor pagination on the UUIDv7 id (or on (createdAt, id) when a time window is given): a page
 * continues strictly after the last row seen, so rows inserted while a client pages through are never
 * returned twice and never shift a row out. Every filter is served by an index that also gives the
 * order (issue 30, migration 20261203000000): a filter matching either of two columns (currency,
 * accountIdentifier, reference) is one ordered index scan per column, merged (platform/http/keyset.ts).
 */
export async function listTransactions(ctx: Ctx, query: ListTransactionsQuery): Promise<Page<Transaction>> {
  const q = ctx.agent ? { ...query, customerId: customerFilterFor(ctx, query.customerId) } : query;
  const byTime = Boolean(q.startDate || q.endDate);
  const after = await keysetOf(ctx, decodeKeyset(q.cursor), byTime);
  const where: Prisma.TransactionWhereInput = {
    ...(q.status?.length ? { status: { in: q.status } } : {}),
    ...(q.type ? { type: q.type } : {}),
    // Decision Part B §2: passing the platform's own id lists platform-owned transactions.
    ...(q.customerId ? (q.customerId === ctx.platformId ? { customerId: null } : { customerId: q.customerId }) : {}),
    ...(q.senderAccountIdentifier ? { sourceAccountId: q.senderAccountIdentifier } : {}),
    ...(q.receiverAccountIdentifier ? { destinationAccountId: q.receiverAccountIdentifier } : {}),
    ...(byTime ? { createdAt: { ...(q.startDate ? { gte: q.startDate } : {}), ...(q.endDate ? { lte: q.endDate } : {}) } } : {}),
  };
  // Most selective first: the first either-or filter branches (one index scan per alternative); the
  // others are checked on the rows those scans find.
  const eitherOf: Prisma.TransactionWhereInput[][] = [
    ...(await refFilters(ctx, q)),
    ...(q.accountIdentifier ? [[{ sourceAccountId: q.accountIdentifier }, { destinationAccountId: q.accountIdentifier }]] : []),
    ...(q.currency ? [[{ sendingCurrency: q.currency }, { receivingCurrency: q.currency }]] : []),
  ];
  const [branches = [{}], ...rest] = eitherOf.sort((x, y) => Number(x.length === 1) - Number(y.length === 1));
  const base = [where, afterKeyset(after, q.sortOrder, byTime) as Prisma.TransactionWhereInput, ...rest.map((or) => ({ OR: or }))];
  const orderBy = keysetOrder(q.sortOrder, byTime) as Prisma.TransactionOrderByWithRelationInput[];
  const take = q.limit + 1;
  const rows = await mergeBranches(
    branches.map((branch) => () => ctx.db.transaction.findMany({ where: { AND: [...base, branch] }, orderBy, take })),
    take,
    q.sortOrder,
    byTime,
  );
  return toKeysetPage(rows, q.limit, byTime, (r) => r);
}

/** A cursor of a list by time that lacks the row's createdAt (an id-only cursor): read it once. */
async function keysetOf(ctx: Ctx, k: Keyset | undefined, byTime: boolean): Promise<Keyset | undefined> {
  if (!k || !byTime || k.at) return k;
  const row = await ctx.db.transaction.findFirst({ where: { id: k.id }, select: { createdAt: true } });
  return row ? { id: k.id, at: row.createdAt } : k;
}

/** A PENDING quote whose `expiresAt` passed: quote and transaction become EXPIRED (terminal). */
export async function expireQuote(ctx: Ctx, quoteId: string): Promise<void> {
  await ctx.db.$transaction(async (tx) => {
    const t = await tx.transaction.findFirst({ where: { quoteId } });
    if (!t || t.status !== 'PENDING') return;
    await transitionTransaction(ctx, tx, t, 'expire', { failureReason: 'QUOTE_EXPIRED' }, 'QUOTE_EXPIRED');
    // Issue 26: an agent payment that expired waiting for approval gives back what it counted; its AgentAction fails.
    if (t.pendingReason === 'PLATFORM_APPROVAL' && t.agentId && t.agentCountedAmount !== null && t.approvalRequestedAt) {
      await releaseDailyUsage(ctx, tx, t.agentId, t.agentCountedAmount, t.approvalRequestedAt);
      await settleActionOfTransaction(ctx, tx, t.id, 'expire');
    }
  });
}
