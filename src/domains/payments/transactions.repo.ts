import type { Ctx } from '../../deps.js';
import type { TenantTx } from '../../platform/db.js';
import { statusColumn, transition, type MoveOptions } from '../../platform/state-machine.js';
import { Prisma, type Transaction } from '../../generated/prisma/client.js';
import {
  quoteLifecycle, refundLifecycle, refundTransitions, transactionLifecycle, transactionTransitions,
  type RefundEvent, type TransactionEvent, type TransactionStatus,
} from './transactions.model.js';
import { transactionResource } from './transactions.resource.js';

type TxData = Partial<Pick<Transaction, 'failureReason' | 'railReference' | 'submittedAt' | 'settledAt' | 'refundStatus' | 'refundReason' | 'refundInitiatedAt' | 'refundReference'>>;

/** Where the payment lifecycles live (money-path.repo.ts composes the same moves into its statements). */
export const transactionStatus = statusColumn(transactionLifecycle, 'transactions', 'status');
export const quoteStatus = statusColumn(quoteLifecycle, 'quotes', 'status');
const refundStatus = statusColumn(refundLifecycle, 'transactions', 'refund_status');

/**
 * The one way a transaction's status changes: transition() — a compare-and-set on the statuses the
 * table allows (a lost race is the same error as an illegal move: 409 INVALID_STATE_TRANSITION), the
 * history row and the <OUTGOING|INCOMING>_PAYMENT.<STATUS> event — with the quote making the same move,
 * all in the caller's transaction.
 */
export async function transitionTransaction(ctx: Ctx, tx: TenantTx, t: Transaction, event: TransactionEvent, data: TxData = {}, reason?: string): Promise<Transaction> {
  const now = ctx.clock.now();
  const to = transactionTransitions[event].to as TransactionStatus;
  const moved = await transition(tx, ctx, transactionStatus, event, t.id, {
    from: t.status,
    reason: reason ?? null,
    // Waiting for platform approval exists only in PENDING (A17): leaving PENDING ends it.
    set: { ...data, updatedAt: now, ...(to !== 'PENDING' ? { pendingReason: null } : {}) },
    events: (row) => ({ type: `${eventPrefix(row)}.${to}`, data: transactionResource(row) }),
  });
  if (t.quoteId) {
    await transition(tx, ctx, quoteStatus, event, t.quoteId, { set: { updatedAt: now, ...(event === 'execute' || event === 'authorize' ? { executedAt: now } : {}) } });
  }
  return moved;
}

/** Starts the automatic refund of a failed transaction (refund status PENDING). */
export async function startRefund(ctx: Ctx, tx: TenantTx, t: Transaction, reason: string): Promise<Transaction> {
  const now = ctx.clock.now();
  return moveRefund(ctx, tx, t, 'start', {
    where: Prisma.sql`"status" = 'FAILED'`,
    set: { refundReason: reason, refundInitiatedAt: now, refundReference: `rfd_${t.id.slice(t.id.indexOf(':') + 1)}`, updatedAt: now },
  });
}

export async function transitionRefund(ctx: Ctx, tx: TenantTx, t: Transaction, event: Exclude<RefundEvent, 'start'>): Promise<Transaction> {
  const now = ctx.clock.now();
  return moveRefund(ctx, tx, t, event, { set: { updatedAt: now, ...(event === 'complete' ? { refundSettledAt: now } : {}) } });
}

/** A move of the refund lifecycle with its history row and <PREFIX>.REFUND_<STATUS> event. */
function moveRefund(ctx: Ctx, tx: TenantTx, t: Transaction, event: RefundEvent, opts: Pick<MoveOptions<Transaction>, 'set' | 'where'>): Promise<Transaction> {
  const to = refundTransitions[event].to;
  return transition(tx, ctx, refundStatus, event, t.id, {
    ...opts,
    from: t.refundStatus,
    events: (row) => ({ type: `${eventPrefix(row)}.REFUND_${to}`, data: transactionResource(row) }),
  });
}

/** Webhook family of a transaction's events: INCOMING_PAYMENT.* for incoming payments (decisions B§7.2). */
export function eventPrefix(t: Pick<Transaction, 'type'>): 'INCOMING_PAYMENT' | 'OUTGOING_PAYMENT' {
  return t.type === 'INCOMING' ? 'INCOMING_PAYMENT' : 'OUTGOING_PAYMENT';
}
