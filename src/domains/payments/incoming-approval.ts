import type { AppDeps, Ctx } from '../../deps.js';
import { ctxFor } from '../../deps.js';
import { ConflictError } from '../../platform/errors.js';
import type { Transaction } from '../../generated/prisma/client.js';
import { deliverInFlow } from '../webhooks/index.js';
import { beginExecution } from './quotes.service.js';
import { insertIncoming } from './money-path.repo.js';
import { transitionTransaction } from './transactions.repo.js';
import { perPlatformGroup } from '../../platform/platform-groups.js';

/**
 * REF's incoming-payment approval handshake (issue 25 item 5; docs/decisions.md anchor 25c), for platforms
 * with `incomingPaymentApproval` on. An incoming payment is recorded CREATED (REF: "initial lookup has been
 * created") and moved by `receive` to PENDING with `pendingReason: PLATFORM_APPROVAL`, nothing moved; the
 * platform's webhook endpoint is sent INCOMING_PAYMENT.PENDING once, in the flow (never retried: its answer is
 * the decision, decisions §7.3), and its answer decides:
 *   2xx (not 202)  approved: the payment proceeds as without the handshake (`beginExecution`, INCOMING: credited
 *                  to the internal account, or paid out to the default UMA deposit account)
 *   202            the platform decides through POST /transactions/{id}/approve|reject within
 *                  INCOMING_APPROVAL_WINDOW_MS; after it the payment is REJECTED (PAYMENT_APPROVAL_TIMED_OUT)
 *   403            REJECTED (the body's `details.rejectionReason` or `message` is the history's reason)
 *   422            REJECTED: the platform needs counterparty information the sender did not give
 *   anything else  REJECTED (PAYMENT_APPROVAL_WEBHOOK_ERROR): no answer is no approval
 * A REJECTED payment moved no money (the sender's VASP keeps it). An approval the customer's account cannot
 * take (FROZEN/CLOSED, issue 25) ends REFUNDED: the payment could not complete and goes back to the sender.
 */

export const INCOMING_APPROVAL = 'PLATFORM_APPROVAL';

type Decision = { kind: 'APPROVE' } | { kind: 'WAIT' } | { kind: 'REJECT'; reason: string; failureReason: string | null };

/** The platform's answer to the in-flow INCOMING_PAYMENT.PENDING, as REF's receiving-payments guide reads it. */
export function decisionOf(httpStatus: number | null, body: unknown): Decision {
  const b = (body && typeof body === 'object' ? body : {}) as { message?: unknown; details?: { rejectionReason?: unknown }; };
  if (httpStatus === 202) return { kind: 'WAIT' };
  if (httpStatus !== null && httpStatus >= 200 && httpStatus < 300) {
    return { kind: 'APPROVE' };
  }
  if (httpStatus === 403) {
    const why = typeof b.details?.rejectionReason === 'string' ? b.details.rejectionReason : typeof b.message === 'string' ? b.message : 'PLATFORM_REJECTED';
    return { kind: 'REJECT', reason: why.slice(0, 500), failureReason: null };
  }
  if (httpStatus === 422) return { kind: 'REJECT', reason: 'COUNTERPARTY_INFORMATION_REQUIRED', failureReason: null };
  return { kind: 'REJECT', reason: httpStatus === null ? 'NO_ANSWER' : `HTTP ${httpStatus}`, failureReason: 'PAYMENT_APPROVAL_WEBHOOK_ERROR' };
}

/**
 * An incoming payment that waits for the platform, written by the incoming payments' one writer (insertIncoming,
 * money-path.repo.ts): arrived CREATED and moved by `receive` to PENDING (its history row), with
 * INCOMING_PAYMENT.PENDING written already relayed (delivered below, not by the relay) — one statement, with the
 * request's Idempotency-Key record — then the in-flow delivery and its decision. `arrived`: the payment's row
 * (receiveIncomingPayment's). Returns the transaction as decided (PENDING while the platform takes its time).
 */
export async function receiveWithApproval(ctx: Ctx, arrived: Transaction, requested: ReadonlyArray<{ name: string; mandatory: boolean }> = []): Promise<Transaction> {
  const now = ctx.clock.now();
  const pending: Transaction = { ...arrived, status: 'PENDING', pendingReason: INCOMING_APPROVAL, approvalRequestedAt: now, updatedAt: now };
  const [eventId] = await insertIncoming(ctx, { row: pending, moves: ['receive'], inFlow: { data: { requestedReceiverCustomerInfoFields: requested }, relayedAt: now } });
  const answer = await deliverInFlow(ctx, eventId!, Math.min(ctx.config.WEBHOOK_TIMEOUT_MS, ctx.config.INCOMING_APPROVAL_WINDOW_MS));
  const decision = decisionOf(answer.httpStatus, answer.body);
  if (decision.kind === 'WAIT') return pending;
  // An answer slower than the window finds the payment already rejected by the sweep: the caller gets it as it is.
  const decided = decision.kind === 'APPROVE' ? approveIncoming(ctx, pending) : rejectIncoming(ctx, pending, decision.reason, decision.failureReason, true);
  return decided.catch(async (err) => {
    if ((err as { code?: string })?.code !== 'TRANSACTION_NOT_PENDING_PLATFORM_APPROVAL') throw err;
    return ctx.db.transaction.findFirstOrThrow({ where: { id: pending.id } });
  });
}

const notPendingApproval = () => new ConflictError('TRANSACTION_NOT_PENDING_PLATFORM_APPROVAL', 'The transaction is not waiting for platform approval (not pending, already decided, or timed out).');

function awaitingDecision(ctx: Ctx, t: Transaction): boolean {
  const deadline = (t.approvalRequestedAt?.getTime() ?? 0) + ctx.config.INCOMING_APPROVAL_WINDOW_MS;
  return t.type === 'INCOMING' && t.status === 'PENDING' && t.pendingReason === INCOMING_APPROVAL && deadline > ctx.clock.now().getTime();
}

/** A lost compare-and-set (decided concurrently, or timed out meanwhile) reads as "no longer pending approval". */
function mapRace(err: unknown): never {
  if ((err as { code?: string })?.code === 'INVALID_STATE_TRANSITION') throw notPendingApproval();
  throw err;
}

/**
 * The platform approves a waiting incoming payment (its webhook answer, or POST /transactions/{id}/approve):
 * it proceeds by `beginExecution` (INCOMING), as an incoming payment does without the handshake. The
 * `receiverCustomerInfo` given is for the sender's VASP; no flow of this server asks for one, so none is kept.
 * Errors: 409 TRANSACTION_NOT_PENDING_PLATFORM_APPROVAL (decided, or past the window).
 */
export async function approveIncoming(ctx: Ctx, t: Transaction): Promise<Transaction> {
  if (!awaitingDecision(ctx, t)) throw notPendingApproval();
  let execution;
  try {
    execution = await ctx.db.$transaction(async (tx) => {
      const fresh = await tx.transaction.findFirstOrThrow({ where: { id: t.id } });
      if (!awaitingDecision(ctx, fresh)) throw notPendingApproval();
      return beginExecution(ctx, tx, fresh, { by: 'INCOMING' });
    });
  } catch (err) {
    if ((err as { code?: string })?.code === 'INVALID_INPUT') return refundUndeliverable(ctx, t, (err as Error).message);
    mapRace(err);
  }
  await execution.afterCommit();
  return ctx.db.transaction.findFirstOrThrow({ where: { id: t.id } });
}

/** The customer's account cannot receive (beginExecution's account check): the payment goes back, REFUNDED. */
async function refundUndeliverable(ctx: Ctx, t: Transaction, why: string): Promise<Transaction> {
  return ctx.db
    .$transaction(async (tx) => {
      const fresh = await tx.transaction.findFirstOrThrow({ where: { id: t.id } });
      return transitionTransaction(ctx, tx, fresh, 'refundIncoming', { failureReason: 'OFFRAMP_FAILED' }, why.slice(0, 500));
    })
    .catch(mapRace);
}

/**
 * The platform rejects a waiting incoming payment (its webhook answer, POST /transactions/{id}/reject, or the
 * window passing): REJECTED with INCOMING_PAYMENT.REJECTED; nothing had moved. `anyTime`: the in-flow answer and
 * the sweep, which decide even at the window's edge (only a payment still waiting moves). Errors: 409 as approveIncoming.
 */
export async function rejectIncoming(ctx: Ctx, t: Transaction, reason: string, failureReason: string | null = null, anyTime = false): Promise<Transaction> {
  if (!anyTime && !awaitingDecision(ctx, t)) throw notPendingApproval();
  return ctx.db
    .$transaction(async (tx) => {
      const fresh = await tx.transaction.findFirstOrThrow({ where: { id: t.id } });
      if (fresh.status !== 'PENDING' || fresh.pendingReason !== INCOMING_APPROVAL || (!anyTime && !awaitingDecision(ctx, fresh))) throw notPendingApproval();
      return transitionTransaction(ctx, tx, fresh, 'rejectIncoming', failureReason ? { failureReason } : {}, reason);
    })
    .catch(mapRace);
}

/**
 * Loop (INCOMING_APPROVAL_SWEEP): incoming payments whose platform let the window pass are REJECTED with
 * PAYMENT_APPROVAL_TIMED_OUT (REF: "the payment will be automatically rejected"). Bounded by the batch.
 */
export async function expireIncomingApprovals(deps: AppDeps): Promise<number> {
  const cutoff = new Date(deps.clock.now().getTime() - deps.config.INCOMING_APPROVAL_WINDOW_MS);
  // Issue 29 (29a): per platform group, each read on one shard.
  return perPlatformGroup(deps.prisma, 'transactions', async (platforms) => {
    const due = await deps.prisma.transaction.findMany({
      where: { platformId: { in: platforms }, type: 'INCOMING', status: 'PENDING', pendingReason: INCOMING_APPROVAL, approvalRequestedAt: { lte: cutoff } },
      orderBy: { approvalRequestedAt: 'asc' },
      take: deps.config.QUOTE_EXPIRY_SWEEP_BATCH,
    });
    for (const t of due) {
      await rejectIncoming(ctxFor(deps, t.platformId), t, 'APPROVAL_WINDOW_EXPIRED', 'PAYMENT_APPROVAL_TIMED_OUT', true).catch((err) => deps.logger.warn({ err, transactionId: t.id }, 'incoming approval expiry failed'));
    }
    return due.length;
  });
}
