import { Worker, type ConnectionOptions, type Job } from 'bullmq';
import type { AppDeps } from '../../deps.js';
import { ctxFor } from '../../deps.js';
import { queueOf, queuePrefix } from '../../platform/queue.js';
import { applyPayoutReport, pollPayment, refundPayment, submitPayment, type StepOutcome } from './settlement.service.js';
import type { PayoutResult } from '../../adapters/rails/port.js';
import { expireQuote } from './transactions.service.js';

export const PAYMENTS_QUEUE = 'payments';

export interface PaymentJob {
  platformId: string;
  transactionId: string;
  /** `report` jobs: the outcome an adapter pushed. */
  result?: PayoutResult;
}

const uuidOf = (id: string) => id.slice(id.indexOf(':') + 1);
/** Retries of a job that threw (provider down, refund still pending); outcomes are idempotent. */
const JOB_RETRY = { attempts: 50, backoff: { type: 'exponential' as const, delay: 1000 } };

/** Queues the rail submission of an executed payment. `attempt` distinguishes sweep re-queues. */
export async function enqueueSubmit(deps: AppDeps, data: PaymentJob, attempt = ''): Promise<void> {
  await queueOf(deps, PAYMENTS_QUEUE).add('submit', data, { jobId: `submit_${uuidOf(data.transactionId)}${attempt}`, ...JOB_RETRY });
}

/** Queues an outcome an adapter pushed; `fingerprint` makes a redelivered identical report a no-op. */
export async function enqueuePayoutReport(deps: AppDeps, data: Required<PaymentJob>, fingerprint: string): Promise<void> {
  await queueOf(deps, PAYMENTS_QUEUE).add('report', data, { jobId: `report_${uuidOf(data.transactionId)}_${fingerprint}`, ...JOB_RETRY });
}

/**
 * One step of a payment. `report` (a pushed outcome) and `reconcile` (the sweep asking a late
 * payment's rail) apply the answer like a poll, but start no poll chain of their own: the regular
 * chain, if any, goes on, and reconciliation asks again after PAYMENT_RECONCILE_RETRY_MS.
 */
async function runStep(deps: AppDeps, name: string, data: PaymentJob): Promise<StepOutcome> {
  if (name === 'submit') return submitPayment(deps, data.platformId, data.transactionId);
  if (name === 'report') return applyPayoutReport(deps, data.platformId, data.transactionId, data.result!);
  return pollPayment(deps, data.platformId, data.transactionId);
}

async function followUp(deps: AppDeps, data: PaymentJob, outcome: StepOutcome): Promise<void> {
  const q = queueOf(deps, PAYMENTS_QUEUE);
  const now = deps.clock.now().getTime();
  if (outcome.next === 'POLL') {
    const delay = Math.min(outcome.afterMs, deps.config.PAYMENT_POLL_MAX_MS);
    await q.add('poll', data, { jobId: `poll_${uuidOf(data.transactionId)}_${now}`, delay, ...JOB_RETRY });
  } else if (outcome.next === 'REFUND') {
    await q.add('refund', data, { jobId: `refund_${uuidOf(data.transactionId)}_${now}`, ...JOB_RETRY });
  }
}

export function startPaymentsWorker(deps: AppDeps, connection: ConnectionOptions): Worker {
  return new Worker<PaymentJob>(
    PAYMENTS_QUEUE,
    async (job: Job<PaymentJob>) => {
      const data = job.data;
      if (job.name === 'refund') return refundPayment(deps, data.platformId, data.transactionId);
      const outcome = await runStep(deps, job.name, data);
      const chains = job.name === 'submit' || job.name === 'poll';
      await followUp(deps, { platformId: data.platformId, transactionId: data.transactionId }, chains || outcome.next === 'REFUND' ? outcome : { next: 'DONE' });
      return outcome.next;
    },
    { connection, prefix: queuePrefix(deps.config), concurrency: deps.config.PAYMENT_CONCURRENCY },
  );
}

/**
 * Bounded sweep: expires quotes past `expiresAt`; re-queues steps that were lost (a process that
 * died between its commit and its enqueue): submissions never made and refunds still PENDING; and
 * reconciles (reconcilePayments). Every step is idempotent, so a re-queue is harmless.
 */
export async function sweepPayments(deps: AppDeps): Promise<number> {
  const now = deps.clock.now();
  const batch = deps.config.QUOTE_EXPIRY_SWEEP_BATCH;
  const expired = await deps.prisma.quote.findMany({
    where: { status: 'PENDING', expiresAt: { lt: now } },
    select: { id: true, platformId: true },
    orderBy: { expiresAt: 'asc' },
    take: batch,
  });
  for (const q of expired) await expireQuote(ctxFor(deps, q.platformId), q.id).catch((err) => deps.logger.warn({ err, quoteId: q.id }, 'expiry failed'));

  const staleBefore = new Date(now.getTime() - deps.config.PAYMENT_STALE_MS);
  const stale = await deps.prisma.transaction.findMany({
    where: { OR: [{ status: 'PROCESSING', railReference: null }, { refundStatus: 'PENDING' }], updatedAt: { lt: staleBefore } },
    select: { id: true, platformId: true, status: true, refundStatus: true, railReference: true },
    take: batch,
  });
  const bucket = `_s${Math.floor(now.getTime() / deps.config.PAYMENT_STALE_MS)}`;
  const q = queueOf(deps, PAYMENTS_QUEUE);
  for (const t of stale) {
    const data = { platformId: t.platformId, transactionId: t.id };
    const name = t.refundStatus === 'PENDING' ? 'refund' : t.railReference ? 'poll' : 'submit';
    await q.add(name, data, { jobId: `${name}_${uuidOf(t.id)}${bucket}`, ...JOB_RETRY });
  }
  return expired.length + stale.length + (await reconcilePayments(deps));
}

/**
 * Reconciliation: payments still PROCESSING after their rail's expected time (plus PAYMENT_STALE_MS;
 * `reconcile_after`, set at submission) — a lost callback, a lost poll — get a `reconcile` job that
 * asks the rail and applies the answer through applyPayoutResult. The claim moves `reconcile_after`
 * forward by PAYMENT_RECONCILE_RETRY_MS in the same statement (SKIP LOCKED), so concurrent sweeps
 * never take the same payment and a payment still pending is asked again only after that.
 */
export async function reconcilePayments(deps: AppDeps): Promise<number> {
  const now = deps.clock.now();
  const due = await claimDuePayments(deps, now);
  const q = queueOf(deps, PAYMENTS_QUEUE);
  for (const t of due) {
    await q.add('reconcile', { platformId: t.platformId, transactionId: t.id }, { jobId: `reconcile_${uuidOf(t.id)}_${now.getTime()}`, ...JOB_RETRY });
  }
  if (due.length) deps.logger.info({ count: due.length }, 'reconciling late payments');
  return due.length;
}

/** The claim: at most PAYMENT_RECONCILE_BATCH due payments, each taken by one caller only. */
export async function claimDuePayments(deps: AppDeps, now: Date): Promise<Array<{ id: string; platformId: string }>> {
  const next = new Date(now.getTime() + deps.config.PAYMENT_RECONCILE_RETRY_MS);
  const due = await deps.prisma.$queryRaw<Array<{ id: string; platform_id: string }>>`
    UPDATE "transactions" SET "reconcile_after" = ${next}
     WHERE "id" IN (
       SELECT "id" FROM "transactions"
        WHERE "status" = 'PROCESSING' AND "rail_reference" IS NOT NULL AND "destination_kind" <> 'INTERNAL'
          AND ("reconcile_after" IS NULL OR "reconcile_after" <= ${now})
        ORDER BY "reconcile_after" NULLS FIRST
        LIMIT ${deps.config.PAYMENT_RECONCILE_BATCH}
        FOR UPDATE SKIP LOCKED)
    RETURNING "id", "platform_id"`;
  return due.map((r) => ({ id: r.id, platformId: r.platform_id }));
}
