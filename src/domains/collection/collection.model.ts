import { defineLifecycle } from '../../platform/state-machine.js';

/**
 * Pay-in coordinates of one internal account on one rail (issue 26 item 1, docs/decisions.md 26a). The row is
 * the record of what is owed: PENDING (to open: the sweep asks the provider until it answers OPEN or
 * REJECTED), OPEN (shown in the account's fundingPaymentInstructions), CLOSING (the account closed: to close
 * at the provider), CLOSED, FAILED (the provider refused this rail for this account).
 */
export const coordinatesLifecycle = defineLifecycle({
  name: 'collection-coordinates',
  label: 'The pay-in coordinates',
  statuses: ['PENDING', 'OPEN', 'CLOSING', 'CLOSED', 'FAILED'],
  transitions: {
    open: { from: ['PENDING'], to: 'OPEN' },
    reject: { from: ['PENDING'], to: 'FAILED' },
    /** The account closed after its coordinates opened: they must be closed at the provider. */
    close: { from: ['OPEN'], to: 'CLOSING' },
    closed: { from: ['CLOSING'], to: 'CLOSED' },
    /** The account closed before the provider answered: nothing was shown to payers, nothing to close. */
    abandon: { from: ['PENDING'], to: 'CLOSED' },
  },
  terminal: ['CLOSED', 'FAILED'],
});

/** Why a credit is held and not applied (a HELD collection credit's heldReason). */
export const HELD_REASONS = ['ACCOUNT_FROZEN', 'ACCOUNT_CLOSED', 'ACCOUNT_NOT_ACTIVE', 'UNMATCHED', 'CURRENCY_MISMATCH'] as const;
export type HeldReason = (typeof HELD_REASONS)[number];

/** The reason a credit to an account in `status` cannot be applied (undefined: ACTIVE, it can). */
export function heldReasonFor(accountStatus: string): HeldReason | undefined {
  if (accountStatus === 'ACTIVE') return undefined;
  if (accountStatus === 'FROZEN') return 'ACCOUNT_FROZEN';
  if (accountStatus === 'CLOSED') return 'ACCOUNT_CLOSED';
  return 'ACCOUNT_NOT_ACTIVE';
}

/** Retry delay of the n-th failed attempt (1-based): base doubled per attempt, capped. */
export function retryDelayMs(attempt: number, baseMs: number, maxMs: number): number {
  return Math.min(maxMs, baseMs * 2 ** Math.min(30, Math.max(0, attempt - 1)));
}

/** Account types that get coordinates: an embedded wallet is self-custodial (REF: funded by its own address). */
export const COLLECTING_ACCOUNT_TYPES: readonly string[] = ['INTERNAL_FIAT', 'INTERNAL_CRYPTO'];
