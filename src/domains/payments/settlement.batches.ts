import type { AppDeps, Ctx } from '../../deps.js';
import { ctxFor } from '../../deps.js';
import { poolOf, query } from '../../platform/db.js';
import { modelRows } from '../../platform/raw-rows.js';
import { plannedForAnyValue } from '../../platform/sql/planner.js';
import { runBatch } from '../../platform/coalesce.js';
import { invariant } from '../../platform/errors.js';
import type { Transaction } from '../../generated/prisma/client.js';
import type { Posting } from '../ledger/index.js';
import { railFor } from '../../adapters/rails/registry.js';
import { getPayoutDestinations } from '../external-accounts/index.js';
import type { PayoutRequest, PayoutResult, RailAdapter } from '../../adapters/rails/port.js';
import { claimSubmissions, recordSubmissions, settlePayments, type RailSubmission } from './money-path.repo.js';
import { applyPayoutResult, completedAtOnce, loadTransaction, payoutRequest, pollCheck, pollDelay, pollPayment, RAIL_PAYOUT_UNKNOWN, recordSubmission, settlePostingsOf, submitPayment, type StepOutcome } from './settlement.service.js';

/**
 * submitPayment for many payments at once (issue 12: the payments worker's batches when its queue has a
 * backlog, gathered by its coalescer in transactions.jobs.ts), with the same outcome per payment and a
 * handful of statements for the whole batch instead of half a dozen per payment: one claim of them all per
 * platform (claimSubmissions), one read of their destinations per platform, the rail's answers (one call for the
 * lot when the adapter takes batches: submitPayouts), and the payouts the rail completed at once settled
 * together, one statement per platform (settlePayments). Anything off the common path — a payment the
 * claim did not return (internal or UMA destination, already claimed or submitted, no longer
 * PROCESSING), a rail that did not complete at once or threw — goes through submitPayment (or, once
 * submitted, applyPayoutResult) on its own, where each case is handled as it always was. Outcomes (or
 * the error of a payment's own path) are in the order of `items`. A batch of one takes this path too:
 * its four statements (claim, destination, the sandbox bank's, settlement) are raw and prepared but one.
 */
export async function submitPayments(deps: AppDeps, items: ReadonlyArray<{ platformId: string; transactionId: string }>): Promise<Array<StepOutcome | Error>> {
  // One claim per platform (issue 29, 29a: each on one shard); the workers' batches hold one platform already.
  const claims = [...groupBy(items, (i) => i.platformId)].map(([platformId, list]) =>
    claimSubmissions(poolOf(deps.prisma), platformId, list.map((i) => i.transactionId), deps.clock.now()).catch((err: unknown) => {
      // A deadlock with another batch over a duplicate job, a lost connection: one by one instead.
      deps.logger.warn({ err, count: list.length }, 'batched claim failed; submitting one by one');
      return [] as Transaction[];
    }),
  );
  const claimed = (await Promise.all(claims)).flat();
  const batch: Batch = { outcomes: new Map(), completed: [], pending: [] };
  await Promise.all([...groupBy(claimed, (t) => t.platformId)].map(([platformId, ts]) => submitClaimed(deps, ctxFor(deps, platformId), ts, batch)));
  await Promise.all([settleCompleted(deps, batch), recordPending(deps, batch)]);
  // One payment's failure is its job's alone (retried by the queue), not the batch's.
  return Promise.all(items.map((i) => (batch.outcomes.get(i.transactionId) ?? submitPayment(deps, i.platformId, i.transactionId)).catch(asError)));
}

/** A payout the rail completed (at once, or when asked), to settle with the others of its platform. */
interface Completed {
  ctx: Ctx;
  t: Transaction;
  postings: Posting[];
  /** The submission's answer, stored with the settlement; none when a poll found it completed. */
  submission?: RailSubmission;
  outcome: StepOutcome;
}

/** A payout a polling rail answered PENDING at submission (its reference to record with the others of its platform). */
interface Pending {
  ctx: Ctx;
  t: Transaction;
  result: PayoutResult;
  /** When the rail answered (epoch ms): its pollAfterMs counts from then. */
  at: number;
}

/** What a batch decided so far: each payment's outcome on its own path, the payouts to settle together and those to record together. */
interface Batch {
  outcomes: Map<string, Promise<StepOutcome>>;
  completed: Completed[];
  pending: Pending[];
}

/** Hands the claimed payments of one platform to their rails and sorts the answers. */
async function submitClaimed(deps: AppDeps, ctx: Ctx, ts: Transaction[], batch: Batch): Promise<void> {
  const destinations = await getPayoutDestinations(ctx, ts.map((t) => t.destinationAccountId).filter((id): id is string => id !== null));
  const requests = ts.map((t) => {
    const d = t.destinationAccountId ? destinations.get(t.destinationAccountId) : undefined;
    return payoutRequest(t, d ? { accountType: d.accountType, accountInfo: d.accountInfo } : { accountType: 'UNKNOWN', accountInfo: {} });
  });
  const answers = railAnswers(deps, ts, requests);
  const pollingRail = (t: Transaction) => railFor(deps, t.paymentRail ?? 'NONE').statusDelivery !== 'push';
  await Promise.all(
    ts.map(async (t, i) => {
      let result: PayoutResult;
      try {
        result = await answers[i]!;
      } catch {
        // The claim stands (a claimed payment is resubmitted with the same key): the single path
        // repeats the call and handles a refusal or an error as it always does.
        batch.outcomes.set(t.id, submitPayment(deps, ctx.platformId, t.id));
        return;
      }
      if (result.status === 'PENDING' && pollingRail(t)) {
        batch.pending.push({ ctx, t, result, at: deps.clock.now().getTime() });
        return;
      }
      if (result.status !== 'COMPLETED') {
        batch.outcomes.set(t.id, recordedOnItsOwn(deps, ctx, t, result));
        return;
      }
      const done = completedAtOnce(deps, ctx, t, result);
      batch.completed.push({ ctx, t, postings: await settlePostingsOf(ctx.db, t), submission: done.submission, outcome: done.outcome });
    }),
  );
}

/** A submission's answer other than COMPLETED, recorded and applied on the payment's own path (submitPayment's). */
async function recordedOnItsOwn(deps: AppDeps, ctx: Ctx, t: Transaction, result: PayoutResult): Promise<StepOutcome> {
  await recordSubmission(deps, ctx, t, result.reference);
  return applyPayoutResult(ctx, (await loadTransaction(ctx, t.id))!, result, deps.config.PAYMENT_POLL_MIN_MS);
}

/**
 * The payouts a polling rail answered PENDING (issue 24h): their references and check schedules recorded per
 * platform in one statement (recordSubmissions), each schedule already the token of its first poll (pollCheck:
 * the rail's due time plus the grace), so the outcome `recorded` leaves the scheduler only the poll to queue —
 * no read of the rows back, no second write of their schedule. A payment the statement did not record as
 * PROCESSING (a report pushed first stored its reference) or a statement that failed: its own path.
 */
async function recordPending(deps: AppDeps, batch: Batch): Promise<void> {
  const minPollMs = deps.config.PAYMENT_POLL_MIN_MS;
  await Promise.all(
    [...groupBy(batch.pending, (p) => p.ctx)].map(async ([ctx, list]) => {
      const afterMs = (p: Pending) => pollDelay(p.result, minPollMs);
      const records = list.map((p) => ({ transactionId: p.t.id, reference: p.result.reference, submittedAt: new Date(p.at), reconcileAfter: new Date(pollCheck(deps.config, afterMs(p), p.at).token) }));
      const recorded = await recordSubmissions(poolOf(deps.prisma), ctx.platformId, records).catch((err: unknown) => {
        deps.logger.warn({ err, count: list.length }, 'batched submission record failed; recording one by one');
        return new Map<string, string>();
      });
      for (const p of list) {
        const outcome: StepOutcome = { next: 'POLL', afterMs: afterMs(p), at: p.at, recorded: true };
        batch.outcomes.set(p.t.id, recorded.get(p.t.id) === 'PROCESSING' ? Promise.resolve(outcome) : recordedOnItsOwn(deps, ctx, p.t, p.result));
      }
    }),
  );
}

/** The rail's answers, in the order of `ts`: in one call per adapter that takes batches (submitPayouts), else one call each. */
function railAnswers(deps: AppDeps, ts: Transaction[], requests: PayoutRequest[]): Array<Promise<PayoutResult>> {
  const byRail = groupBy(ts.map((_, i) => i), (i) => railFor(deps, ts[i]!.paymentRail ?? 'NONE'));
  const answers: Array<Promise<PayoutResult>> = new Array(ts.length);
  for (const [rail, idx] of byRail) {
    if (rail.submitPayouts && idx.length > 1) {
      const all = (rail as Required<Pick<RailAdapter, 'submitPayouts'>>).submitPayouts(idx.map((i) => requests[i]!));
      idx.forEach((i, k) => (answers[i] = all.then((r) => r[k]!)));
    } else for (const i of idx) answers[i] = rail.submitPayout(requests[i]!);
  }
  return answers;
}

/**
 * The payouts the rail completed at once: settled per platform in one statement (settlePayments: one
 * commit, a shared balance moved once). Refused as a whole (a payment cancelled meanwhile) or failed:
 * one by one (runBatch), where each payment's own case is handled.
 */
async function settleCompleted(deps: AppDeps, batch: Batch): Promise<void> {
  await Promise.all(
    [...groupBy(batch.completed, (c) => c.ctx)].map(async ([ctx, list]) => {
      const results = await runBatch(list, {
        run: async (some) => {
          // A lone payment no longer PROCESSING is left alone (its own path decided it); a batch of several refuses.
          if (!(await settlePayments(ctx, [...some])) && some.length > 1) throw new Error('batched settlement refused');
          return some.map((c) => c.outcome);
        },
        refused: (err) => {
          deps.logger.warn({ err, count: list.length }, 'batched settlement failed; settling one by one');
          return true;
        },
      });
      list.forEach((c, i) => batch.outcomes.set(c.t.id, results[i] instanceof Error ? Promise.reject(results[i]) : Promise.resolve(results[i] as StepOutcome)));
    }),
  );
}

/**
 * pollPayment for many payments of one platform at once (issue 24: the payments worker's poll and reconcile
 * jobs it holds at once, gathered per platform by its coalescer in transactions.jobs.ts), with the same outcome
 * per payment: one read of their rows, the rails' answers (one call for the lot when the adapter takes batches:
 * getPayoutStatuses), and the PROCESSING payments the rail now reports COMPLETED settled together in one
 * statement (settlePayments). A payment still PENDING needs no write. Anything off the common
 * path — not PROCESSING with a rail reference (a completed payment watched for a bank return, one moved
 * on), a rail that does not know it or reports it failed or returned, a call that threw — goes through
 * pollPayment on its own (the rail asked again: asking is idempotent), where each case is handled as it
 * always was. Outcomes (or the error of a payment's own path) are in the order of `items`.
 */
export async function pollPayments(deps: AppDeps, items: ReadonlyArray<{ platformId: string; transactionId: string }>): Promise<Array<StepOutcome | Error>> {
  const rows = await loadPolled(deps, items).catch((err: unknown) => {
    deps.logger.warn({ err, count: items.length }, 'batched poll read failed; polling one by one');
    return [] as Transaction[];
  });
  const asked = rows.filter((t) => t.status === 'PROCESSING' && t.railReference && t.destinationKind === 'EXTERNAL' && t.pendingReason !== RAIL_PAYOUT_UNKNOWN);
  const batch: Batch = { outcomes: new Map(), completed: [], pending: [] };
  const answers = statusAnswers(deps, asked);
  const minPollMs = deps.config.PAYMENT_POLL_MIN_MS;
  await Promise.all(
    asked.map(async (t, i) => {
      const ctx = ctxFor(deps, t.platformId);
      const result = await answers[i]!.catch(() => undefined);
      if (!result || result.notFound === true || (result.status !== 'COMPLETED' && result.status !== 'PENDING')) {
        batch.outcomes.set(t.id, result && result.notFound !== true ? applyPayoutResult(ctx, t, result, minPollMs) : pollPayment(deps, t.platformId, t.id));
        return;
      }
      const at = deps.clock.now().getTime();
      if (result.status === 'PENDING') {
        batch.outcomes.set(t.id, Promise.resolve({ next: 'POLL', afterMs: pollDelay(result, minPollMs), at }));
        return;
      }
      const postings = await settlePostingsOf(ctx.db, t);
      if (result.pollAfterMs) {
        batch.completed.push({ ctx, t, postings, outcome: { next: 'POLL', afterMs: pollDelay(result, minPollMs), at } });
        return;
      }
      // Settled for good (no bank return to watch for): the settlement's statement also ends the check
      // schedule (the rail's answer, with the reference stored, and no watch), so nothing is left to schedule.
      const answer: RailSubmission = { reference: t.railReference!, submittedAt: t.submittedAt ?? new Date(at), reconcileAfter: null };
      batch.completed.push({ ctx, t, postings, submission: answer, outcome: { next: 'DONE', recorded: true } });
    }),
  );
  await settleCompleted(deps, batch);
  return Promise.all(items.map((i) => (batch.outcomes.get(i.transactionId) ?? pollPayment(deps, i.platformId, i.transactionId)).catch(asError)));
}

/** The listed payments' rows, of ONE platform (the worker's poll batches are keyed by platform): one statement naming it with a plain `platform_id = $1` (issue 29). */
async function loadPolled(deps: AppDeps, items: ReadonlyArray<{ platformId: string; transactionId: string }>): Promise<Transaction[]> {
  if (items.length === 0) return [];
  const platformId = items[0]!.platformId;
  invariant(items.every((i) => i.platformId === platformId), 'a poll batch is one platform\'s');
  return modelRows<Transaction>(
    await query(poolOf(deps.prisma), `SELECT t.* FROM transactions t WHERE t.platform_id = $1 AND t.id = ANY(${plannedForAnyValue('$2', 'text[]')})`, [platformId, items.map((i) => i.transactionId)]),
  );
}

/** The rails' answers about `ts`, in their order: one call per adapter that takes batches (getPayoutStatuses), else one call each. */
function statusAnswers(deps: AppDeps, ts: Transaction[]): Array<Promise<PayoutResult>> {
  const byRail = groupBy(ts.map((_, i) => i), (i) => railFor(deps, ts[i]!.paymentRail ?? 'NONE'));
  const answers: Array<Promise<PayoutResult>> = new Array(ts.length);
  for (const [rail, idx] of byRail) {
    if (rail.getPayoutStatuses && idx.length > 1) {
      const all = rail.getPayoutStatuses(idx.map((i) => ({ reference: ts[i]!.railReference!, idempotencyKey: ts[i]!.id })));
      idx.forEach((i, k) => (answers[i] = all.then((r) => r[k]!)));
    } else for (const i of idx) answers[i] = rail.getPayoutStatus(ts[i]!.railReference!, { idempotencyKey: ts[i]!.id });
  }
  return answers;
}

function groupBy<T, K>(items: readonly T[], keyOf: (item: T) => K): Map<K, T[]> {
  const out = new Map<K, T[]>();
  for (const item of items) {
    const k = keyOf(item);
    const list = out.get(k);
    if (list) list.push(item);
    else out.set(k, [item]);
  }
  return out;
}

const asError = (err: unknown): Error => (err instanceof Error ? err : new Error(String(err)));
