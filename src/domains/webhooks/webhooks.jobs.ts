import { Worker, type Job } from 'bullmq';
import type { AppDeps, Ctx } from '../../deps.js';
import { ctxFor } from '../../deps.js';
import { incrementCounter } from '../../platform/metrics.js';
import { queueOf, queuePrefix } from '../../platform/queue.js';
import { deliveryOptions, postEnvelope } from './webhooks.delivery.js';
import { NO_RETRY_TYPES, retryDelayMs } from './webhooks.model.js';
import { recordAttempt } from './webhooks.repo.js';

export const WEBHOOK_QUEUE = 'webhooks';

export interface DeliveryJob {
  eventId: string;
  platformId: string;
  /** Start of this delivery's retry window (epoch ms): the event's creation or the redelivery request. */
  windowStartMs: number;
}

/** BullMQ forbids ':' in custom job ids; the event id's uuid is unique on its own. */
const jobIdFor = (eventId: string, suffix = '') => `${eventId.replace(/:/g, '_')}${suffix}`;

/** Retries are governed by the time window, not a count; this cap only bounds a runaway. */
const MAX_ATTEMPTS = 100_000;

export async function enqueueDelivery(
  deps: AppDeps,
  events: Array<{ id: string; platformId: string; type: string }>,
  opts: { redelivery?: boolean } = {},
): Promise<void> {
  const now = deps.clock.now().getTime();
  await queueOf(deps, WEBHOOK_QUEUE).addBulk(
    events.map((e) => ({
      name: 'deliver',
      data: { eventId: e.id, platformId: e.platformId, windowStartMs: now } satisfies DeliveryJob,
      opts: {
        // Same id for the relay's first hand-off: a relay that crashes after enqueueing and runs
        // again does not queue the event twice. Redeliveries get their own id.
        jobId: jobIdFor(e.id, opts.redelivery ? `_r${now}` : ''),
        attempts: NO_RETRY_TYPES.has(e.type) ? 1 : MAX_ATTEMPTS,
        backoff: { type: 'webhook' },
      },
    })),
  );
}

/**
 * Moves committed outbox rows onto the delivery queue. Rows are locked (SKIP LOCKED) so several
 * workers relay in parallel without handing one event over twice; relayed_at is set in the same
 * transaction after the queue accepted the jobs.
 */
export async function relayOutbox(deps: AppDeps): Promise<number> {
  return deps.prisma.$transaction(async (tx) => {
    const rows = await tx.$queryRaw<Array<{ id: string; platform_id: string; type: string }>>`
      SELECT id, platform_id, type FROM webhook_events
      WHERE relayed_at IS NULL ORDER BY created_at, id
      LIMIT ${deps.config.OUTBOX_RELAY_BATCH} FOR UPDATE SKIP LOCKED`;
    if (rows.length === 0) return 0;
    await enqueueDelivery(deps, rows.map((r) => ({ id: r.id, platformId: r.platform_id, type: r.type })));
    const ids = rows.map((r) => r.id);
    await tx.$executeRaw`UPDATE webhook_events SET relayed_at = now() WHERE id = ANY(${ids})`;
    return rows.length;
  });
}

/** Thrown to make BullMQ schedule the next attempt. */
class RetryDelivery extends Error {}

/** One delivery attempt of one event; records the attempt and decides delivered / retry / failed. */
export async function processDelivery(deps: AppDeps, data: DeliveryJob): Promise<'DELIVERED' | 'RETRY' | 'FAILED' | 'UNDELIVERABLE' | 'SKIPPED'> {
  const ctx: Ctx = ctxFor(deps, data.platformId);
  const event = await ctx.db.webhookEvent.findUnique({ where: { id: data.eventId } });
  if (!event) return 'SKIPPED';
  const platform = await ctx.db.platform.findFirstOrThrow({});
  if (!platform.webhookEndpoint) {
    // Kept, not dropped: a redelivery after the endpoint is set sends it.
    await ctx.db.webhookEvent.update({ where: { id: event.id }, data: { deliveryStatus: 'UNDELIVERABLE', lastError: 'WEBHOOK_ENDPOINT_NOT_SET', nextAttemptAt: null } });
    await incrementCounter(deps, 'webhook_deliveries', 'undeliverable');
    return 'UNDELIVERABLE';
  }
  const url = platform.webhookEndpoint;
  const result = await postEnvelope(url, { id: event.id, type: event.type, timestamp: event.createdAt.toISOString(), data: event.data }, deps.signer, deliveryOptions(deps.config));
  if (result.outcome === 'DELIVERED') {
    await recordAttempt(ctx, event.id, url, result, 'DELIVERED');
    await incrementCounter(deps, 'webhook_deliveries', 'delivered');
    return 'DELIVERED';
  }
  const now = deps.clock.now().getTime();
  const windowOver = now - data.windowStartMs >= deps.config.WEBHOOK_RETRY_WINDOW_MS;
  if (NO_RETRY_TYPES.has(event.type) || windowOver) {
    await recordAttempt(ctx, event.id, url, result, 'FAILED');
    await incrementCounter(deps, 'webhook_deliveries', 'failed');
    return 'FAILED';
  }
  const delay = retryDelayMs(event.attemptCount + 1, deps.config.WEBHOOK_RETRY_BASE_MS, deps.config.WEBHOOK_RETRY_MAX_MS);
  await recordAttempt(ctx, event.id, url, result, 'PENDING', new Date(now + delay));
  await incrementCounter(deps, 'webhook_deliveries', 'retry');
  return 'RETRY';
}

export function startWebhookWorker(deps: AppDeps, connection: import('bullmq').ConnectionOptions): Worker {
  return new Worker<DeliveryJob>(
    WEBHOOK_QUEUE,
    async (job: Job<DeliveryJob>) => {
      const outcome = await processDelivery(deps, job.data);
      if (outcome === 'RETRY') throw new RetryDelivery(`delivery of ${job.data.eventId} failed; retrying`);
      return outcome;
    },
    {
      connection,
      prefix: queuePrefix(deps.config),
      concurrency: deps.config.WEBHOOK_CONCURRENCY,
      settings: {
        backoffStrategy: (attemptsMade: number) => retryDelayMs(attemptsMade, deps.config.WEBHOOK_RETRY_BASE_MS, deps.config.WEBHOOK_RETRY_MAX_MS),
      },
    },
  );
}
