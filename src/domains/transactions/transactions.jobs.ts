import { Worker, type ConnectionOptions, type Job } from 'bullmq';
import type { AppDeps } from '../../deps.js';
import { ctxFor } from '../../deps.js';
import { queueOf } from '../../platform/queue.js';
import { pollPayment, refundPayment, submitPayment, type StepOutcome } from './settlement.service.js';
import { expireQuote } from './transactions.service.js';

export const PAYMENTS_QUEUE = 'payments';

export interface PaymentJob {
  platformId: string;
  transactionId: string;
}

const uuidOf = (id: string) => id.slice(id.indexOf(':') + 1);
/** Retries of a job that threw (provider down, refund still pending); outcomes are idempotent. */
const JOB_RETRY = { attempts: 50, backoff: { type: 'exponential' as const, delay: 1000 } };

/** Queues the rail submission of an executed payment. `attempt` distinguishes sweep re-queues. */
export async function enqueueSubmit(deps: AppDeps, data: PaymentJob, attempt = ''): Promise<void> {
  await queueOf(deps, PAYMENTS_QUEUE).add('submit', data, { jobId: `submit_${uuidOf(data.transactionId)}${attempt}`, ...JOB_RETRY });
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
      const outcome = job.name === 'submit' ? await submitPayment(deps, data.platformId, data.transactionId) : await pollPayment(deps, data.platformId, data.transactionId);
      await followUp(deps, data, outcome);
      return outcome.next;
    },
    { connection, prefix: `${deps.config.REDIS_PREFIX}:bull`, concurrency: deps.config.PAYMENT_CONCURRENCY },
  );
}

/**
 * Bounded sweep: expires quotes past `expiresAt`, and re-queues payments whose next step was lost
 * (a process that died between its commit and its enqueue): PROCESSING ones not touched for a
 * while, and refunds still PENDING. Every step is idempotent, so a re-queue is harmless.
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
    where: { OR: [{ status: 'PROCESSING' }, { refundStatus: 'PENDING' }], updatedAt: { lt: staleBefore } },
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
  return expired.length + stale.length;
}
