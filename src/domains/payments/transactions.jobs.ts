import { Worker, type ConnectionOptions, type Job, type Queue } from 'bullmq';
import type { AppDeps } from '../../deps.js';
import { ctxFor } from '../../deps.js';
import { queueOf, queuePrefix } from '../../platform/queue.js';
import { jobIdOf, reviveOverdue } from '../../platform/durable.js';
import { Prisma } from '../../generated/prisma/client.js';
import { perPlatformGroup } from '../../platform/platform-groups.js';
import { randomUUID } from 'node:crypto';
import { coalescer, type Coalescer } from '../../platform/coalesce.js';
import { invariant } from '../../platform/errors.js';
import { applyPayoutReport, pollCheck, refundPayment, type StepOutcome } from './settlement.service.js';
import { pollPayments, submitPayments } from './settlement.batches.js';
import type { PayoutResult } from '../../adapters/rails/port.js';
import { railFor } from '../../adapters/rails/registry.js';
import { expireQuote } from './transactions.service.js';
import { currentJobData } from '../../platform/ids.js';

export const PAYMENTS_QUEUE = 'payments';

export interface PaymentJob {
  platformId: string;
  transactionId: string;
  /** `report` jobs: the outcome an adapter pushed. */
  result?: PayoutResult;
  /**
   * `poll` and `reconcile` jobs: the `reconcile_after` (epoch ms) they were queued under — the
   * payment's schedule token. Only the job holding the current token schedules the next check, so a
   * payment never has two poll chains (a chain's job outlived by a reconciliation claim does its
   * check, which is idempotent, and stops there).
   */
  token?: number;
}

const uuidOf = (id: string) => id.slice(id.indexOf(':') + 1);
/** Retries of a job that threw (provider down, refund still pending); outcomes are idempotent. */
const JOB_RETRY = { attempts: 50, backoff: { type: 'exponential' as const, delay: 1000 } };

/**
 * Deterministic job ids (issue 11): the sweepers derive the same id from the transaction row, so a
 * re-enqueue of a job still live in Redis is a no-op, and one lost with Redis's data is added again.
 */
export const submitJobId = (transactionId: string) => jobIdOf('submit', uuidOf(transactionId));
export const refundJobId = (transactionId: string) => jobIdOf('refund', uuidOf(transactionId));
/**
 * The sweeper's id for a submission or refund overdue by PAYMENT_STALE_MS: derived from the row as it
 * stands (its updated_at), so repeated sweeps of an unchanged row re-enqueue at most one job, and a
 * first job stuck with a dead worker (active until its lock expires) is not waited for. Submitting
 * and refunding are idempotent (rail idempotency keys, compare-and-set commits).
 */
const staleJobId = (kind: 'submit' | 'refund', transactionId: string, updatedAt: Date) => jobIdOf(kind, uuidOf(transactionId), `r${updatedAt.getTime()}`);
const checkJobId = (kind: 'poll' | 'reconcile', transactionId: string, token: Date) => jobIdOf(kind, uuidOf(transactionId), token.getTime());

/**
 * Queues the rail submission of an executed payment (Postgres: PROCESSING without a rail reference).
 * The submissions a process queues in one turn of its event loop (concurrent requests) go as ONE
 * `submits` job carrying them all (issue 12): one job for Redis to add and the worker to take and
 * finish, instead of one per payment. A lone submission is a `submit` job as before. Either way
 * Postgres holds the record: a job lost with Redis's data is found again by the sweeper.
 */
export async function enqueueSubmit(deps: AppDeps, data: PaymentJob): Promise<void> {
  await submitQueuer(queueOf(deps, PAYMENTS_QUEUE)).load({ platformId: data.platformId, transactionId: data.transactionId });
}

/**
 * One coalescer per queue, not per `deps`: a request with an Idempotency-Key runs with a ctx of its own
 * (idempotency.ts), and a coalescer per ctx gathered nothing — every keyed payment was a `submit` job of
 * its own (issue 24n: two jobs per keyed payment against one and a few hundredths unkeyed).
 */
const submitQueuers = new WeakMap<Queue, Coalescer<PaymentJob, void>>();

function submitQueuer(queue: Queue): Coalescer<PaymentJob, void> {
  let queuer = submitQueuers.get(queue);
  if (!queuer) {
    queuer = coalescer<PaymentJob, void>({
      flush: 'turn',
      maxBatch: SUBMITS_PER_JOB,
      run: async (items) => {
        if (items.length === 1) await queue.add('submit', items[0]!, { jobId: submitJobId(items[0]!.transactionId), ...JOB_RETRY });
        else await queue.add('submits', { items: [...items] } satisfies BatchJob, { jobId: batchJobId('submits'), ...JOB_RETRY });
        return items.map(() => undefined);
      },
    });
    submitQueuers.set(queue, queuer);
  }
  return queuer;
}

/**
 * A `submits` or `polls` job: several payments' submissions (enqueueSubmit) or polls (queuePolls) queued
 * as one job, each item handled as its own `submit` or `poll` job would be.
 */
interface BatchJob {
  items: PaymentJob[];
}

/** A fresh id: an id derived from its payments could match an earlier job's, which BullMQ would take for this one and drop. */
const batchJobId = (name: 'submits' | 'polls') => jobIdOf(name, randomUUID());

/** At most this many submissions per `submits` job. */
const SUBMITS_PER_JOB = 64;

/** Queues a pending refund (Postgres: refund_status PENDING). */
export async function enqueueRefund(deps: AppDeps, data: PaymentJob): Promise<void> {
  await queueOf(deps, PAYMENTS_QUEUE).add('refund', { platformId: data.platformId, transactionId: data.transactionId }, { jobId: refundJobId(data.transactionId), ...JOB_RETRY });
}

/**
 * Queues an outcome an adapter pushed; `fingerprint` makes a redelivered identical report a no-op.
 * Not recorded in Postgres: the rail is the record of its own outcomes, and a lost report is caught
 * by reconciliation, which asks the rail.
 */
export async function enqueuePayoutReport(deps: AppDeps, data: Required<Omit<PaymentJob, 'token'>>, fingerprint: string): Promise<void> {
  await queueOf(deps, PAYMENTS_QUEUE).add('report', data, { jobId: `report_${uuidOf(data.transactionId)}_${fingerprint}`, ...JOB_RETRY });
}

/**
 * After a step that talked to the rail (submit, poll, reconcile, report): records in Postgres when the
 * rail should be asked next (`reconcile_after`) and, for polling rails, queues that poll as the fast
 * path. `token`: the schedule this job ran under (poll/reconcile), else the row's current one.
 *   SKIP            the step did nothing: the schedule is left as it is
 *   DONE / REFUND   no further check (null); REFUND also queues the refund (refund_status PENDING
 *                   is its durable record)
 *   POLL, poll rail next check after the rail's pollAfterMs (bounded by PAYMENT_POLL_MIN/MAX_MS)
 *                   counted from the rail's answer (the outcome's `at`: the poll is due when the rail
 *                   said, however long the step took to write), recorded as that time +
 *                   PAYMENT_RECONCILE_GRACE_MS (pollCheck): reconciliation steps in only if the poll
 *                   job is that late (lost). `recorded`: the step's own statement wrote it already.
 *   POLL, push rail no poll: reconciliation asks every PAYMENT_RECONCILE_RETRY_MS
 * A completed payment is watched for a bank return (POLL after COMPLETED) only within
 * PAYMENT_RETURN_WINDOW_MS of its settlement.
 */
async function scheduleNext(deps: AppDeps, data: PaymentJob, outcome: StepOutcome, token: number | undefined): Promise<void> {
  await scheduleMany(deps, [{ data, outcome, token }]);
}

/** A step's outcome to schedule: its payment, what the step led to, the token its job ran under. */
interface Scheduled {
  data: PaymentJob;
  outcome: StepOutcome;
  token: number | undefined;
}

/**
 * scheduleNext for a batch of steps of ONE platform (issue 24: the worker's submission and poll batches, which
 * its coalescers key by platform; issue 29: each statement names the platform with a plain `platform_id = $n`):
 * one read of their rows, one compare-and-set of their schedule tokens (each moved only from the value its job
 * holds), the refunds queued, and the polls of the moved ones queued in one call to Redis.
 */
async function scheduleMany(deps: AppDeps, steps: readonly Scheduled[]): Promise<void> {
  const now = deps.clock.now();
  // Issue 24h: a schedule the step's own statement wrote is neither read nor moved; its poll is queued at its token.
  const recorded: Array<{ s: Scheduled; to: Date; dueAt: number }> = [];
  for (const s of steps) {
    if (s.outcome.next !== 'POLL' || !s.outcome.recorded) continue;
    const check = pollCheck(deps.config, s.outcome.afterMs, s.outcome.at ?? now.getTime());
    recorded.push({ s, to: new Date(check.token), dueAt: check.dueAt });
  }
  const live = steps.filter((s) => s.outcome.next !== 'SKIP' && !('recorded' in s.outcome && s.outcome.recorded));
  const moved = await scheduleMoves(deps, live, now);
  await queuePolls(deps, [...recorded, ...moved], now);
}

/**
 * The polls of `checks` (one batch's steps) queued in one call to Redis, each item holding its token. A lone
 * poll is a `poll` job at its due time (none past: at once). Several are ONE `polls` job (issue 24n), due when
 * the last of them is (their rail answers came within the batch's few milliseconds; none is asked early,
 * which would only be answered PENDING and asked again): one job for Redis to add, delay, hand over and
 * finish, and for the worker to take, instead of one per payment. The job is only the fast path: each
 * payment's schedule token in Postgres is what reconciliation revives a lost one from.
 */
async function queuePolls(deps: AppDeps, checks: ReadonlyArray<{ s: Scheduled; to: Date; dueAt: number }>, now: Date): Promise<void> {
  if (checks.length === 0) return;
  const queue = queueOf(deps, PAYMENTS_QUEUE);
  const item = (m: (typeof checks)[number]): PaymentJob => ({ platformId: m.s.data.platformId, transactionId: m.s.data.transactionId, token: m.to.getTime() });
  const delayOf = (dueAt: number) => Math.max(0, dueAt - now.getTime());
  if (checks.length === 1) {
    const m = checks[0]!;
    await queue.add('poll', item(m), { jobId: checkJobId('poll', m.s.data.transactionId, m.to), delay: delayOf(m.dueAt), ...JOB_RETRY });
    return;
  }
  const dueAt = Math.max(...checks.map((m) => m.dueAt));
  await queue.add('polls', { items: checks.map(item) } satisfies BatchJob, { jobId: batchJobId('polls'), delay: delayOf(dueAt), ...JOB_RETRY });
}

/**
 * The schedules of `live` (steps that did not write their own) read and moved as scheduleNext says; the
 * refunds queued; the polls of the moved ones returned for queuePolls.
 */
async function scheduleMoves(deps: AppDeps, live: readonly Scheduled[], now: Date): Promise<Array<{ s: Scheduled; to: Date; dueAt: number }>> {
  if (live.length === 0) return [];
  const platformId = live[0]!.data.platformId;
  invariant(live.every((s) => s.data.platformId === platformId), 'a batch of steps is one platform\'s');
  const rows = await scheduleRows(deps, platformId, live.map((s) => s.data.transactionId));
  const moves: Array<{ s: Scheduled; from: Date | null; to: Date | null; poll?: { dueAt: number } }> = [];
  for (const s of live) {
    const row = rows.get(s.data.transactionId);
    if (!row) continue;
    const from = s.token !== undefined ? new Date(s.token) : row.reconcileAfter;
    let next = s.outcome;
    if (next.next === 'POLL' && row.status === 'COMPLETED' && row.settledAt && now.getTime() - row.settledAt.getTime() >= deps.config.PAYMENT_RETURN_WINDOW_MS) next = { next: 'DONE' };
    if (next.next !== 'POLL' || (row.status !== 'PROCESSING' && row.status !== 'COMPLETED')) {
      if (from !== null || row.reconcileAfter !== null) moves.push({ s, from, to: null });
      continue;
    }
    if (railFor(deps, row.paymentRail ?? 'NONE').statusDelivery === 'push') {
      if (!from || from.getTime() <= now.getTime()) moves.push({ s, from, to: new Date(now.getTime() + deps.config.PAYMENT_RECONCILE_RETRY_MS) });
      continue;
    }
    const check = pollCheck(deps.config, next.afterMs, next.at ?? now.getTime());
    moves.push({ s, from, to: new Date(check.token), poll: { dueAt: check.dueAt } });
  }
  for (const s of live) if (s.outcome.next === 'REFUND') await enqueueRefund(deps, s.data);
  const moved = await moveSchedules(deps, platformId, moves);
  return moves.flatMap((m, i) => (m.poll && m.to && moved.has(i) ? [{ s: m.s, to: m.to, dueAt: m.poll.dueAt }] : []));
}

/** What scheduling reads of each payment, one statement for the lot. */
async function scheduleRows(deps: AppDeps, platformId: string, ids: readonly string[]): Promise<Map<string, { status: string; reconcileAfter: Date | null; settledAt: Date | null; paymentRail: string | null }>> {
  const rows = await deps.prisma.$queryRaw<Array<{ id: string; status: string; reconcile_after: Date | null; settled_at: Date | null; payment_rail: string | null }>>`
    SELECT t.id, t.status, t.reconcile_after, t.settled_at, t.payment_rail
      FROM transactions t WHERE t.platform_id = ${platformId} AND t.id = ANY(${ids}::text[])`;
  return new Map(rows.map((r) => [r.id, { status: r.status, reconcileAfter: r.reconcile_after, settledAt: r.settled_at, paymentRail: r.payment_rail }]));
}

/**
 * Moves each payment's schedule token (`reconcile_after`) from `from` to `to`, in one statement; the
 * positions in `moves` of those moved (another job or a reconciliation claim that moved one first keeps
 * it; of two moves of one payment from different tokens, only the one holding its token can apply).
 */
async function moveSchedules(deps: AppDeps, platformId: string, moves: ReadonlyArray<{ s: Scheduled; from: Date | null; to: Date | null }>): Promise<Set<number>> {
  if (moves.length === 0) return new Set();
  const iso = (d: Date | null) => d?.toISOString() ?? null;
  const rows = await deps.prisma.$queryRaw<Array<{ ord: bigint }>>`
    UPDATE transactions t SET reconcile_after = m.to_at
      FROM unnest(${moves.map((m) => m.s.data.transactionId)}::text[],
                  ${moves.map((m) => iso(m.from))}::timestamptz[], ${moves.map((m) => iso(m.to))}::timestamptz[]) WITH ORDINALITY AS m(id, from_at, to_at, ord)
     WHERE t.platform_id = ${platformId} AND t.id = m.id AND t.reconcile_after IS NOT DISTINCT FROM m.from_at
    RETURNING m.ord`;
  return new Set(rows.map((r) => Number(r.ord) - 1));
}

/**
 * Submissions in batches (issue 12): the `submit` jobs this worker holds at once (up to
 * PAYMENT_CONCURRENCY, gathered for PAYMENT_BATCH_LINGER_MS) are submitted together by submitPayments
 * — one claim, one destination read, one settlement commit for the lot — and their next checks
 * scheduled together (scheduleMany). Each job still stands for its payment alone: its own outcome, its
 * own retries. With no backlog a batch is one job.
 */
function submitBatches(deps: AppDeps): Coalescer<PaymentJob, StepOutcome> {
  // Issue 29 (29a): a batch holds one platform's payments, so its statements stay on one shard.
  return coalescer<PaymentJob, StepOutcome>({ key: (j) => j.platformId, flush: { lingerMs: deps.config.PAYMENT_BATCH_LINGER_MS }, maxBatch: deps.config.PAYMENT_CONCURRENCY, run: (jobs) => stepsScheduled(deps, jobs, false, submitPayments(deps, jobs)) });
}

/**
 * Polls and reconciliations in batches (issue 24): the `poll` and `reconcile` jobs this worker holds at
 * once are asked about together (pollPayments: one read, the rail asked once per batch when it can,
 * the completed ones settled by one statement per platform) and rescheduled together (scheduleMany).
 */
function pollBatches(deps: AppDeps): Coalescer<PaymentJob, StepOutcome> {
  return coalescer<PaymentJob, StepOutcome>({ key: (j) => j.platformId, flush: { lingerMs: deps.config.PAYMENT_BATCH_LINGER_MS }, maxBatch: deps.config.PAYMENT_CONCURRENCY, run: (jobs) => stepsScheduled(deps, jobs, true, pollPayments(deps, jobs)) });
}

/** A batch's outcomes, each step that did not fail scheduled (a poll or reconcile under the token its job holds). */
async function stepsScheduled(deps: AppDeps, jobs: readonly PaymentJob[], tokened: boolean, outcomes: Promise<Array<StepOutcome | Error>>): Promise<Array<StepOutcome | Error>> {
  const done = await outcomes;
  const steps: Scheduled[] = [];
  done.forEach((o, i) => {
    if (!(o instanceof Error)) steps.push({ data: { platformId: jobs[i]!.platformId, transactionId: jobs[i]!.transactionId }, outcome: o, token: tokened ? jobs[i]!.token : undefined });
  });
  await scheduleMany(deps, steps);
  return done;
}

export function startPaymentsWorker(deps: AppDeps, connection: ConnectionOptions): Worker {
  const submits = submitBatches(deps);
  const polls = pollBatches(deps);
  return new Worker<PaymentJob>(
    PAYMENTS_QUEUE,
    async (job: Job<PaymentJob>) => {
      if (job.name === 'submits') return allSteps(submits, (job.data as unknown as BatchJob).items.map(currentJobData));
      if (job.name === 'polls') return allSteps(polls, (job.data as unknown as BatchJob).items.map(currentJobData));
      const data = currentJobData(job.data);
      if (job.name === 'refund') return refundPayment(deps, data.platformId, data.transactionId);
      if (job.name === 'submit') return stepOf(submits, data);
      if (job.name === 'poll' || job.name === 'reconcile') return stepOf(polls, data);
      // A `report` job: the outcome an adapter pushed.
      const outcome = await applyPayoutReport(deps, data.platformId, data.transactionId, data.result!);
      await scheduleNext(deps, { platformId: data.platformId, transactionId: data.transactionId }, outcome, undefined);
      return outcome.next;
    },
    { connection, prefix: queuePrefix(deps.config), concurrency: deps.config.PAYMENT_CONCURRENCY },
  );
}

/**
 * A `submits` or `polls` job: each payment's step taken as its own `submit` or `poll` job's would be
 * (through the same batches), then scheduled. A payment whose step threw fails the job once the others
 * are done: the retry finds their work done (every step is idempotent; a poll whose token has moved
 * schedules nothing) and repeats only the failed one's.
 */
async function allSteps(steps: Coalescer<PaymentJob, StepOutcome>, items: PaymentJob[]): Promise<string[]> {
  const outcomes = await Promise.allSettled(items.map((item) => stepOf(steps, item)));
  const failed = outcomes.find((o): o is PromiseRejectedResult => o.status === 'rejected');
  if (failed) throw failed.reason;
  return outcomes.map((o) => (o as PromiseFulfilledResult<string>).value);
}

/** One payment's step (a submission; a poll or reconciliation under its job's token), through the worker's batches (which schedule its next check). */
async function stepOf(steps: Coalescer<PaymentJob, StepOutcome>, item: PaymentJob): Promise<StepOutcome['next']> {
  return (await steps.load({ platformId: item.platformId, transactionId: item.transactionId, token: item.token })).next;
}

/** Bounded sweep (QUOTE_EXPIRY_SWEEP_INTERVAL_MS): expires quotes past `expiresAt`. */
export async function sweepPayments(deps: AppDeps): Promise<number> {
  const now = deps.clock.now();
  // Issue 29 (29a): per platform group, each read on one shard.
  return perPlatformGroup(deps.prisma, 'quotes', async (platforms) => {
    const expired = await deps.prisma.quote.findMany({
      where: { platformId: { in: platforms }, status: 'PENDING', expiresAt: { lt: now } },
      select: { id: true, platformId: true },
      orderBy: { expiresAt: 'asc' },
      take: deps.config.QUOTE_EXPIRY_SWEEP_BATCH,
    });
    for (const q of expired) await expireQuote(ctxFor(deps, q.platformId), q.id).catch((err) => deps.logger.warn({ err, quoteId: q.id }, 'expiry failed'));
    return expired.length;
  });
}

/**
 * Reconciliation loop (PAYMENT_RECONCILE_INTERVAL_MS; issue 11): re-enqueues lost submissions and
 * refunds (what Postgres says is owed and no live job holds) and asks the rails about payments
 * whose check is due (reconcilePayments). Every step is idempotent, so a re-queue is harmless.
 */
export async function sweepPaymentWork(deps: AppDeps): Promise<number> {
  const submits = await reviveStale(deps, 'submit', Prisma.sql`status = 'PROCESSING' AND rail_reference IS NULL`);
  const refunds = await reviveStale(deps, 'refund', Prisma.sql`refund_status = 'PENDING'`);
  return submits + refunds + (await reconcilePayments(deps));
}

/** Transactions matching `where` untouched for PAYMENT_STALE_MS get their `kind` job again (a lost submission or refund). */
function reviveStale(deps: AppDeps, kind: 'submit' | 'refund', where: Prisma.Sql): Promise<number> {
  return reviveOverdue<{ id: string; platform_id: string; updated_at: Date }>(
    deps,
    PAYMENTS_QUEUE,
    { table: 'transactions', columns: ['id', 'platform_id', 'updated_at'], where, due: 'updated_at', graceMs: deps.config.PAYMENT_STALE_MS, batch: deps.config.PAYMENT_RECONCILE_BATCH },
    (t) => [kind, { platformId: t.platform_id, transactionId: t.id } satisfies PaymentJob, { jobId: staleJobId(kind, t.id, t.updated_at), ...JOB_RETRY }],
  );
}

/**
 * Reconciliation: payments whose check is due (`reconcile_after` past) — PROCESSING ones (a lost
 * callback, a lost poll: at submission the rail's expected time plus PAYMENT_STALE_MS) and completed
 * ones still watched for a bank return within PAYMENT_RETURN_WINDOW_MS — get a `reconcile` job that
 * asks the rail and applies the answer through applyPayoutResult, the callbacks' path. The claim
 * moves `reconcile_after` forward by PAYMENT_RECONCILE_RETRY_MS in the same statement (SKIP LOCKED),
 * so concurrent sweeps never take the same payment; the job holds that value as its token.
 */
export async function reconcilePayments(deps: AppDeps): Promise<number> {
  const now = deps.clock.now();
  const due = await claimDuePayments(deps, now);
  if (due.length === 0) return 0;
  // One call to Redis for the lot (issue 24n), not a round trip per payment: after a Redis loss a sweep claims a full batch.
  await queueOf(deps, PAYMENTS_QUEUE).addBulk(
    due.map((t) => ({
      name: 'reconcile',
      data: { platformId: t.platformId, transactionId: t.id, token: t.token.getTime() } satisfies PaymentJob,
      opts: { jobId: checkJobId('reconcile', t.id, t.token), ...JOB_RETRY },
    })),
  );
  deps.logger.info({ count: due.length }, 'reconciling payments');
  return due.length;
}

/**
 * The claim: at most PAYMENT_RECONCILE_BATCH due payments per platform group (issue 29, 29a: each
 * statement on one shard), each taken by one caller only.
 */
export async function claimDuePayments(deps: AppDeps, now: Date): Promise<Array<{ id: string; platformId: string; token: Date }>> {
  const claimed: Array<{ id: string; platformId: string; token: Date }> = [];
  await perPlatformGroup(deps.prisma, 'transactions', async (platforms) => {
    const rows = await claimDueIn(deps, now, platforms);
    claimed.push(...rows);
    return rows.length;
  });
  return claimed;
}

/**
 * Reads only the checks that are due, through two partial indexes in `reconcile_after` order (issue 30, 30g): the
 * payments in flight (transactions_processing_reconcile_idx) and the completed ones still watched for a return
 * (transactions_return_watch_due_idx) — not a week of completed payments. A completed payment due after its
 * window (its last check lost with its job) is taken too and its watch ended (`reconcile_after` NULL, no job), so
 * nothing stays in the index to be read again.
 */
async function claimDueIn(deps: AppDeps, now: Date, platforms: string[]): Promise<Array<{ id: string; platformId: string; token: Date }>> {
  const next = new Date(now.getTime() + deps.config.PAYMENT_RECONCILE_RETRY_MS);
  const watchedSince = new Date(now.getTime() - deps.config.PAYMENT_RETURN_WINDOW_MS);
  const due = await deps.prisma.$queryRaw<Array<{ id: string; platform_id: string; reconcile_after: Date | null }>>`
    UPDATE "transactions" SET "reconcile_after" =
        CASE WHEN "status" = 'COMPLETED' AND ("settled_at" IS NULL OR "settled_at" <= ${watchedSince}) THEN NULL ELSE ${next}::timestamptz END
     WHERE "platform_id" = ANY(${platforms}) AND ("platform_id", "id") IN (
       SELECT "platform_id", "id" FROM "transactions"
        WHERE "platform_id" = ANY(${platforms}) AND "rail_reference" IS NOT NULL AND "destination_kind" <> 'INTERNAL'
          AND (("status" = 'PROCESSING' AND ("reconcile_after" IS NULL OR "reconcile_after" <= ${now}))
            OR ("status" = 'COMPLETED' AND "reconcile_after" IS NOT NULL AND "reconcile_after" <= ${now}))
        ORDER BY "reconcile_after" NULLS FIRST
        LIMIT ${deps.config.PAYMENT_RECONCILE_BATCH}
        FOR UPDATE SKIP LOCKED)
    RETURNING "id", "platform_id", "reconcile_after"`;
  return due.flatMap((r) => (r.reconcile_after ? [{ id: r.id, platformId: r.platform_id, token: r.reconcile_after }] : []));
}
