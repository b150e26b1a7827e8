import { defineLifecycle, type TransitionTable } from '../../platform/state-machine.js';

/**
 * Decisions Part B §3.1: the outgoing status set (quotes use the same values), and REF's `CREATED`,
 * `REJECTED`, `REFUNDED` (issue 25; shared decisions §"REF's current surface" 7), which only incoming
 * payments reach, as REF's own descriptions say: CREATED "initial lookup has been created", REJECTED
 * "receiving institution or wallet rejected payment, payment has been refunded", REFUNDED "payment was
 * unable to complete and refunded". An outgoing payment that failed stays FAILED with its `refund`.
 */
export const TRANSACTION_STATUSES = ['CREATED', 'PENDING', 'PENDING_AUTHORIZATION', 'PROCESSING', 'COMPLETED', 'REJECTED', 'FAILED', 'REFUNDED', 'EXPIRED'] as const;
export type TransactionStatus = (typeof TRANSACTION_STATUSES)[number];

export const transactionTransitions = {
  execute: { from: ['PENDING'], to: 'PROCESSING' },
  requireAuthorization: { from: ['PENDING'], to: 'PENDING_AUTHORIZATION' },
  authorize: { from: ['PENDING_AUTHORIZATION'], to: 'PROCESSING' },
  authorizationExpired: { from: ['PENDING_AUTHORIZATION'], to: 'FAILED' },
  expire: { from: ['PENDING'], to: 'EXPIRED' },
  complete: { from: ['PROCESSING'], to: 'COMPLETED' },
  fail: { from: ['PROCESSING'], to: 'FAILED' },
  /** A bank returns a completed payment: COMPLETED is not strictly final (Part B §3.1). */
  bankReturn: { from: ['COMPLETED'], to: 'FAILED' },
  /** The platform rejects an agent payment waiting for its approval (A17): nothing was held. */
  reject: { from: ['PENDING'], to: 'FAILED' },
  /** POST /transactions/{id}/cancel before settlement (B§6.2); a PROCESSING one is refunded (USER_CANCELLATION). */
  cancel: { from: ['PENDING', 'PENDING_AUTHORIZATION', 'PROCESSING'], to: 'FAILED' },
  /** Issue 25 (REF): an incoming payment announced at its lookup (CREATED) is paid by its sender. */
  receive: { from: ['CREATED'], to: 'PENDING' },
  /** Issue 25 (REF): the receiving platform refuses an incoming payment; the sender gets it back. */
  rejectIncoming: { from: ['CREATED', 'PENDING'], to: 'REJECTED' },
  /** Issue 25 (REF): an incoming payment that could not complete went back to its sender. */
  refundIncoming: { from: ['PENDING', 'PROCESSING'], to: 'REFUNDED' },
} as const satisfies TransitionTable<TransactionStatus>;
export type TransactionEvent = keyof typeof transactionTransitions;

export const TERMINAL_STATUSES: readonly TransactionStatus[] = ['EXPIRED', 'FAILED', 'REJECTED', 'REFUNDED'];

/** The money-moving lifecycle (decisions Part B §3.1). COMPLETED is not final: a bank may return the payment. */
export const transactionLifecycle = defineLifecycle({
  name: 'transaction',
  label: 'The transaction',
  statuses: TRANSACTION_STATUSES,
  transitions: transactionTransitions,
  terminal: TERMINAL_STATUSES,
});

/**
 * A quote's status is its transaction's (Part B §3.1: the same values): it makes every move of the
 * transaction's table, in the same database transaction, with its own history rows (machine `quote`).
 */
export const quoteLifecycle = defineLifecycle({
  name: 'quote',
  label: 'The quote',
  statuses: TRANSACTION_STATUSES,
  transitions: transactionTransitions,
  terminal: TERMINAL_STATUSES,
});

/** A transaction's refund; NONE is the NULL column (no refund started). */
export const REFUND_STATUSES = ['NONE', 'PENDING', 'COMPLETED', 'FAILED'] as const;
export type RefundStatus = (typeof REFUND_STATUSES)[number];

export const refundTransitions = {
  /** A FAILED payment whose money was held or sent is refunded automatically (B§6.2). */
  start: { from: ['NONE'], to: 'PENDING' },
  complete: { from: ['PENDING'], to: 'COMPLETED' },
  fail: { from: ['PENDING'], to: 'FAILED' },
} as const satisfies TransitionTable<RefundStatus>;
export type RefundEvent = keyof typeof refundTransitions;

export const refundLifecycle = defineLifecycle({
  name: 'refund',
  label: 'The refund',
  statuses: REFUND_STATUSES,
  absent: 'NONE',
  transitions: refundTransitions,
  terminal: ['COMPLETED', 'FAILED'],
});

/** Failure reasons that start a refund with reason USER_CANCELLATION rather than TRANSACTION_FAILED. */
export function refundReasonFor(failureReason: string | null): 'USER_CANCELLATION' | 'TRANSACTION_FAILED' {
  return failureReason === 'USER_CANCELLATION' ? 'USER_CANCELLATION' : 'TRANSACTION_FAILED';
}
