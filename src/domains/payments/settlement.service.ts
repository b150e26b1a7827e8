import type { AppDeps, Ctx } from '../../deps.js';
import { ctxFor } from '../../deps.js';
import type { TenantTx } from '../../platform/db.js';
import type { Transaction } from '../../generated/prisma/client.js';
import { postJournal, systemAccount, type Posting } from '../ledger/index.js';
import { railFor } from '../../adapters/rails/registry.js';
import { getPayoutDestination, getPayoutDestinations } from '../external-accounts/index.js';
import { RailError, type PayoutRequest, type PayoutResult, type RailAdapter } from '../../adapters/rails/port.js';
import { startRefund, transitionRefund, transitionTransaction } from './transactions.repo.js';
import { refundReasonFor } from './transactions.model.js';
import { umaPayoutDestination } from './settlement.uma.js';
import { holdPostings } from './payment-postings.js';
import { claimSubmissions, settlePayment, settlePayments, type RailSubmission } from './money-path.repo.js';
import { poolOf } from '../../platform/db.js';

export { holdPostings };


function deliveryPostings(t: Transaction, sign: 1n | -1n): Posting[] {
  const net = t.sentAmount - t.fees;
  const out: Posting[] = [];
  const target =
    t.destinationKind === 'INTERNAL'
      ? { account: t.destinationAccountId!, bucket: 'AVAILABLE' as const }
      : t.destinationKind === 'UMA'
        ? // Paid to a UMA counterparty's invoice: what it owes the receiver clears through UMA_CLEARING.
          { account: systemAccount('UMA_CLEARING', t.receivingCurrency), bucket: 'SYSTEM' as const }
        : { account: systemAccount('RAIL_CLEARING', t.receivingCurrency, t.paymentRail ?? 'NONE'), bucket: 'SYSTEM' as const };
  if (t.sendingCurrency === t.receivingCurrency) {
    out.push({ ...target, currency: t.receivingCurrency, amount: sign * net });
  } else {
    out.push({ account: systemAccount('FX', t.sendingCurrency), bucket: 'SYSTEM', currency: t.sendingCurrency, amount: sign * net });
    out.push({ account: systemAccount('FX', t.receivingCurrency), bucket: 'SYSTEM', currency: t.receivingCurrency, amount: -sign * t.receivedAmount });
    out.push({ ...target, currency: t.receivingCurrency, amount: sign * t.receivedAmount });
  }
  return out;
}

async function platformAccountId(tx: Pick<TenantTx, 'internalAccount'>, currency: string): Promise<string | null> {
  const a = await tx.internalAccount.findFirst({ where: { customerId: null, currency } });
  return a?.id ?? null;
}

export async function settlePostings(tx: Pick<TenantTx, 'internalAccount'>, t: Transaction): Promise<Posting[]> {
  // An incoming payment paid out to an external account comes from a system account (UMA_CLEARING), held nowhere.
  const fromSystem = t.sourceAccountId.startsWith('system:');
  const out: Posting[] = [{ account: t.sourceAccountId, bucket: fromSystem ? 'SYSTEM' : 'HELD', currency: t.sendingCurrency, amount: -t.sentAmount }];
  if (t.platformFees > 0n) {
    const feeAccount = await platformAccountId(tx, t.sendingCurrency);
    // Checked at quote creation; the account cannot be deleted, so this is a programmer error.
    if (!feeAccount) throw new Error(`platform has no ${t.sendingCurrency} account for fee of ${t.id}`);
    out.push({ account: feeAccount, bucket: 'AVAILABLE', currency: t.sendingCurrency, amount: t.platformFees });
  }
  if (t.serviceFees > 0n) out.push({ account: systemAccount('SERVICE_FEES', t.sendingCurrency), bucket: 'SYSTEM', currency: t.sendingCurrency, amount: t.serviceFees });
  return [...out, ...deliveryPostings(t, 1n)];
}

/**
 * The settle journal reversed. The platform's fee comes back out of its account as far as its
 * available balance allows; a shortfall is booked to FEE_REVERSAL_RECEIVABLE (owed by the
 * platform) so the customer's refund never waits on the platform's balance.
 */
async function returnPostings(tx: TenantTx, t: Transaction): Promise<Posting[]> {
  const out: Posting[] = [{ account: t.sourceAccountId, bucket: 'AVAILABLE', currency: t.sendingCurrency, amount: t.sentAmount }];
  if (t.platformFees > 0n) {
    const feeAccountId = (await platformAccountId(tx, t.sendingCurrency))!;
    const feeAccount = await tx.internalAccount.findFirstOrThrow({ where: { id: feeAccountId } });
    const fromAccount = feeAccount.availableBalance < t.platformFees ? feeAccount.availableBalance : t.platformFees;
    if (fromAccount > 0n) out.push({ account: feeAccountId, bucket: 'AVAILABLE', currency: t.sendingCurrency, amount: -fromAccount });
    if (t.platformFees - fromAccount > 0n) {
      out.push({ account: `system:FEE_REVERSAL_RECEIVABLE:${t.sendingCurrency}`, bucket: 'SYSTEM', currency: t.sendingCurrency, amount: -(t.platformFees - fromAccount) });
    }
  }
  if (t.serviceFees > 0n) out.push({ account: systemAccount('SERVICE_FEES', t.sendingCurrency), bucket: 'SYSTEM', currency: t.sendingCurrency, amount: -t.serviceFees });
  return [...out, ...deliveryPostings(t, -1n)];
}

const releasePostings = (t: Transaction): Posting[] => holdPostings(t).map((p) => ({ ...p, amount: -p.amount }));

/**
 * An incoming payment whose payout to the customer's external account failed (or came back): the
 * money goes to the customer's internal account in that currency instead, never lost.
 */
async function incomingRefundPostings(tx: TenantTx, t: Transaction, settled: boolean): Promise<Posting[]> {
  const fallback = await tx.internalAccount.findFirst({ where: { customerId: t.customerId, currency: t.receivingCurrency } });
  if (!fallback) throw new Error(`customer of incoming payment ${t.id} has no ${t.receivingCurrency} account`);
  // Not settled: still in the source (UMA_CLEARING). Settled: the delivery is reversed (the source's
  // debit and the fallback's credit then cancel out on the source).
  const from = settled ? deliveryPostings(t, -1n) : [{ account: t.sourceAccountId, bucket: 'SYSTEM' as const, currency: t.sendingCurrency, amount: -t.sentAmount }];
  return [...from, { account: fallback.id, bucket: 'AVAILABLE', currency: t.receivingCurrency, amount: t.receivedAmount }];
}

/** The destination's account details, read (and unsealed) at submission, even if deleted since. */
async function payoutDestination(ctx: Ctx, t: Transaction): Promise<{ accountType: string; accountInfo: Record<string, unknown> }> {
  if (t.destinationKind === 'UMA') return umaPayoutDestination(ctx, t);
  if (!t.destinationAccountId) return { accountType: 'UNKNOWN', accountInfo: {} };
  const d = await getPayoutDestination(ctx, t.destinationAccountId);
  return d ? { accountType: d.accountType, accountInfo: d.accountInfo } : { accountType: 'UNKNOWN', accountInfo: {} };
}

/** What the rail is asked to pay out; the transaction id is the idempotency key. */
function payoutRequest(t: Transaction, destination: { accountType: string; accountInfo: Record<string, unknown> }): PayoutRequest {
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

/**
 * What a step leads to. SKIP: the step found nothing to do (the payment moved on, a stale or foreign
 * report) and leaves the payment's check schedule alone — a late duplicate job must not end the watch
 * of a completed payment for a bank return.
 */
export type StepOutcome = { next: 'DONE' } | { next: 'POLL'; afterMs: number } | { next: 'REFUND' } | { next: 'SKIP' };

/** Marks a processing payment COMPLETED and posts the settle journal, once. */
async function complete(ctx: Ctx, t: Transaction): Promise<void> {
  if (t.status !== 'PROCESSING') return;
  await settlePayment(ctx, t, await settlePostings(ctx.db, t));
}

/** Marks a processing payment FAILED and starts its refund, once. */
async function fail(ctx: Ctx, t: Transaction, failureReason: string): Promise<void> {
  await ctx.db.$transaction(async (tx) => {
    const fresh = await tx.transaction.findFirstOrThrow({ where: { id: t.id } });
    if (fresh.status !== 'PROCESSING') return;
    const failed = await transitionTransaction(ctx, tx, fresh, 'fail', { failureReason }, failureReason);
    await startRefund(ctx, tx, failed, refundReasonFor(failureReason));
  });
}

/** A completed payment came back from the bank: FAILED (PAYOUT_RETURNED) and refund, once. */
async function bankReturn(ctx: Ctx, t: Transaction): Promise<void> {
  await ctx.db.$transaction(async (tx) => {
    const fresh = await tx.transaction.findFirstOrThrow({ where: { id: t.id } });
    if (fresh.status !== 'COMPLETED') return;
    const failed = await transitionTransaction(ctx, tx, fresh, 'bankReturn', { failureReason: 'PAYOUT_RETURNED' }, 'PAYOUT_RETURNED');
    await startRefund(ctx, tx, failed, 'TRANSACTION_FAILED');
  });
}

/** Applies what the rail said; the same result applied twice changes nothing the second time. */
export async function applyPayoutResult(ctx: Ctx, t: Transaction, r: PayoutResult, minPollMs: number): Promise<StepOutcome> {
  if (t.status === 'PROCESSING') {
    if (r.status === 'COMPLETED') {
      await complete(ctx, t);
      return r.pollAfterMs ? { next: 'POLL', afterMs: Math.max(r.pollAfterMs, minPollMs) } : { next: 'DONE' };
    }
    if (r.status === 'FAILED' || r.status === 'RETURNED') {
      await fail(ctx, t, r.failureReason ?? 'QUOTE_EXECUTION_FAILED');
      return { next: 'REFUND' };
    }
    return { next: 'POLL', afterMs: Math.max(r.pollAfterMs ?? minPollMs, minPollMs) };
  }
  if (t.status === 'COMPLETED') {
    if (r.status === 'RETURNED') {
      await bankReturn(ctx, t);
      return { next: 'REFUND' };
    }
    if (r.status === 'COMPLETED') return r.pollAfterMs ? { next: 'POLL', afterMs: Math.max(r.pollAfterMs, minPollMs) } : { next: 'DONE' };
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
    await settlePayment(ctx, t, await settlePostings(ctx.db, t), done.submission);
    return done.outcome;
  }
  await recordSubmission(deps, ctx, t, result.reference);
  return applyPayoutResult(ctx, (await load(ctx, t.id))!, result, deps.config.PAYMENT_POLL_MIN_MS);
}

/**
 * submitPayment for many payments at once (issue 12: the payments worker's batches when its queue has a
 * backlog), with the same outcome per payment and a handful of statements for the whole batch instead
 * of half a dozen per payment: one claim of them all (claimSubmissions), one read of their
 * destinations per platform, the rail's answers (one call for the lot when the adapter takes batches:
 * submitPayouts), and the payouts the rail completed at once settled together, one statement per
 * platform (settlePayments). Anything off the common path — a payment the claim did not return
 * (internal or UMA destination, already claimed or submitted, no longer PROCESSING), a rail that did
 * not complete at once or threw — goes through submitPayment (or, once submitted, applyPayoutResult)
 * on its own, where each case is handled as it always was. Outcomes (or the error of a payment's own
 * path) are in the order of `items`. A batch of one takes this path too: its four statements (claim,
 * destination, the sandbox bank's, settlement) are raw and prepared but one, where submitPayment's
 * reads and claim go through Prisma (a worker without a backlog submits one payment at a time).
 */
export async function submitPayments(deps: AppDeps, items: ReadonlyArray<{ platformId: string; transactionId: string }>): Promise<Array<StepOutcome | Error>> {
  const outcomes = new Map<string, Promise<StepOutcome>>();
  const claimed = await claimSubmissions(poolOf(deps.prisma), items, deps.clock.now()).catch((err: unknown) => {
    // A deadlock with another batch over a duplicate job, a lost connection: one by one instead.
    deps.logger.warn({ err, count: items.length }, 'batched claim failed; submitting one by one');
    return [] as Transaction[];
  });
  const byPlatform = new Map<string, Transaction[]>();
  for (const t of claimed) byPlatform.set(t.platformId, [...(byPlatform.get(t.platformId) ?? []), t]);
  const completed: Array<{ ctx: Ctx; t: Transaction; postings: Posting[]; submission: RailSubmission; outcome: StepOutcome }> = [];
  await Promise.all(
    [...byPlatform].map(async ([platformId, ts]) => {
      const ctx = ctxFor(deps, platformId);
      const destinations = await getPayoutDestinations(ctx, ts.map((t) => t.destinationAccountId).filter((id): id is string => id !== null));
      const requests = ts.map((t) => {
        const d = t.destinationAccountId ? destinations.get(t.destinationAccountId) : undefined;
        return payoutRequest(t, d ? { accountType: d.accountType, accountInfo: d.accountInfo } : { accountType: 'UNKNOWN', accountInfo: {} });
      });
      // The rail's answers: in one call per adapter that takes batches (submitPayouts), else one call each.
      const byRail = new Map<RailAdapter, number[]>();
      ts.forEach((t, i) => {
        const rail = railFor(deps, t.paymentRail ?? 'NONE');
        byRail.set(rail, [...(byRail.get(rail) ?? []), i]);
      });
      const answers: Array<Promise<PayoutResult>> = new Array(ts.length);
      for (const [rail, idx] of byRail) {
        if (rail.submitPayouts && idx.length > 1) {
          const all = rail.submitPayouts(idx.map((i) => requests[i]!));
          idx.forEach((i, k) => (answers[i] = all.then((r) => r[k]!)));
        } else for (const i of idx) answers[i] = rail.submitPayout(requests[i]!);
      }
      await Promise.all(
        ts.map(async (t, i) => {
          let result: PayoutResult;
          try {
            result = await answers[i]!;
          } catch {
            // The claim stands (a claimed payment is resubmitted with the same key): the single path
            // repeats the call and handles a refusal or an error as it always does.
            outcomes.set(t.id, submitPayment(deps, platformId, t.id));
            return;
          }
          if (result.status !== 'COMPLETED') {
            outcomes.set(t.id, recordSubmission(deps, ctx, t, result.reference).then(async () => applyPayoutResult(ctx, (await load(ctx, t.id))!, result, deps.config.PAYMENT_POLL_MIN_MS)));
            return;
          }
          const done = completedAtOnce(deps, ctx, t, result);
          completed.push({ ctx, t, postings: await settlePostings(ctx.db, t), submission: done.submission, outcome: done.outcome });
        }),
      );
    }),
  );
  // The payouts the rail completed at once: settled per platform in one statement (settlePayments:
  // one commit, a shared balance moved once). Refused as a whole (a payment cancelled meanwhile) or
  // failed: one by one, where each payment's own case is handled.
  const byCtx = new Map<Ctx, typeof completed>();
  for (const c of completed) byCtx.set(c.ctx, [...(byCtx.get(c.ctx) ?? []), c]);
  await Promise.all(
    [...byCtx].map(async ([ctx, list]) => {
      const together = await settlePayments(ctx, list).catch((err: unknown) => {
        deps.logger.warn({ err, count: list.length }, 'batched settlement failed; settling one by one');
        return false;
      });
      for (const c of list) outcomes.set(c.t.id, (together ? Promise.resolve() : settlePayment(ctx, c.t, c.postings, c.submission)).then(() => c.outcome));
    }),
  );
  // One payment's failure is its job's alone (retried by the queue), not the batch's.
  return Promise.all(items.map((i) => (outcomes.get(i.transactionId) ?? submitPayment(deps, i.platformId, i.transactionId)).catch(asError)));
}

const asError = (err: unknown): Error => (err instanceof Error ? err : new Error(String(err)));

/**
 * A payout the rail answered COMPLETED at submission: what its settlement stores with it and the job's
 * outcome. A bank return still possible (pollAfterMs): the check schedule stays and a poll watches
 * for it; otherwise the settlement ends the schedule and nothing is left to schedule (SKIP).
 */
function completedAtOnce(deps: AppDeps, ctx: Ctx, t: Transaction, result: PayoutResult): { submission: RailSubmission; outcome: StepOutcome } {
  const sub = submission(deps, ctx, t, result.reference);
  if (!result.pollAfterMs) return { submission: { ...sub, reconcileAfter: null }, outcome: { next: 'SKIP' } };
  return { submission: sub, outcome: { next: 'POLL', afterMs: Math.max(result.pollAfterMs, deps.config.PAYMENT_POLL_MIN_MS) } };
}

/**
 * Stores the rail's reference once (a report pushed before the submit's answer may have stored it)
 * and when reconciliation should look at the payment: the rail's expected time plus PAYMENT_STALE_MS.
 */
export async function recordSubmission(deps: AppDeps, ctx: Ctx, t: Transaction, reference: string): Promise<void> {
  const { submittedAt, reconcileAfter } = submission(deps, ctx, t, reference);
  await ctx.db.transaction.updateMany({ where: { id: t.id, railReference: null }, data: { railReference: reference, submittedAt, reconcileAfter } });
}

/** What recordSubmission stores. */
function submission(deps: AppDeps, ctx: Ctx, t: Transaction, reference: string): RailSubmission {
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
  await ctx.db.$transaction(async (tx) => {
    const fresh = await tx.transaction.findFirstOrThrow({ where: { id: t.id } });
    if (fresh.refundStatus !== 'PENDING') return;
    if (!ok) {
      // Funds stay where they are (held, or with the rail) for an operator to resolve.
      await transitionRefund(ctx, tx, fresh, 'fail');
      return;
    }
    const settled = fresh.settledAt !== null;
    await postJournal(ctx, tx, {
      key: `${t.id}:${settled ? 'return' : 'release'}`,
      kind: settled ? 'PAYMENT_RETURN' : 'PAYMENT_RELEASE',
      referenceId: t.id,
      postings: fresh.type === 'INCOMING' ? await incomingRefundPostings(tx, fresh, settled) : settled ? await returnPostings(tx, fresh) : releasePostings(fresh),
    });
    await transitionRefund(ctx, tx, fresh, 'complete');
  });
}

/** Thrown so the queue retries the refund later. */
export class RefundPending extends Error {}
