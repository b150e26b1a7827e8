import { ConflictError } from '../../platform/errors.js';
import { defineLifecycle, nextStatus, type TransitionTable } from '../../platform/state-machine.js';

/**
 * Spec "Card state" plus REF's `PENDING_KYC` and `PROCESSING` (issue 27): a card is PROCESSING while the
 * issuer provisions it, then ACTIVE (or CLOSED with ISSUER_REJECTED). PENDING_KYC is never entered in v1
 * (creation needs an APPROVED cardholder) but is a state REF lists, accepted as a filter.
 */
export const CARD_STATES = ['PENDING_KYC', 'PROCESSING', 'ACTIVE', 'FROZEN', 'CLOSED'] as const;
export type CardState = (typeof CARD_STATES)[number];

export const cardTransitions = {
  kycApproved: { from: ['PENDING_KYC'], to: 'PROCESSING' },
  activate: { from: ['PROCESSING'], to: 'ACTIVE' },
  issuerReject: { from: ['PROCESSING'], to: 'CLOSED' },
  freeze: { from: ['ACTIVE'], to: 'FROZEN' },
  unfreeze: { from: ['FROZEN'], to: 'ACTIVE' },
  close: { from: ['PENDING_KYC', 'PROCESSING', 'ACTIVE', 'FROZEN'], to: 'CLOSED' },
} as const satisfies TransitionTable<CardState>;
export type CardEvent = keyof typeof cardTransitions;

export const cardLifecycle = defineLifecycle({
  name: 'card',
  label: 'The card',
  statuses: CARD_STATES,
  transitions: cardTransitions,
  terminal: ['CLOSED'],
});

export const CARD_FORMS = ['VIRTUAL'] as const;

/** The event a PATCH `state` asks for. */
const EVENT_FOR_TARGET: Partial<Record<CardState, CardEvent>> = { FROZEN: 'freeze', ACTIVE: 'unfreeze', CLOSED: 'close' };

/**
 * The spec's card table, in the order it reads: a CLOSED card refuses every PATCH — `state: CLOSED` again
 * with 409 CARD_ALREADY_CLOSED, anything else with 409 CARD_NOT_MUTABLE; otherwise the requested state must
 * be a move of the transition table, else 409 INVALID_STATE_TRANSITION (including "to the state it is in").
 * Returns the event to apply, or null when the PATCH changes no state.
 */
export function cardEventFor(current: CardState, requested: CardState | undefined): CardEvent | null {
  if (current === 'CLOSED') {
    if (requested === 'CLOSED') throw new ConflictError('CARD_ALREADY_CLOSED', 'The card is already closed.');
    throw new ConflictError('CARD_NOT_MUTABLE', 'The card is closed and cannot be changed.');
  }
  if (requested === undefined) return null;
  const event = EVENT_FOR_TARGET[requested];
  // PROCESSING and PENDING_KYC are the issuer's and KYC's to leave, never a PATCH's target.
  if (!event) throw new ConflictError('INVALID_STATE_TRANSITION', `A card cannot be moved to ${requested}.`, { from: current, to: requested });
  nextStatus(cardLifecycle, event, current);
  return event;
}

