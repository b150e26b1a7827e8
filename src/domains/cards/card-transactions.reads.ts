import { z } from 'zod';
import type { Ctx } from '../../deps.js';
import { paginationQuery } from '../../platform/http/pagination.js';
import { decodeKeyset, encodeKeyset } from '../../platform/http/keyset.js';
import { parseInput } from '../../platform/http/validate.js';
import { CARD_TRANSACTION_STATUSES } from './card-transactions.model.js';
import { cardTransactionResource } from './card-transactions.resource.js';
import { getCardTransaction, listCardTransactions } from './card-transactions.service.js';

/**
 * REF's CardTransaction in GET /transactions and GET /transactions/{id} (`type: CARD`), called from the
 * payments read routes by one line each (`// hook:27`): a list asking for `type=CARD` or naming a `cardId`
 * is a card list; an id `CardTransaction:…` is a card transaction.
 */
const isoDate = z.iso.datetime({ offset: true }).transform((s) => new Date(s));
const statusList = z
  .union([z.string(), z.array(z.string())])
  .transform((v) => (Array.isArray(v) ? v : [v]).flatMap((s) => s.split(',')).filter(Boolean))
  .pipe(z.array(z.enum(CARD_TRANSACTION_STATUSES)));

export const cardListQuery = z.object({
  ...paginationQuery,
  sortOrder: z.enum(['asc', 'desc']).default('desc'),
  type: z.literal('CARD').optional(),
  cardId: z.string().min(1).max(200).optional(),
  status: statusList.optional(),
  customerId: z.string().max(200).optional(),
  platformCustomerId: z.string().min(1).max(255).optional(),
  startDate: isoDate.optional(),
  endDate: isoDate.optional(),
});

/** The route's accepted query: its own parameters and the card list's (`cardId`). */
export const withCardQuery = (schema: z.ZodType): z.ZodType => z.union([schema, cardListQuery]);

/** The card list's page when the query asks for card transactions, else undefined (the payments list answers). */
export async function cardTransactionsPage(ctx: Ctx, rawQuery: unknown) {
  const q = (rawQuery ?? {}) as Record<string, unknown>;
  if (q.type !== 'CARD' && q.cardId === undefined) return undefined;
  const parsed = parseInput(cardListQuery, q);
  const page = await listCardTransactions(ctx, parsed);
  return { ...page, data: page.data.map(cardTransactionResource) };
}

/** The card transaction's resource for a `CardTransaction:` id, else undefined. */
export async function cardTransactionById(ctx: Ctx, id: string) {
  if (!id.startsWith('CardTransaction:')) return undefined;
  return cardTransactionResource(await getCardTransaction(ctx, id));
}

/** The list filters card transactions share with payments: with no other filter, the list holds both. */
const SHARED_FILTERS = new Set(['limit', 'cursor', 'sortOrder', 'customerId', 'platformCustomerId', 'startDate', 'endDate']);

interface SharedQuery {
  limit: number;
  cursor?: string | undefined;
  sortOrder: 'asc' | 'desc';
  customerId?: string | undefined;
  platformCustomerId?: string | undefined;
  startDate?: Date | undefined;
  endDate?: Date | undefined;
}

/** The UUIDv7 of a prefixed id: both tables' ids sort by it in creation order. */
const uuidOf = (id: string) => id.slice(id.indexOf(':') + 1);

/**
 * GET /transactions without a payment-only or card-only filter (issue 27): payments and card
 * transactions in one list, in the list's order — by id (the UUIDv7 after the prefix: creation order)
 * or, for a time window, by (createdAt, id) — and paginated by one cursor. The cursor's key is turned
 * into each table's id and each table gives at most a page from it through its own index (keyset.ts);
 * the page is the first `limit` of the two, so a page reads at most 2 × (limit + 1) rows. Any other
 * filter: the payments list alone, as before.
 */
export async function withCardTransactions<T extends { id: string; createdAt: Date }, R>(
  ctx: Ctx,
  q: SharedQuery & Record<string, unknown>,
  listPayments: (cursor: string | undefined) => Promise<{ data: T[]; hasMore: boolean; nextCursor?: string }>,
  toResource: (t: T) => R,
) {
  const shared = Object.entries(q).every(([k, v]) => v === undefined || SHARED_FILTERS.has(k));
  if (!shared) {
    const page = await listPayments(q.cursor);
    return { ...page, data: page.data.map(toResource) };
  }
  const byTime = Boolean(q.startDate || q.endDate);
  const k = decodeKeyset(q.cursor);
  const cursorAs = (prefix: string) => (k ? encodeKeyset({ id: `${prefix}:${uuidOf(k.id)}`, ...(k.at ? { createdAt: k.at } : {}) }, byTime) : undefined);
  const [payments, cards] = await Promise.all([
    listPayments(cursorAs('Transaction')),
    listCardTransactions(ctx, { limit: q.limit, sortOrder: q.sortOrder, cursor: cursorAs('CardTransaction'), customerId: q.customerId, platformCustomerId: q.platformCustomerId, startDate: q.startDate, endDate: q.endDate }),
  ]);
  const sign = q.sortOrder === 'desc' ? -1 : 1;
  const rows: Array<{ id: string; createdAt: Date; resource: () => unknown }> = [
    ...payments.data.map((t) => ({ id: t.id, createdAt: t.createdAt, resource: () => toResource(t) })),
    ...cards.data.map((t) => ({ id: t.id, createdAt: t.createdAt, resource: () => cardTransactionResource(t) })),
  ].sort((a, b) => sign * (byTime && a.createdAt.getTime() !== b.createdAt.getTime() ? a.createdAt.getTime() - b.createdAt.getTime() : uuidOf(a.id) < uuidOf(b.id) ? -1 : uuidOf(a.id) > uuidOf(b.id) ? 1 : 0));
  // A table with rows beyond its page has them after this page's last row too.
  const hasMore = rows.length > q.limit || payments.hasMore || cards.hasMore;
  const slice = rows.slice(0, q.limit);
  const page: { data: unknown[]; hasMore: boolean; nextCursor?: string } = { data: slice.map((r) => r.resource()), hasMore };
  if (hasMore && slice.length > 0) page.nextCursor = encodeKeyset(slice[slice.length - 1]!, byTime);
  return page;
}
