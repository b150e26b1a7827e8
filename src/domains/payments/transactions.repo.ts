import type { Ctx } from '../../deps.js';
import type { TenantTx } from '../../platform/db.js';
import { newId } from '../../platform/ids.js';
import { recordEvent } from '../../platform/outbox.js';
import { IllegalTransitionError, nextStatus } from '../../platform/state-machine.js';
import type { Transaction } from '../../generated/prisma/client.js';
import { refundTransitions, transactionTransitions, type RefundStatus, type TransactionEvent, type TransactionStatus } from './transactions.model.js';
import { transactionResource } from './transactions.resource.js';

type TxData = Partial<Pick<Transaction, 'failureReason' | 'railReference' | 'submittedAt' | 'settledAt' | 'refundStatus' | 'refundReason' | 'refundInitiatedAt' | 'refundReference'>>;

/**
 * The one way a transaction's status changes: a compare-and-set on the status the transition
 * table allows (a lost race is the same error as an illegal move), the quote's status kept equal,
 * a history row and the OUTGOING_PAYMENT.<STATUS> event, all in the caller's transaction.
 */
export async function transitionTransaction(ctx: Ctx, tx: TenantTx, t: Transaction, event: TransactionEvent, data: TxData = {}, reason?: string): Promise<Transaction> {
  const to = nextStatus(transactionTransitions, 'The transaction', event, t.status as TransactionStatus);
  const now = ctx.clock.now();
  const moved = await tx.transaction.updateMany({
    where: { id: t.id, status: { in: [...transactionTransitions[event].from] } },
    // Waiting for platform approval exists only in PENDING (A17): leaving PENDING ends it.
    data: { ...data, status: to, updatedAt: now, ...(to !== 'PENDING' ? { pendingReason: null } : {}) },
  });
  if (moved.count !== 1) throw new IllegalTransitionError('The transaction', event, t.status);
  if (t.quoteId) await tx.quote.updateMany({ where: { id: t.quoteId }, data: { status: to, updatedAt: now, ...(event === 'execute' || event === 'authorize' ? { executedAt: now } : {}) } });
  await tx.transactionStatusChange.create({
    data: { id: newId('Request').replace('Request:', 'TxChange:'), transactionId: t.id, field: 'status', fromStatus: t.status, toStatus: to, reason: reason ?? null, createdAt: now } as any,
  });
  const updated = await tx.transaction.findUniqueOrThrow({ where: { id: t.id } });
  await recordEvent(tx, `${eventPrefix(t)}.${to}`, transactionResource(updated));
  return updated;
}

/** Starts the automatic refund of a failed transaction (refund status PENDING). */
export async function startRefund(ctx: Ctx, tx: TenantTx, t: Transaction, reason: string): Promise<Transaction> {
  const now = ctx.clock.now();
  const moved = await tx.transaction.updateMany({
    where: { id: t.id, status: 'FAILED', refundStatus: null },
    data: { refundStatus: 'PENDING', refundReason: reason, refundInitiatedAt: now, refundReference: `rfd_${t.id.slice(t.id.indexOf(':') + 1)}`, updatedAt: now },
  });
  if (moved.count !== 1) throw new IllegalTransitionError('The refund', 'start', t.refundStatus);
  return refundChanged(ctx, tx, t, null, 'PENDING');
}

export async function transitionRefund(ctx: Ctx, tx: TenantTx, t: Transaction, event: keyof typeof refundTransitions): Promise<Transaction> {
  const to = nextStatus(refundTransitions, 'The refund', event, (t.refundStatus ?? 'NONE') as RefundStatus);
  const now = ctx.clock.now();
  const moved = await tx.transaction.updateMany({
    where: { id: t.id, refundStatus: { in: [...refundTransitions[event].from] } },
    data: { refundStatus: to, updatedAt: now, ...(to === 'COMPLETED' ? { refundSettledAt: now } : {}) },
  });
  if (moved.count !== 1) throw new IllegalTransitionError('The refund', event, t.refundStatus);
  return refundChanged(ctx, tx, t, t.refundStatus, to);
}

async function refundChanged(ctx: Ctx, tx: TenantTx, t: Transaction, from: string | null, to: RefundStatus): Promise<Transaction> {
  await tx.transactionStatusChange.create({
    data: { id: newId('Request').replace('Request:', 'TxChange:'), transactionId: t.id, field: 'refundStatus', fromStatus: from, toStatus: to, createdAt: ctx.clock.now() } as any,
  });
  const updated = await tx.transaction.findUniqueOrThrow({ where: { id: t.id } });
  await recordEvent(tx, `${eventPrefix(t)}.REFUND_${to}`, transactionResource(updated));
  return updated;
}

/** Webhook family of a transaction's events: INCOMING_PAYMENT.* for incoming payments (decisions B§7.2). */
export function eventPrefix(t: Pick<Transaction, 'type'>): 'INCOMING_PAYMENT' | 'OUTGOING_PAYMENT' {
  return t.type === 'INCOMING' ? 'INCOMING_PAYMENT' : 'OUTGOING_PAYMENT';
}
