import type { AppDeps, Ctx } from '../../deps.js';
import { ctxFor } from '../../deps.js';
import { poolOf, type TenantTx } from '../../platform/db.js';
import type { Transaction } from '../../generated/prisma/client.js';
import type { Posting } from '../ledger/index.js';
import { railFor } from '../../adapters/rails/registry.js';
import { getPayoutDestination } from '../external-accounts/index.js';
import { RailError, type PayoutRequest, type PayoutResult, type RailAdapter } from '../../adapters/rails/port.js';
import { failPayment, transitionRefund } from './transactions.repo.js';
import { refundReasonFor } from './transactions.model.js';
import { umaPayoutDestination } from './settlement.uma.js';
import { refundJournal, settlePostings, type PostingAccounts } from './payment-postings.js';
import { completeRefund, recordSubmissions, settlePayment, type RailSubmission } from './money-path.repo.js';

/** The accounts a payment's posting rules name besides its own (payment-postings.ts), read before its write. */
async function postingAccounts(db: Pick<TenantTx, 'internalAccount'>, t: Transaction, refund = false): Promise<PostingAccounts> {
  const platformFeeAccount = t.platformFees > 0n ? await db.internalAccount.findFirst({ where: { customerId: null, currency: t.sendingCurrency }, select: { id: true, availableBalance: true } }) : null;
  if (!refund || t.type !== 'INCOMING') return { platformFeeAccount };
  const fallback = await db.internalAccount.findFirst({ where: { customerId: t.customerId, currency: t.receivingCurrency }, select: { id: true } });
  return { platformFeeAccount, fallbackAccountId: fallback?.id ?? null };
}

/** The settle journal's legs of a PROCESSING payment. */
export async function settlePostingsOf(db: Pick<TenantTx, 'internalAccount'>, t: Transaction): Promise<Posting[]> {
  return settlePostings(t, await postingAccounts(db, t));
}

/** The destination's account details, read (and unsealed) at submission, even if deleted since. */
async function payoutDestination(ctx: Ctx, t: Transaction): Promise<{ accountType: string; accountInfo: Record<string, unknown> }> {
  if (t.destinationKind === 'UMA') return umaPayoutDestination(ctx, t);
  if (!t.destinationAccountId) return { accountType: 'UNKNOWN', accountInfo: {} };
  const d = await getPayoutDestination(ctx, t.destinationAccountId);
  return d ? { accountType: d.accountType, accountInfo: d.accountInfo } : { accountType: 'UNKNOWN', accountInfo: {} };
}

/** What the rail is asked to pay out; the transaction id is the idempotency key. */
export function payoutRequest(t: Transaction, destination: { accountType: string; accountInfo: Record<string, unknown> }): PayoutRequest {
  return {
    idempotencyKey: t.id,
    rail: t.paymentRail ?? 'NONE',
    amount: t.receivedAmount,
    currency: t.receivingCurrency,
    destination: { ...destination, identifierLast3: t.identifierLast3 ?? '' },
    remittanceInformation: t.remittanceInformation,
    purposeOfPayment: t.purposeOfPayment,
  };
}

async function load(ctx: Ctx, id: string): Promise<Transaction | null> {
  return ctx.db.transaction.findFirst({ where: { id } });
}
export { load as loadTransaction };

/**
 * What a step leads to. SKIP: the step found nothing to do (the payment moved on, a stale or foreign
 * report) and leaves the payment's check schedule alone — a late duplicate job must not end the watch
 * of a completed payment for a bank return.
 */
export type StepOutcome = { next: 'DONE'; recorded?: true } | { next: 'POLL'; afterMs: number; at?: number; recorded?: true } | { next: 'REFUND' } | { next: 'SKIP' };

/** How long after its answer a polling rail is next asked: the answer's pollAfterMs, never sooner than PAYMENT_POLL_MIN_MS. */
export const pollDelay = (answer: Pick<PayoutResult, 'pollAfterMs'>, minPollMs: number): number => Math.max(answer.pollAfterMs ?? minPollMs, minPollMs);

/**
 * When a polling rail should next be asked (issue 24h): `afterMs` (bounded by PAYMENT_POLL_MIN/MAX_MS) after its
 * answer came (`answeredAt`, epoch ms) — the rail's due time, not that long after the step that got the
 * answer finished writing — and the check schedule token recorded for it (`reconcile_after`): that time plus
 * PAYMENT_RECONCILE_GRACE_MS, so reconciliation steps in only if the poll is that late (lost). A POLL outcome's
 * `at` is its `answeredAt`. `recorded`: the step's own statement wrote the schedule already — a POLL's token
 * (recordSubmissions), a DONE's end (the settlement's) — so the scheduler neither reads nor moves it.
 */
export function pollCheck(config: AppDeps['config'], afterMs: number, answeredAt: number): { dueAt: number; token: number } {
  const dueAt = answeredAt + Math.min(Math.max(afterMs, config.PAYMENT_POLL_MIN_MS), config.PAYMENT_POLL_MAX_MS);
  return { dueAt, token: dueAt + config.PAYMENT_RECONCILE_GRACE_MS };
}

/** Marks a processing payment COMPLETED and posts the settle journal, once. */
async function complete(ctx: Ctx, t: Transaction): Promise<void> {
  if (t.status !== 'PROCESSING') return;
  await settlePayment(ctx, t, await settlePostingsOf(ctx.db, t));
}

/**
 * Marks a payment FAILED and starts its refund, once: a PROCESSING one the rail failed (`fail`), a
 * COMPLETED one the bank returned (`bankReturn`, PAYOUT_RETURNED). A payment that moved on is left alone.
 */
async function fail(ctx: Ctx, t: Transaction, event: 'fail' | 'bankReturn', failureReason: string): Promise<void> {
  const from = event === 'fail' ? 'PROCESSING' : 'COMPLETED';
  await ctx.db.$transaction(async (tx) => {
    const fresh = await tx.transaction.findFirstOrThrow({ where: { id: t.id } });
    if (fresh.status !== from) return;
    await failPayment(ctx, tx, fresh, event, failureReason, failureReason, event === 'fail' ? refundReasonFor(failureReason) : 'TRANSACTION_FAILED');
  });
}

/** Applies what the rail said; the same result applied twice changes nothing the second time. */
export async function applyPayoutResult(ctx: Ctx, t: Transaction, r: PayoutResult, minPollMs: number): Promise<StepOutcome> {
  if (t.status === 'PROCESSING') {
    if (r.status === 'COMPLETED') {
      await complete(ctx, t);
      return r.pollAfterMs ? { next: 'POLL', afterMs: pollDelay(r, minPollMs) } : { next: 'DONE' };
    }
    if (r.status === 'FAILED' || r.status === 'RETURNED') {
      await fail(ctx, t, 'fail', r.failureReason ?? 'QUOTE_EXECUTION_FAILED');
      return { next: 'REFUND' };
    }
    return { next: 'POLL', afterMs: pollDelay(r, minPollMs) };
  }
  if (t.status === 'COMPLETED') {
    if (r.status === 'RETURNED') {
      await fail(ctx, t, 'bankReturn', 'PAYOUT_RETURNED');
      return { next: 'REFUND' };
    }
    if (r.status === 'COMPLETED') return r.pollAfterMs ? { next: 'POLL', afterMs: pollDelay(r, minPollMs) } : { next: 'DONE' };
    // A stale answer (the submit's PENDING, applied after a pushed COMPLETED): changes nothing, schedules nothing.
    return { next: 'SKIP' };
  }
  return { next: 'DONE' };
}

/**
 * Hands a PROCESSING payment to its rail (outside any database transaction: commit, call, commit)
 * and applies the answer. The rail receives the transaction id as its idempotency key, so a
 * worker that dies between the call and the commit resubmits harmlessly.
 */
export async function submitPayment(deps: AppDeps, platformId: string, transactionId: string): Promise<StepOutcome> {
  const ctx = ctxFor(deps, platformId);
  const t = await load(ctx, transactionId);
  if (!t || t.status !== 'PROCESSING') return { next: 'SKIP' };
  if (t.destinationKind === 'INTERNAL') {
    await complete(ctx, t);
    return { next: 'DONE' };
  }
  // Already submitted: its check schedule (reconcile_after, reconciliation) owns the rest.
  if (t.railReference) return { next: 'SKIP' };
  // Claim the submission before calling the rail: a cancel (which locks the row) either happens
  // first, and this claim then finds the payment no longer PROCESSING, or sees the claim and
  // refuses; the hold is never released while a payout may be in flight.
  const claimed = await ctx.db.transaction.updateMany({ where: { id: t.id, status: 'PROCESSING', railReference: null, submittedAt: null }, data: { submittedAt: ctx.clock.now() } });
  if (claimed.count === 0) {
    const fresh = await load(ctx, t.id);
    if (!fresh || fresh.status !== 'PROCESSING') return { next: 'SKIP' };
    if (fresh.railReference) return { next: 'SKIP' };
    // Claimed by an attempt that died mid-call: resubmitting with the same idempotency key is safe.
  }
  const rail = railFor(deps, t.paymentRail ?? 'NONE');
  let result: PayoutResult;
  try {
    result = await rail.submitPayout(payoutRequest(t, await payoutDestination(ctx, t)));
  } catch (err) {
    // Refused for good and nothing sent (RailError retryable: false): fail and refund, no rail reference.
    if (err instanceof RailError && !err.retryable) {
      ctx.logger.warn({ err, transactionId: t.id, adapter: rail.id }, 'rail refused the payout');
      return applyPayoutResult(ctx, t, { status: 'FAILED', reference: '', failureReason: 'QUOTE_EXECUTION_FAILED', retryable: false }, deps.config.PAYMENT_POLL_MIN_MS);
    }
    throw err;
  }
  if (result.status === 'COMPLETED') {
    // Issue 12: the rail's reference and the settlement in one statement (money-path.repo.ts). Without a
    // bank return to watch for, the statement also ends the check schedule, so nothing is left to schedule.
    const done = completedAtOnce(deps, ctx, t, result);
    await settlePayment(ctx, t, await settlePostingsOf(ctx.db, t), done.submission);
    return done.outcome;
  }
  await recordSubmission(deps, ctx, t, result.reference);
  return applyPayoutResult(ctx, (await load(ctx, t.id))!, result, deps.config.PAYMENT_POLL_MIN_MS);
}

/**
 * A payout the rail answered COMPLETED at submission: what its settlement stores with it and the job's
 * outcome. A bank return still possible (pollAfterMs): the check schedule stays and a poll watches
 * for it; otherwise the settlement ends the schedule and nothing is left to schedule (SKIP).
 */
export function completedAtOnce(deps: AppDeps, ctx: Ctx, t: Transaction, result: PayoutResult): { submission: RailSubmission; outcome: StepOutcome } {
  const sub = submission(deps, ctx, t, result.reference);
  if (!result.pollAfterMs) return { submission: { ...sub, reconcileAfter: null }, outcome: { next: 'SKIP' } };
  return { submission: sub, outcome: { next: 'POLL', afterMs: pollDelay(result, deps.config.PAYMENT_POLL_MIN_MS) } };
}

/**
 * Stores the rail's reference once (a report pushed before the submit's answer may have stored it)
 * and when reconciliation should look at the payment: the rail's expected time plus PAYMENT_STALE_MS.
 */
export async function recordSubmission(deps: AppDeps, ctx: Ctx, t: Transaction, reference: string): Promise<void> {
  await recordSubmissions(poolOf(ctx.prisma), ctx.platformId, [{ transactionId: t.id, ...submission(deps, ctx, t, reference) }]);
}

/** What recordSubmission stores. */
export function submission(deps: AppDeps, ctx: Ctx, t: Transaction, reference: string): RailSubmission {
  const now = ctx.clock.now();
  return { reference, submittedAt: now, reconcileAfter: new Date(now.getTime() + deps.adapters.rails.expectedSettlementMs(t.paymentRail) + deps.config.PAYMENT_STALE_MS) };
}

/**
 * Asks the rail about a submitted payment (a poll, or reconciliation) and applies the answer. A push
 * adapter's POLL outcome starts no poll chain (the jobs' scheduleNext leaves it to reconciliation).
 */
export async function pollPayment(deps: AppDeps, platformId: string, transactionId: string): Promise<StepOutcome> {
  const ctx = ctxFor(deps, platformId);
  const t = await load(ctx, transactionId);
  if (!t || !t.railReference || (t.status !== 'PROCESSING' && t.status !== 'COMPLETED')) return { next: 'SKIP' };
  const rail = railFor(deps, t.paymentRail ?? 'NONE');
  const result = await rail.getPayoutStatus(t.railReference, { idempotencyKey: t.id });
  if (t.status === 'PROCESSING') await noteRailKnowledge(deps, ctx, t, rail, result);
  return applyPayoutResult(ctx, t, result, deps.config.PAYMENT_POLL_MIN_MS);
}

/** The status reason of a PROCESSING payment its rail has no record of (issue 11). */
export const RAIL_PAYOUT_UNKNOWN = 'RAIL_PAYOUT_UNKNOWN';

/**
 * A payment the rail does not know (`notFound`) PAYMENT_UNKNOWN_AFTER_MS after its submission is
 * reported: pendingReason RAIL_PAYOUT_UNKNOWN on the transaction (the API shows it; the
 * payments_rail_unknown gauge counts them) and a warn log. It stays PROCESSING with the sender's
 * money held: unknown is pending, never a guess — the rail answered the submission, so it did
 * receive it, and only the rail (or an operator) can say what became of it. Reconciliation keeps
 * asking; the reason is cleared as soon as the rail knows the payout again.
 */
async function noteRailKnowledge(deps: AppDeps, ctx: Ctx, t: Transaction, rail: RailAdapter, result: PayoutResult): Promise<void> {
  if (result.notFound === true) {
    if (t.pendingReason === RAIL_PAYOUT_UNKNOWN) return;
    const since = t.submittedAt ?? t.updatedAt;
    if (ctx.clock.now().getTime() - since.getTime() < deps.config.PAYMENT_UNKNOWN_AFTER_MS) return;
    const marked = await ctx.db.transaction.updateMany({ where: { id: t.id, status: 'PROCESSING', pendingReason: null }, data: { pendingReason: RAIL_PAYOUT_UNKNOWN } });
    if (marked.count === 1) {
      ctx.logger.warn({ transactionId: t.id, adapter: rail.id, reference: t.railReference, submittedAt: since.toISOString() }, 'the rail does not know this payment: left PROCESSING, money held, reported (pendingReason RAIL_PAYOUT_UNKNOWN)');
    }
    return;
  }
  if (t.pendingReason === RAIL_PAYOUT_UNKNOWN) {
    await ctx.db.transaction.updateMany({ where: { id: t.id, pendingReason: RAIL_PAYOUT_UNKNOWN }, data: { pendingReason: null } });
    ctx.logger.info({ transactionId: t.id, adapter: rail.id }, 'the rail knows the payment again');
  }
}

/**
 * An outcome the rail pushed (context.reportPayoutStatus → the `report` job), applied exactly as a
 * poll's answer is. A report naming another reference than the one stored is ignored.
 */
export async function applyPayoutReport(deps: AppDeps, platformId: string, transactionId: string, result: PayoutResult): Promise<StepOutcome> {
  const ctx = ctxFor(deps, platformId);
  let t = await load(ctx, transactionId);
  if (!t || (t.status !== 'PROCESSING' && t.status !== 'COMPLETED') || t.destinationKind === 'INTERNAL') return { next: 'SKIP' };
  if (!t.railReference && t.status === 'PROCESSING') {
    // Pushed before the submit's answer was committed: the reference is the same either way.
    await recordSubmission(deps, ctx, t, result.reference);
    t = (await load(ctx, transactionId))!;
  }
  if (t.railReference !== result.reference) {
    ctx.logger.warn({ transactionId, reported: result.reference, stored: t.railReference }, 'payout report for another reference ignored');
    return { next: 'SKIP' };
  }
  return applyPayoutResult(ctx, t, result, deps.config.PAYMENT_POLL_MIN_MS);
}

/**
 * Runs a pending refund: asks the rail to return the funds (a payment that never left needs no
 * rail, its money is still held), then posts the release or return journal and marks the refund.
 */
export async function refundPayment(deps: AppDeps, platformId: string, transactionId: string): Promise<void> {
  const ctx = ctxFor(deps, platformId);
  const t = await load(ctx, transactionId);
  if (!t || t.refundStatus !== 'PENDING') return;
  let ok = true;
  if (t.railReference) {
    const r = await railFor(deps, t.paymentRail ?? 'NONE').refundPayout({ idempotencyKey: `${t.id}:refund`, reference: t.railReference, amount: t.receivedAmount, currency: t.receivingCurrency });
    if (r.status === 'PENDING') throw new RefundPending();
    ok = r.status === 'COMPLETED';
  }
  if (!ok) {
    // Funds stay where they are (held, or with the rail) for an operator to resolve.
    await ctx.db.$transaction(async (tx) => {
      const fresh = await tx.transaction.findFirstOrThrow({ where: { id: t.id } });
      if (fresh.refundStatus === 'PENDING') await transitionRefund(ctx, tx, fresh, 'fail');
    });
    return;
  }
  // The refund's one writer (money-path.repo.ts): its move, journal and events in one statement; a
  // refund another run completed meanwhile is left alone.
  await completeRefund(ctx, t, refundJournal(t, await postingAccounts(ctx.db, t, true)));
}

/** Thrown so the queue retries the refund later. */
export class RefundPending extends Error {}
