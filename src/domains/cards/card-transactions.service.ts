import type { Ctx } from '../../deps.js';
import { BadRequestError, NotFoundError, NotImplementedError } from '../../platform/errors.js';
import { afterKeyset, decodeKeyset, keysetOrder, toKeysetPage, type Keyset } from '../../platform/http/keyset.js';
import type { CardTransaction, Prisma } from '../../generated/prisma/client.js';
import type { SandboxCardIssuer } from '../../adapters/card-issuer/sandbox/index.js';
import type { CardMerchant, CardMessageKind } from '../../adapters/card-issuer/port.js';
import type { ProcessorMessage } from '../../adapters/card-issuer/protocol.js';
import { requireIssuer } from './card-issuing.service.js';
import { getCard } from './cards.service.js';

export interface ListCardTransactionsQuery {
  limit: number;
  cursor?: string | undefined;
  sortOrder: 'asc' | 'desc';
  status?: string[] | undefined;
  cardId?: string | undefined;
  customerId?: string | undefined;
  platformCustomerId?: string | undefined;
  startDate?: Date | undefined;
  endDate?: Date | undefined;
}

/**
 * GET /transactions?type=CARD (REF's CardTransaction in the transaction list): filters by card, customer,
 * status. Keyset pages as the payments list's (src/platform/http/keyset.ts): by id, or by (createdAt, id)
 * for a time window, each order served by an index.
 */
export async function listCardTransactions(ctx: Ctx, q: ListCardTransactionsQuery): Promise<{ data: CardTransaction[]; hasMore: boolean; nextCursor?: string }> {
  const byTime = Boolean(q.startDate || q.endDate);
  const after = await cardKeysetOf(ctx, decodeKeyset(q.cursor), byTime);
  const customerId = ctx.agent ? ctx.agent.customerId : q.customerId;
  const where: Prisma.CardTransactionWhereInput = {
    ...(q.status?.length ? { status: { in: q.status } } : {}),
    ...(q.cardId ? { cardId: q.cardId } : {}),
    ...(customerId ? { customerId } : {}),
    ...(q.platformCustomerId ? { platformCustomerId: q.platformCustomerId } : {}),
    ...(byTime ? { createdAt: { ...(q.startDate ? { gte: q.startDate } : {}), ...(q.endDate ? { lte: q.endDate } : {}) } } : {}),
  };
  const rows = await ctx.db.cardTransaction.findMany({
    where: { AND: [where, afterKeyset(after, q.sortOrder, byTime) as Prisma.CardTransactionWhereInput] },
    orderBy: keysetOrder(q.sortOrder, byTime) as Prisma.CardTransactionOrderByWithRelationInput[],
    take: q.limit + 1,
  });
  return toKeysetPage(rows, q.limit, byTime, (r) => r);
}

/** A cursor of a list by time that lacks the row's createdAt (an id-only cursor): read it once. */
async function cardKeysetOf(ctx: Ctx, k: Keyset | undefined, byTime: boolean): Promise<Keyset | undefined> {
  if (!k || !byTime || k.at || !k.id.startsWith('CardTransaction:')) return k;
  const row = await ctx.db.cardTransaction.findFirst({ where: { id: k.id }, select: { createdAt: true } });
  return row ? { id: k.id, at: row.createdAt } : k;
}

/** GET /transactions/{id} for a `CardTransaction:` id. Errors: 404 TRANSACTION_NOT_FOUND (also another platform's). */
export async function getCardTransaction(ctx: Ctx, id: string): Promise<CardTransaction> {
  const t = await ctx.db.cardTransaction.findFirst({ where: { id } });
  if (!t || (ctx.agent && ctx.agent.customerId !== t.customerId)) throw new NotFoundError('TRANSACTION_NOT_FOUND', 'Transaction not found.');
  return t;
}

/** The events applied to a card transaction (its pulls, clearings, returns), oldest first: the dashboard's timeline. */
async function listCardEvents(ctx: Ctx, cardTransactionId: string) {
  await getCardTransaction(ctx, cardTransactionId);
  return ctx.db.cardEvent.findMany({ where: { cardTransactionId }, orderBy: { createdAt: 'asc' }, take: 500 });
}

export const SIMULATIONS = [
  'authorization', 'authorization_advice', 'balance_inquiry', 'clearing', 'credit_authorization', 'credit_authorization_advice',
  'financial_authorization', 'financial_credit_authorization', 'return', 'return_reversal',
] as const;
export type Simulation = (typeof SIMULATIONS)[number];

const AUTH_KIND: Partial<Record<Simulation, CardMessageKind>> = {
  authorization: 'AUTHORIZATION',
  credit_authorization: 'CREDIT_AUTHORIZATION',
  financial_authorization: 'FINANCIAL_AUTHORIZATION',
  financial_credit_authorization: 'FINANCIAL_CREDIT_AUTHORIZATION',
  balance_inquiry: 'BALANCE_INQUIRY',
};
const EVENT_TYPE = { authorization_advice: 'AUTHORIZATION_ADVICE', clearing: 'CLEARING', return: 'RETURN', return_reversal: 'RETURN_REVERSAL' } as const;

export interface SimulationBody {
  amount?: number;
  currency?: string;
  merchant?: CardMerchant;
  cardTransactionId?: string;
}

/**
 * POST /sandbox/cards/{id}/simulate/{kind} (REF, sandbox only): the sandbox processor sends the
 * network's message through its signed webhook, exactly the path a real processor's push takes, and the
 * simulation answers 202 with the processor's token. Errors: 404 (card, or card transaction of another
 * card); 409 CARD_NOT_MUTABLE for a card the issuer has not issued; 501 without the sandbox issuer.
 */
export async function simulateCardEvent(ctx: Ctx, cardId: string, kind: Simulation, body: SimulationBody): Promise<{ issuerTransactionToken: string }> {
  const issuer = requireIssuer(ctx) as Partial<SandboxCardIssuer>;
  if (typeof issuer.simulate !== 'function' || typeof issuer.newToken !== 'function') throw new NotImplementedError('The configured card issuer has no sandbox simulations.');
  const card = await getCard(ctx, cardId);
  if (!card.processorRef) throw new BadRequestError('INVALID_INPUT', `The card is ${card.state}: the issuer has not issued it yet.`, { state: card.state });
  const message = await messageFor(ctx, card.id, card.processorRef, kind, body, issuer.newToken());
  const answer = await issuer.simulate(message);
  if (answer.status >= 500) throw new Error(`sandbox processor message answered ${answer.status}`);
  // An event on an existing authorization is correlated by its own token; a new authorization by its transaction's.
  const isFollowUp = message.kind === 'EVENT' && message.type !== 'CREDIT_AUTHORIZATION_ADVICE';
  return { issuerTransactionToken: isFollowUp ? (message as { eventToken: string }).eventToken : (message as { issuerTransactionToken: string }).issuerTransactionToken };
}

async function messageFor(ctx: Ctx, cardId: string, processorRef: string, kind: Simulation, body: SimulationBody, token: string): Promise<ProcessorMessage> {
  const authKind = AUTH_KIND[kind];
  if (authKind) {
    const amount = kind === 'balance_inquiry' ? 0 : body.amount!;
    return { kind: 'AUTHORIZATION_REQUEST', processorRef, issuerTransactionToken: token, messageKind: authKind, amount, currency: body.currency!, merchant: body.merchant! };
  }
  if (kind === 'credit_authorization_advice') {
    return { kind: 'EVENT', type: 'CREDIT_AUTHORIZATION_ADVICE', eventToken: `${token}:advice`, processorRef, issuerTransactionToken: token, amount: body.amount!, currency: body.currency!, merchant: body.merchant! };
  }
  const t = await ctx.db.cardTransaction.findFirst({ where: { id: body.cardTransactionId! } });
  if (!t || t.cardId !== cardId) throw new NotFoundError('TRANSACTION_NOT_FOUND', 'No card transaction of this card has this id.');
  const type = EVENT_TYPE[kind as keyof typeof EVENT_TYPE];
  return { kind: 'EVENT', type, eventToken: token, processorRef, issuerTransactionToken: t.issuerTransactionToken, ...(body.amount !== undefined ? { amount: body.amount } : {}) };
}
