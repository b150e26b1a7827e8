import { Worker, type Job } from 'bullmq';
import type { AppDeps, Ctx } from '../../deps.js';
import { ctxFor } from '../../deps.js';
import { incrementCounter } from '../../platform/metrics.js';
import { queueOf, queuePrefix } from '../../platform/queue.js';
import { ensureJob, jobIdOf, sweepDue } from '../../platform/durable.js';
import { perPlatformGroup } from '../../platform/platform-groups.js';
import { deliveryOptions, postEnvelope } from './webhooks.delivery.js';
import { eventKey, eventLabel, eventPayload, NO_RETRY_TYPES, retryDelayMs } from './webhooks.model.js';
import { deliveryStatus, recordAttempt } from './webhooks.repo.js';
import { transition, transitionWhere } from '../../platform/state-machine.js';
import { Prisma } from '../../generated/prisma/client.js';
import { currentJobData } from '../../platform/ids.js';

export const WEBHOOK_QUEUE = 'webhooks';

export interface DeliveryJob {
  /** `Webhook:<uuid>`, as the API names the event (and as jobs queued before the row's id became a uuid did). */
  eventId: string;
  platformId: string;
  /**
   * The schedule this job was queued for: the event's attempt count and next_attempt_at then. A job
   * whose event has had another attempt since (a redelivery, a sweeper's re-enqueue) is stale and
   * does nothing, so one event never has two retry chains. Absent on jobs queued before issue 11.
   */
  attempt?: number;
  dueMs?: number;
  /** Jobs queued before issue 11 carried their window; the event row holds it now. */
  windowStartMs?: number;
}

/**
 * One scheduled attempt's job id: the event, its attempt count and the attempt's due time — the
 * values webhook_events holds, so the sweeper derives the same id (a live job makes its re-enqueue
 * a no-op). BullMQ forbids ':' in custom job ids. `eventId` is the row's uuid; the id names the event
 * `Webhook:<uuid>`, so a job queued before the row's id became a uuid (30f) is still the same job.
 */
export const deliveryJobId = (eventId: string, attempt: number, due: Date) => jobIdOf(eventLabel(eventId), `a${attempt}`, due.getTime());

/** Bounded retries of a job that threw (database unreachable); then the sweeper re-enqueues it. */
const JOB_ATTEMPTS = { attempts: 5, backoff: { type: 'exponential' as const, delay: 1_000 } };

/** Queues one attempt per event (`id`: the row's uuid), due at `due` (now: at once). */
export async function enqueueDelivery(
  deps: AppDeps,
  events: Array<{ id: string; platformId: string; attemptCount: number; due: Date }>,
): Promise<void> {
  const now = deps.clock.now().getTime();
  await queueOf(deps, WEBHOOK_QUEUE).addBulk(
    events.map((e) => ({
      name: 'deliver',
      data: { eventId: eventLabel(e.id), platformId: e.platformId, attempt: e.attemptCount, dueMs: e.due.getTime() } satisfies DeliveryJob,
      opts: { jobId: deliveryJobId(e.id, e.attemptCount, e.due), delay: Math.max(0, e.due.getTime() - now), ...JOB_ATTEMPTS },
    })),
  );
}

/**
 * Moves committed outbox rows onto the delivery queue. Rows are locked (SKIP LOCKED) so several
 * workers relay in parallel without handing one event over twice; relayed_at, the first attempt's
 * due time (next_attempt_at) and the retry window's start are set in the same transaction after the
 * queue accepted the jobs — from then on the sweeper (sweepDeliveries) owns the schedule too.
 * Events of a platform without a webhook endpoint are recorded UNDELIVERABLE (WEBHOOK_ENDPOINT_NOT_SET)
 * as they are inserted (trigger webhook_events_born, migration 20261126000000): they never reach the
 * relay. One written while the platform had an endpoint that is gone by now gets no job either: it is
 * marked UNDELIVERABLE here, in bulk, in the same transaction — what its delivery attempt would have
 * found. A redelivery after the endpoint is set sends them.
 */
export async function relayOutbox(deps: AppDeps): Promise<number> {
  // Issue 29 (29a): one transaction per platform group, each statement on one shard.
  return perPlatformGroup(deps.prisma, 'webhook_events', (platforms) => relayGroup(deps, platforms));
}

async function relayGroup(deps: AppDeps, platforms: string[]): Promise<number> {
  const result = await deps.prisma.$transaction(async (tx) => {
    const rows = await tx.$queryRaw<Array<{ id: string; platform_id: string; attempt_count: number; created_at: Date; has_endpoint: boolean }>>`
      SELECT e.id, e.platform_id, e.attempt_count, e.created_at, (p.webhook_endpoint IS NOT NULL) AS has_endpoint
        FROM webhook_events e JOIN platforms p ON p.id = e.platform_id
       WHERE e.platform_id = ANY(${platforms}) AND e.relayed_at IS NULL ORDER BY e.created_at, e.id
       LIMIT ${deps.config.OUTBOX_RELAY_BATCH} FOR UPDATE OF e SKIP LOCKED`;
    if (rows.length === 0) return { relayed: 0, undeliverable: 0 };
    const now = deps.clock.now();
    const deliverable = rows.filter((r) => r.has_endpoint);
    // The first attempt is due since the event's creation: the same job id if a relay that crashed before its commit runs again.
    if (deliverable.length > 0) {
      await enqueueDelivery(deps, deliverable.map((r) => ({ id: r.id, platformId: r.platform_id, attemptCount: r.attempt_count, due: r.created_at })));
    }
    const deliverableIds = deliverable.map((r) => r.id);
    const undeliverable = rows.filter((r) => !r.has_endpoint);
    if (deliverableIds.length > 0) {
      const named = [...new Set(deliverable.map((r) => r.platform_id))];
      await tx.$executeRaw`UPDATE webhook_events SET relayed_at = ${now}, retry_window_started_at = ${now}, next_attempt_at = created_at WHERE platform_id = ANY(${named}) AND id = ANY(${deliverableIds}::uuid[])`;
    }
    if (undeliverable.length > 0) {
      // A status move like any other (history row included): one statement for the whole batch.
      const scope = { platformId: [...new Set(undeliverable.map((r) => r.platform_id))], clock: deps.clock };
      await transitionWhere(tx, scope, deliveryStatus, 'markUndeliverable', Prisma.sql`"id" = ANY(${undeliverable.map((r) => r.id)}::uuid[])`, {
        set: { relayedAt: now, retryWindowStartedAt: now, nextAttemptAt: null, lastError: 'WEBHOOK_ENDPOINT_NOT_SET' },
      });
    }
    return { relayed: rows.length, undeliverable: undeliverable.length };
  });
  if (result.undeliverable > 0) await incrementCounter(deps, 'webhook_deliveries', 'undeliverable', result.undeliverable);
  return result.relayed;
}

/**
 * The durable half of the retry schedule: PENDING events whose next attempt is JOB_SWEEP_GRACE_MS
 * overdue get their job again (same id: a no-op while it is live). Bounded by JOB_SWEEP_BATCH;
 * rows locked SKIP LOCKED so several workers sweep disjoint events.
 */
export async function sweepDeliveries(deps: AppDeps): Promise<number> {
  const cutoff = new Date(deps.clock.now().getTime() - deps.config.JOB_SWEEP_GRACE_MS);
  const q = queueOf(deps, WEBHOOK_QUEUE);
  return sweepDue(
    deps,
    WEBHOOK_QUEUE,
    'webhook_events',
    (tx, platforms) => tx.$queryRaw<Array<{ id: string; platform_id: string; attempt_count: number; due: Date }>>`
      SELECT id, platform_id, attempt_count, COALESCE(next_attempt_at, relayed_at) AS due FROM webhook_events
       WHERE platform_id = ANY(${platforms}) AND delivery_status = 'PENDING' AND relayed_at IS NOT NULL
         AND (next_attempt_at <= ${cutoff} OR (next_attempt_at IS NULL AND relayed_at <= ${cutoff}))
       ORDER BY next_attempt_at NULLS FIRST
       LIMIT ${deps.config.JOB_SWEEP_BATCH} FOR UPDATE SKIP LOCKED`,
    (r) =>
      ensureJob(q, 'deliver', { eventId: eventLabel(r.id), platformId: r.platform_id, attempt: r.attempt_count, dueMs: r.due.getTime() } satisfies DeliveryJob, {
        jobId: deliveryJobId(r.id, r.attempt_count, r.due),
        ...JOB_ATTEMPTS,
      }),
  );
}

/** One delivery attempt of one event; records the attempt and decides delivered / retry / failed. */
export async function processDelivery(deps: AppDeps, data: DeliveryJob): Promise<'DELIVERED' | 'RETRY' | 'FAILED' | 'UNDELIVERABLE' | 'SKIPPED'> {
  const ctx: Ctx = ctxFor(deps, data.platformId);
  const key = eventKey(data.eventId);
  const event = key ? await ctx.db.webhookEvent.findFirst({ where: { id: key } }) : null;
  if (!event || event.deliveryStatus !== 'PENDING') return 'SKIPPED';
  // Stale: another job made an attempt since this one was queued (its successor holds the schedule).
  if (data.attempt !== undefined && event.attemptCount !== data.attempt) return 'SKIPPED';
  const platform = await ctx.db.platform.findFirstOrThrow({});
  if (!platform.webhookEndpoint) {
    // Kept, not dropped: a redelivery after the endpoint is set sends it.
    await transition(ctx.db, ctx, deliveryStatus, 'markUndeliverable', event.id, { from: event.deliveryStatus, set: { lastError: 'WEBHOOK_ENDPOINT_NOT_SET', nextAttemptAt: null } });
    await incrementCounter(deps, 'webhook_deliveries', 'undeliverable');
    return 'UNDELIVERABLE';
  }
  const url = platform.webhookEndpoint;
  const result = await postEnvelope(url, { id: eventLabel(event.id), type: event.type, timestamp: event.createdAt.toISOString(), data: eventPayload(event) }, deps.signer, deliveryOptions(deps.config));
  if (result.outcome === 'DELIVERED') {
    await recordAttempt(ctx, event.id, url, result, 'DELIVERED');
    await incrementCounter(deps, 'webhook_deliveries', 'delivered');
    return 'DELIVERED';
  }
  const now = deps.clock.now().getTime();
  const windowStart = event.retryWindowStartedAt?.getTime() ?? data.windowStartMs ?? event.createdAt.getTime();
  const windowOver = now - windowStart >= deps.config.WEBHOOK_RETRY_WINDOW_MS;
  if (NO_RETRY_TYPES.has(event.type) || windowOver) {
    await recordAttempt(ctx, event.id, url, result, 'FAILED');
    await incrementCounter(deps, 'webhook_deliveries', 'failed');
    return 'FAILED';
  }
  const delay = retryDelayMs(event.attemptCount + 1, deps.config.WEBHOOK_RETRY_BASE_MS, deps.config.WEBHOOK_RETRY_MAX_MS);
  const due = new Date(now + delay);
  const updated = await recordAttempt(ctx, event.id, url, result, 'PENDING', due);
  await incrementCounter(deps, 'webhook_deliveries', 'retry');
  // The next attempt: recorded above (next_attempt_at), queued here; if this enqueue is lost the sweeper adds it.
  await enqueueDelivery(deps, [{ id: event.id, platformId: data.platformId, attemptCount: updated.attemptCount, due }]);
  return 'RETRY';
}

export function startWebhookWorker(deps: AppDeps, connection: import('bullmq').ConnectionOptions): Worker {
  return new Worker<DeliveryJob>(
    WEBHOOK_QUEUE,
    async (job: Job<DeliveryJob>) => processDelivery(deps, currentJobData(job.data)),
    {
      connection,
      prefix: queuePrefix(deps.config),
      concurrency: deps.config.WEBHOOK_CONCURRENCY,
      settings: {
        // Jobs queued before issue 11 retried in place with this strategy; each attempt is its own job now.
        backoffStrategy: (attemptsMade: number) => retryDelayMs(attemptsMade, deps.config.WEBHOOK_RETRY_BASE_MS, deps.config.WEBHOOK_RETRY_MAX_MS),
      },
    },
  );
}
