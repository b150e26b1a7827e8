import type { TransitionTable } from '../../platform/state-machine.js';

/** Decisions Part B §3.1: the outgoing status set (quotes use the same values). */
export const TRANSACTION_STATUSES = ['PENDING', 'PENDING_AUTHORIZATION', 'PROCESSING', 'COMPLETED', 'FAILED', 'EXPIRED'] as const;
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
} as const satisfies TransitionTable<TransactionStatus>;
export type TransactionEvent = keyof typeof transactionTransitions;

export const REFUND_STATUSES = ['PENDING', 'COMPLETED', 'FAILED'] as const;
export type RefundStatus = (typeof REFUND_STATUSES)[number];

export const refundTransitions = {
  complete: { from: ['PENDING'], to: 'COMPLETED' },
  fail: { from: ['PENDING'], to: 'FAILED' },
} as const satisfies TransitionTable<RefundStatus>;

export const TERMINAL_STATUSES: readonly TransactionStatus[] = ['EXPIRED', 'FAILED'];

/** Failure reasons that start a refund with reason USER_CANCELLATION rather than TRANSACTION_FAILED. */
export function refundReasonFor(failureReason: string | null): 'USER_CANCELLATION' | 'TRANSACTION_FAILED' {
  return failureReason === 'USER_CANCELLATION' ? 'USER_CANCELLATION' : 'TRANSACTION_FAILED';
}
