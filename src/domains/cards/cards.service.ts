import type { Ctx } from '../../deps.js';
import { isUniqueViolation } from '../../platform/db.js';
import { BadRequestError, ConflictError, NotFoundError, type FieldError } from '../../platform/errors.js';
import { newId } from '../../platform/ids.js';
import { noteIdempotentResource } from '../../platform/idempotency.js';
import { decodeCursor, toPage, type Page } from '../../platform/http/pagination.js';
import type { Card, Prisma } from '../../generated/prisma/client.js';
import { getActiveCustomer } from '../customers/index.js';
import {
  consumeSignedChallenge, hasSignatureHeaders, issueSignedChallenge, verifySignedRetry,
  type SignatureHeaders, type SignedRequestChallenge, type SignedTarget,
} from '../signing/index.js';
import { cardEventFor, type CardState } from './cards.model.js';
import { provisionCard, pushCardState, requireIssuer } from './card-issuing.service.js';
import { transitionCard, updateCardFunding } from './cards.repo.js';
import type { CreateCardBody, ListCardsQuery, PatchCardBody } from './cards.schemas.js';

/**
 * Spec "Cards": each source must be an ACTIVE internal account of the cardholder, in a card-eligible currency
 * (USDB), all in one currency, and on PATCH in the card's currency. Returns that currency.
 * Errors: 400 FUNDING_SOURCE_INELIGIBLE with one `details.errors[]` entry per refused source.
 */
async function checkFundingSources(ctx: Ctx, customerId: string, ids: string[], cardCurrency?: string): Promise<string> {
  const accounts = new Map((await ctx.db.internalAccount.findMany({ where: { id: { in: ids } } })).map((a) => [a.id, a]));
  const errors: FieldError[] = [];
  const expected = cardCurrency ?? accounts.get(ids[0]!)?.currency;
  const eligible = ctx.config.CARD_ELIGIBLE_CURRENCIES;
  ids.forEach((id, i) => {
    const field = `fundingSources[${i}]`;
    const a = accounts.get(id);
    if (!a) errors.push({ field, message: 'No such internal account.' });
    else if (a.customerId !== customerId) errors.push({ field, message: "Not an internal account of the cardholder." });
    else if (!eligible.includes(a.currency)) errors.push({ field, message: `${a.currency} is not a card-eligible currency (${eligible.join(', ')}).` });
    else if (a.currency !== expected) errors.push({ field, message: cardCurrency ? `The card's currency is ${cardCurrency}.` : 'All funding sources must share one currency.' });
    else if (a.status !== 'ACTIVE') errors.push({ field, message: `The account is ${a.status}.` });
  });
  if (errors.length > 0) throw new BadRequestError('FUNDING_SOURCE_INELIGIBLE', 'A funding source is not eligible for this card.', { errors });
  return expected!;
}

const limitReached = (message: string, details: Record<string, unknown>) => new ConflictError('CARD_LIMIT_REACHED', message, details);

/**
 * POST /cards (decision A13, issue 27): a VIRTUAL card, committed PROCESSING, then provisioned with the
 * issuer outside the transaction (provisionCard): ACTIVE at once when the issuer answers so, else it
 * stays PROCESSING until the sweep or the issuer's push finishes it. The platform's limits are enforced under a
 * lock on its row, so concurrent creations are serialised per platform and the count they read is exact;
 * the one-card-per-cardholder rule is enforced a second time by the unique `cardholder_slot` index.
 * Errors: 400 INVALID_INPUT, CARDHOLDER_KYC_NOT_APPROVED, FUNDING_SOURCE_INELIGIBLE; 404 USER_NOT_FOUND;
 * 409 CARD_LIMIT_REACHED, CONFLICT (platformCardId taken); 410 CUSTOMER_DELETED.
 */
export async function createCard(ctx: Ctx, body: CreateCardBody): Promise<Card> {
  const issuer = requireIssuer(ctx);
  if (body.threeDSecurePassword !== undefined && !issuer.supports3dsPassword) {
    throw new BadRequestError('INVALID_INPUT', 'This card program takes no static 3-D Secure password.', { errors: [{ field: 'threeDSecurePassword', message: 'Not supported by the card issuer.' }] });
  }
  const card = await insertCard(ctx, body);
  return provisionCard(ctx, card, body.threeDSecurePassword);
}

async function insertCard(ctx: Ctx, body: CreateCardBody): Promise<Card> {
  const customer = await getActiveCustomer(ctx, body.customerId);
  if (customer.status !== 'APPROVED') {
    throw new BadRequestError('CARDHOLDER_KYC_NOT_APPROVED', `The cardholder's verification status is ${customer.status}; cards need APPROVED.`, { status: customer.status });
  }
  const currency = await checkFundingSources(ctx, customer.id, body.fundingSources);
  const id = newId('Card');
  noteIdempotentResource(ctx, id);
  const now = ctx.clock.now();
  try {
    return await ctx.db.$transaction(async (tx) => {
      const [platform] = await tx.$queryRaw<Array<{ max_live_cards: number; one_card_per_cardholder: boolean }>>`
        SELECT max_live_cards, one_card_per_cardholder FROM platforms WHERE id = ${ctx.platformId} FOR NO KEY UPDATE`;
      const live = await tx.card.count({ where: { state: { not: 'CLOSED' } } });
      if (live >= platform!.max_live_cards) {
        throw limitReached(`The platform holds its maximum of ${platform!.max_live_cards} live cards; close one first.`, { maxLiveCards: platform!.max_live_cards });
      }
      if (platform!.one_card_per_cardholder && (await tx.card.count({ where: { customerId: customer.id, state: { not: 'CLOSED' } } })) > 0) {
        throw limitReached('The cardholder already holds a live card (one card per cardholder).', { customerId: customer.id });
      }
      return tx.card.create({
        data: {
          id,
          customerId: customer.id,
          platformCardId: body.platformCardId ?? id.slice(id.indexOf(':') + 1),
          form: body.form,
          state: 'PROCESSING',
          issuerAdapter: ctx.adapters.cardIssuer!.id,
          currency,
          fundingSources: body.fundingSources,
          maxSpendPerTransaction: body.maxSpendPerTransaction == null ? null : BigInt(body.maxSpendPerTransaction),
          cardholderSlot: platform!.one_card_per_cardholder ? customer.id : null,
          createdAt: now,
          updatedAt: now,
        } as any,
      });
    });
  } catch (err) {
    if (isUniqueViolation(err, 'cardholder_slot')) throw limitReached('The cardholder already holds a live card (one card per cardholder).', { customerId: customer.id });
    if (isUniqueViolation(err, 'platform_card_id')) throw new ConflictError('CONFLICT', 'Another card has this platformCardId.', { platformCardId: body.platformCardId });
    throw err;
  }
}

/** Errors: 404 NOT_FOUND (also another platform's card). */
export async function getCard(ctx: Ctx, id: string): Promise<Card> {
  const card = await ctx.db.card.findFirst({ where: { id } });
  if (!card) throw new NotFoundError('NOT_FOUND', 'Card not found.');
  return card;
}

/** Newest first (`sortOrder=asc`: oldest first), cursor pagination on the UUIDv7 id, with REF's totalCount. */
export async function listCards(ctx: Ctx, q: ListCardsQuery): Promise<Page<Card> & { totalCount: number }> {
  const after = decodeCursor(q.cursor);
  const asc = q.sortOrder === 'asc';
  const customerId = q.customerId ?? q.cardholderId;
  const where: Prisma.CardWhereInput = {
    ...(customerId ? { customerId } : {}),
    ...(q.accountId ? { fundingSources: { has: q.accountId } } : {}),
    ...(q.platformCardId ? { platformCardId: q.platformCardId } : {}),
    ...(q.state ? { state: q.state } : {}),
  };
  const [rows, totalCount] = await Promise.all([
    ctx.db.card.findMany({ where: { ...where, ...(after ? { id: asc ? { gt: after } : { lt: after } } : {}) }, orderBy: { id: asc ? 'asc' : 'desc' }, take: q.limit + 1 }),
    ctx.db.card.count({ where }),
  ]);
  return { ...toPage(rows, q.limit, (r) => r), totalCount };
}

/** Validates a PATCH against the card as it is: the spec's state table, then the funding sources. */
async function checkCardPatch(ctx: Ctx, card: Card, body: PatchCardBody) {
  const event = cardEventFor(card.state as CardState, body.state);
  if (body.fundingSources) await checkFundingSources(ctx, card.customerId, body.fundingSources, card.currency);
  return event;
}

export type PatchCardOutcome = { kind: 'CHALLENGE'; challenge: SignedRequestChallenge } | { kind: 'APPLIED'; card: Card };

/**
 * PATCH /cards/{id}: a sensitive change (spec Authentication 3; decisions A14, B§6.6). Without signature
 * headers the body is validated against the card and a 202 challenge is returned; the retry with
 * `Svc-Wallet-Signature` and `Request-Id` (same body) is verified and applied, consuming the challenge in
 * the same transaction. Errors: 400 INVALID_INPUT, FUNDING_SOURCE_INELIGIBLE; 401 WALLET_SIGNATURE_* and
 * REQUEST_ID_MISSING; 404; 409 CARD_NOT_MUTABLE, CARD_ALREADY_CLOSED, INVALID_STATE_TRANSITION.
 */
export async function patchCard(ctx: Ctx, id: string, body: PatchCardBody, rawBody: unknown, headers: SignatureHeaders): Promise<PatchCardOutcome> {
  const card = await getCard(ctx, id);
  await checkCardPatch(ctx, card, body);
  const target: SignedTarget = { customerId: card.customerId, resourceId: card.id, action: 'PATCH /cards/{cardId}', body: rawBody };
  if (!hasSignatureHeaders(headers)) return { kind: 'CHALLENGE', challenge: await issueSignedChallenge(ctx, target) };
  const requestId = await verifySignedRetry(ctx, target, headers);
  const updated = await ctx.db.$transaction(async (tx) => {
    await consumeSignedChallenge(ctx, tx, requestId);
    let current = await tx.card.findFirstOrThrow({ where: { id } });
    // Re-checked on the row as it is now: the card may have moved since the challenge.
    const event = cardEventFor(current.state as CardState, body.state);
    // The new state is owed to the issuer until it accepts it (pushCardState, after the commit).
    if (event) current = await transitionCard(ctx, tx, current, event, current.processorRef ? { issuerStateDueAt: ctx.clock.now(), issuerStateAttempts: 0 } : {});
    if (body.fundingSources !== undefined || body.maxSpendPerTransaction !== undefined) {
      current = await updateCardFunding(ctx, tx, current, {
        ...(body.fundingSources !== undefined ? { fundingSources: body.fundingSources } : {}),
        ...(body.maxSpendPerTransaction !== undefined ? { maxSpendPerTransaction: body.maxSpendPerTransaction === null ? null : BigInt(body.maxSpendPerTransaction) } : {}),
      });
    }
    return current;
  });
  if (body.state !== undefined) await pushCardState(ctx, updated);
  return { kind: 'APPLIED', card: updated };
}
