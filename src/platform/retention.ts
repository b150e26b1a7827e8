import type { AppDeps } from '../deps.js';
import type { DomainModule } from './module.js';

/**
 * Issue 30: storage follows the business, not the history. Tables that only grow are cut back in
 * bounded batches by a periodic job of the worker — each statement touches at most RETENTION_BATCH
 * rows found through an index over the rows that are due, so a pass costs what is due (nothing
 * when idle) and the space freed is reused by new rows (autovacuum's normal work, not a storm):
 * - webhook events older than WEBHOOK_PAYLOAD_RETENTION_DAYS (never inside the retry window) keep
 *   only what the events log lists: their type, status, dates, the resource's `id` (resource_id, put
 *   back into the listed payload by eventPayload) and its `status` and `type`; the payload itself was
 *   delivered long before;
 * - delivery attempts older than WEBHOOK_ATTEMPT_RETENTION_DAYS are deleted;
 * - Idempotency-Key records past their expiry (IDEMPOTENCY_TTL_HOURS) are deleted: an expired record
 *   is overwritten by the next use of its key anyway (src/platform/idempotency.ts);
 * Status changes (a payment's timeline, shown for a year-old payment too) and ledger journals and
 * entries are kept forever.
 */
const DAY_MS = 24 * 3_600_000;

export interface RetentionPass {
  eventsPruned: number;
  attemptsDeleted: number;
  idempotencyDeleted: number;
}

/**
 * The payload an event keeps after its retention window: enough to list it and find its resource. The
 * resource's `id` is not kept in it: it is the row's `resource_id` (src/domains/webhooks/webhooks.model.ts
 * eventPayload lists it as `{id, type, status}`, as before; issue 30, 30c).
 */
export const PRUNED_PAYLOAD_SQL = `jsonb_strip_nulls(jsonb_build_object('status', data -> 'status', 'type', data -> 'type'))`;

/**
 * What else a cut-down event no longer keeps: the last delivery error and the start of its retry window,
 * which only a PENDING event uses (a redelivery sets both afresh) and the events log does not show (30c).
 */
export const PRUNED_COLUMNS_SQL = 'last_error = NULL, retry_window_started_at = NULL';

/** One bounded pass over every retained table; returns the rows changed per table. */
export async function pruneOnce(deps: Pick<AppDeps, 'prisma' | 'config' | 'clock'>): Promise<RetentionPass> {
  const c = deps.config;
  const now = deps.clock.now().getTime();
  const payloadDays = Math.max(c.WEBHOOK_PAYLOAD_RETENTION_DAYS * DAY_MS, c.WEBHOOK_RETRY_WINDOW_MS + DAY_MS);
  const eventsBefore = new Date(now - payloadDays);
  const attemptsBefore = new Date(now - c.WEBHOOK_ATTEMPT_RETENTION_DAYS * DAY_MS);
  const batch = c.RETENTION_BATCH;
  const p = deps.prisma;
  // A PENDING event is still owed a delivery: it keeps its payload whatever its age.
  const eventsPruned = await p.$executeRawUnsafe(
    // The due keys as two arrays (issue 29: the key is (platform_id, id)), each row then found by key; the
    // due conditions again on the row found, so only due rows change whichever pairs the arrays make.
    `WITH due AS (
       SELECT array_agg(platform_id) AS platforms, array_agg(id) AS ids
         FROM (SELECT platform_id, id FROM webhook_events WHERE pruned_at IS NULL AND created_at < $2 ORDER BY created_at LIMIT $3) d)
     UPDATE webhook_events SET data = ${PRUNED_PAYLOAD_SQL}, pruned_at = $1, ${PRUNED_COLUMNS_SQL}
      WHERE platform_id = ANY((SELECT platforms FROM due)::text[]) AND id = ANY((SELECT ids FROM due)::text[])
        AND pruned_at IS NULL AND created_at < $2 AND delivery_status <> 'PENDING'`,
    new Date(now),
    eventsBefore,
    batch,
  );
  const attemptsDeleted = await p.$executeRawUnsafe(
    `DELETE FROM webhook_attempts WHERE (platform_id, id) IN (SELECT platform_id, id FROM webhook_attempts WHERE attempted_at < $1 ORDER BY attempted_at LIMIT $2)`,
    attemptsBefore,
    batch,
  );
  const idempotencyDeleted = await p.$executeRawUnsafe(
    `DELETE FROM idempotency_records WHERE (platform_id, key) IN (
       SELECT platform_id, key FROM idempotency_records WHERE expires_at < $1 ORDER BY expires_at LIMIT $2)`,
    new Date(now),
    batch,
  );
  return { eventsPruned, attemptsDeleted, idempotencyDeleted };
}

/** The worker's loop: a full batch anywhere means more is due, so the loop goes again at once. */
export const retentionModule: DomainModule = {
  name: 'retention',
  loops: [
    {
      name: 'retention',
      intervalMs: (deps) => deps.config.RETENTION_INTERVAL_MS,
      batch: (deps) => deps.config.RETENTION_BATCH,
      run: async (deps) => {
        const pass = await pruneOnce(deps);
        const most = Math.max(pass.eventsPruned, pass.attemptsDeleted, pass.idempotencyDeleted);
        if (most > 0) deps.logger.info(pass, 'retention pass');
        return most;
      },
    },
  ],
};
