import type { Ctx } from '../../deps.js';
import type { TenantTx } from '../../platform/db.js';
import { ConflictError } from '../../platform/errors.js';
import { recordEvent } from '../../platform/outbox.js';
import { statusColumn, transition } from '../../platform/state-machine.js';
import type { Card } from '../../generated/prisma/client.js';
import { cardLifecycle, cardTransitions, type CardEvent } from './cards.model.js';
import { cardResource } from './cards.schemas.js';
import { syncLookups } from '../../platform/tenant-lookups.js';

const cardState = statusColumn(cardLifecycle, 'cards', 'state');

/**
 * The one way a card's state changes: transition() — compare-and-set on the states the table allows (a
 * lost race is the same 409 as an illegal move), a history row, and CARD.STATE_CHANGE with the full card,
 * all in the caller's transaction. Closing also frees the cardholder slot (spec: closing frees the
 * platform's slot).
 */
export async function transitionCard(ctx: Ctx, tx: TenantTx, card: Card, event: CardEvent, extra: Partial<Pick<Card, 'brand' | 'last4' | 'expMonth' | 'expYear' | 'processorRef' | 'issuerRef' | 'issuerStateDueAt' | 'issuerStateAttempts'>> = {}): Promise<Card> {
  const now = ctx.clock.now();
  const closing = cardTransitions[event].to === 'CLOSED' ? { closedAt: now, cardholderSlot: null, stateReason: event === 'issuerReject' ? 'ISSUER_REJECTED' : 'CLOSED_BY_PLATFORM' } : {};
  const moved = await transition(tx, ctx, cardState, event, card.id, {
    from: card.state,
    set: { updatedAt: now, ...closing, ...extra },
    events: (moved) => ({ type: 'CARD.STATE_CHANGE', data: cardResource(moved) }),
  });
  // The processor's reference is looked up before the platform is known (CARD_PROCESSOR_REF).
  if (extra.processorRef !== undefined) await syncLookups(tx, 'cards', card, moved);
  return moved;
}

/**
 * Replaces the funding sources and/or the spend cap of a card that is not CLOSED (guarded in the update),
 * emitting CARD.FUNDING_SOURCE_CHANGE when sources were given.
 */
export async function updateCardFunding(
  ctx: Ctx,
  tx: TenantTx,
  card: Card,
  change: { fundingSources?: string[]; maxSpendPerTransaction?: bigint | null },
): Promise<Card> {
  const moved = await tx.card.updateMany({
    where: { id: card.id, state: { not: 'CLOSED' } },
    data: { ...change, updatedAt: ctx.clock.now() },
  });
  if (moved.count !== 1) throw new ConflictError('CARD_NOT_MUTABLE', 'The card is closed and cannot be changed.');
  const updated = await tx.card.findFirstOrThrow({ where: { id: card.id } });
  // Every applied replacement is announced, also one that lists the same accounts: it is a signed act.
  if (change.fundingSources !== undefined) await recordEvent(tx, 'CARD.FUNDING_SOURCE_CHANGE', cardResource(updated));
  return updated;
}
