import { z } from 'zod';
import type { Ctx } from '../../deps.js';
import { paginationQuery } from '../../platform/http/pagination.js';
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
