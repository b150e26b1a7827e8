import type { AppDeps, Ctx } from '../../deps.js';
import { ctxFor } from '../../deps.js';
import { ConflictError, ForbiddenError, NotImplementedError } from '../../platform/errors.js';
import { newId } from '../../platform/ids.js';
import type { Card } from '../../generated/prisma/client.js';
import type { CardIssuerAdapter, ProvisionResult } from '../../adapters/card-issuer/port.js';
import { transitionCard } from './cards.repo.js';
import { platformOfLookup, syncLookups } from '../../platform/tenant-lookups.js';
import { perPlatformGroup } from '../../platform/platform-groups.js';

/**
 * The card's side of the issuer port (issue 27): provisioning (after the creating commit, never inside a
 * transaction), the state pushed to the issuer after a PATCH, reveals, and the provisioning sweep.
 */

/** REF: "environments without a configured card issuer return 501 NOT_IMPLEMENTED" on every /cards path. */
export function requireIssuer(ctx: Pick<Ctx, 'adapters'>): CardIssuerAdapter {
  const issuer = ctx.adapters.cardIssuer;
  if (!issuer) throw new NotImplementedError('Cards are not available: no card issuer is configured (CARD_ISSUER).');
  return issuer;
}

/**
 * Asks the issuer to provision a PROCESSING card and applies the answer. A failed call leaves the card
 * PROCESSING for the sweep (the same cardId is the issuer's idempotency key). The 3-D Secure password is
 * forwarded once the card exists and is never stored.
 */
export async function provisionCard(ctx: Ctx, card: Card, threeDSecurePassword?: string): Promise<Card> {
  const issuer = requireIssuer(ctx);
  let result: ProvisionResult;
  try {
    result = await issuer.provision({ cardId: card.id, platformCardId: card.platformCardId, cardholderId: card.customerId, form: card.form as 'VIRTUAL', currency: card.currency });
  } catch (err) {
    ctx.logger.warn({ err, cardId: card.id }, 'card provisioning failed; the sweep retries');
    return card;
  }
  const applied = await applyProvisioning(ctx, card.id, result);
  if (threeDSecurePassword !== undefined && result.processorRef) {
    await issuer.set3dsPassword({ cardId: card.id, processorRef: result.processorRef, password: threeDSecurePassword }).catch((err: unknown) => ctx.logger.warn({ err, cardId: card.id }, 'setting the 3-D Secure password failed'));
  }
  return applied;
}

/**
 * One provisioning answer applied to the card: the reference kept, then ACTIVE (with brand, last4,
 * expiry; CARD.STATE_CHANGE) or CLOSED with ISSUER_REJECTED. A repeated or stale answer changes nothing.
 */
export async function applyProvisioning(ctx: Ctx, cardId: string, result: ProvisionResult): Promise<Card> {
  return ctx.db.$transaction(async (tx) => {
    const card = await tx.card.findFirstOrThrow({ where: { id: cardId } });
    if (card.state !== 'PROCESSING') return card;
    if (result.status === 'PENDING') {
      if (card.processorRef === result.processorRef) return card;
      const updated = await tx.card.update({ where: { platformId_id: { platformId: card.platformId, id: card.id } }, data: { processorRef: result.processorRef, updatedAt: ctx.clock.now() } });
      await syncLookups(tx, 'cards', card, updated);
      return updated;
    }
    if (result.status === 'REJECTED') return transitionCard(ctx, tx, card, 'issuerReject', { processorRef: result.processorRef });
    return transitionCard(ctx, tx, card, 'activate', {
      processorRef: result.processorRef,
      issuerRef: result.issuerRef ?? null,
      brand: result.brand ?? null,
      last4: result.last4 ?? null,
      expMonth: result.expMonth ?? null,
      expYear: result.expYear ?? null,
    });
  });
}

/** How long after failed attempt `attempts` the card's state is pushed again (doubling, capped). */
function stateRetryDelayMs(ctx: Pick<Ctx, 'config'>, attempts: number): number {
  return Math.min(ctx.config.CARD_ISSUER_STATE_RETRY_MAX_MS, ctx.config.CARD_ISSUER_STATE_RETRY_BASE_MS * 2 ** Math.min(30, Math.max(0, attempts - 1)));
}

/**
 * After a committed freeze, unfreeze or close: the issuer must refuse at the network too. The change
 * committed with `issuerStateDueAt` set (what is owed, in Postgres); an accepted push clears it, a failed
 * one schedules the next attempt with backoff for the card sweep (sweepCardStates). Each write is a
 * compare-and-set on the state pushed: a card that moved again meanwhile keeps its own push owed.
 * Our decisioning refuses a frozen or closed card's authorizations whatever the issuer holds.
 */
export async function pushCardState(ctx: Ctx, card: Card): Promise<void> {
  const issuer = ctx.adapters.cardIssuer;
  if (!issuer || !card.processorRef || card.issuerStateDueAt === null || !['ACTIVE', 'FROZEN', 'CLOSED'].includes(card.state)) return;
  try {
    await issuer.setState({ cardId: card.id, processorRef: card.processorRef, state: card.state as 'ACTIVE' | 'FROZEN' | 'CLOSED' });
  } catch (err) {
    const attempts = card.issuerStateAttempts + 1;
    const dueAt = new Date(ctx.clock.now().getTime() + stateRetryDelayMs(ctx, attempts));
    await ctx.db.card.updateMany({ where: { id: card.id, state: card.state, issuerStateDueAt: { not: null } }, data: { issuerStateAttempts: attempts, issuerStateDueAt: dueAt } });
    ctx.logger.warn({ err, cardId: card.id, state: card.state, attempts, retryAt: dueAt.toISOString() }, 'pushing the card state to the issuer failed; retried with backoff');
    return;
  }
  await ctx.db.card.updateMany({ where: { id: card.id, state: card.state }, data: { issuerStateDueAt: null, issuerStateAttempts: 0 } });
}

/** The card sweep's issuer part: states owed whose next attempt is due, pushed again (bounded per pass). */
export async function sweepCardStates(deps: AppDeps, batch: number): Promise<number> {
  const issuer = deps.adapters.cardIssuer;
  if (!issuer) return 0;
  // Issue 29 (29a): per platform group, each read on one shard.
  return perPlatformGroup(deps.prisma, 'cards', async (platforms) => {
    const due = await deps.prisma.card.findMany({ where: { platformId: { in: platforms }, issuerStateDueAt: { lte: deps.clock.now() }, issuerAdapter: issuer.id }, orderBy: { issuerStateDueAt: 'asc' }, take: batch });
    for (const card of due) await pushCardState(ctxFor(deps, card.platformId), card);
    return due.length;
  });
}

/**
 * POST /cards/{id}/reveal: the issuer's short-lived page URL. The PAN never passes through here; the
 * reveal (who, which card, until when) is audit-logged, the URL itself never stored or logged.
 * Errors: 403 FORBIDDEN without an attributable actor; 404; 409 CARD_NOT_MUTABLE for a card not issued.
 */
export async function revealCard(ctx: Ctx, card: Card, actor: string | undefined): Promise<{ panEmbedUrl: string; expiresAt: string }> {
  const issuer = requireIssuer(ctx);
  if (!actor) throw new ForbiddenError('FORBIDDEN', 'A reveal needs an attributable actor.');
  if (!card.processorRef || !['ACTIVE', 'FROZEN'].includes(card.state)) {
    throw new ConflictError('CARD_NOT_MUTABLE', `A ${card.state} card cannot be revealed.`, { state: card.state });
  }
  const r = await issuer.reveal({ cardId: card.id, processorRef: card.processorRef, actor });
  await ctx.db.cardReveal.create({ data: { id: newId('CardReveal'), cardId: card.id, actor, expiresAt: r.expiresAt } as any });
  ctx.logger.info({ cardId: card.id, actor, expiresAt: r.expiresAt.toISOString() }, 'card revealed');
  return { panEmbedUrl: r.url, expiresAt: r.expiresAt.toISOString() };
}

/** The issuer's push (context.reportProvisioned): the card is found by the issuer's reference. */
export async function receiveProvisioned(deps: AppDeps, adapterId: string, result: ProvisionResult): Promise<'ACCEPTED' | 'UNKNOWN_CARD'> {
  const platformId = await platformOfLookup(deps.prisma, 'CARD_PROCESSOR_REF', adapterId, result.processorRef);
  const card = platformId ? await deps.prisma.card.findFirst({ where: { platformId, issuerAdapter: adapterId, processorRef: result.processorRef }, select: { id: true, platformId: true } }) : null;
  if (!card) return 'UNKNOWN_CARD';
  await applyProvisioning(ctxFor(deps, card.platformId), card.id, result);
  return 'ACCEPTED';
}

/**
 * The provisioning sweep: cards still PROCESSING are asked about again (getProvisioning when the issuer
 * gave a reference, provision again otherwise — the card id keeps it idempotent). Bounded per pass.
 */
export async function sweepProvisioning(deps: AppDeps, batch: number): Promise<number> {
  const issuer = deps.adapters.cardIssuer;
  if (!issuer) return 0;
  // Issue 29 (29a): per platform group, each read on one shard.
  return perPlatformGroup(deps.prisma, 'cards', async (platforms) => {
    const cards = await deps.prisma.card.findMany({ where: { platformId: { in: platforms }, state: 'PROCESSING', issuerAdapter: issuer.id }, orderBy: { updatedAt: 'asc' }, take: batch });
    for (const card of cards) {
      const ctx = ctxFor(deps, card.platformId);
      try {
        if (!card.processorRef) await provisionCard(ctx, card);
        else await applyProvisioning(ctx, card.id, await issuer.getProvisioning(card.processorRef));
      } catch (err) {
        deps.logger.warn({ err, cardId: card.id }, 'provisioning poll failed');
      }
    }
    return cards.length;
  });
}
