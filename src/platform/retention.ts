import type { AppDeps } from '../deps.js';
import type { DomainModule } from './module.js';
import { platformGroups } from './platform-groups.js';

/**
 * Issue 30: storage follows the business, not the history. Tables that only grow are cut back in
 * bounded batches by a periodic job of the worker — each statement touches at most RETENTION_BATCH
 * rows found through an index over the rows that are due, so a pass costs what is due (nothing
 * when idle) and the space freed is reused by new rows (autovacuum's normal work, not a storm):
 * - webhook events older than WEBHOOK_PAYLOAD_RETENTION_DAYS (never inside the retry window) keep
 *   only what the events log lists: their type, status, dates, the resource's `id` (its key is
 *   resource_id; the events log puts `<type>:<key>` back into the listed payload, eventPayload, where the
 *   event's type names the resource's type, else the payload keeps the id) and its `status` and `type`;
 *   the payload itself was delivered long before;
 * - delivery attempts older than WEBHOOK_ATTEMPT_RETENTION_DAYS are deleted;
 * - Idempotency-Key records past their expiry (IDEMPOTENCY_TTL_HOURS) are deleted: an expired record
 *   is overwritten by the next use of its key anyway (src/platform/idempotency.ts);
 * - status changes older than STATUS_CHANGE_RETENTION_DAYS (0: never) are deleted, but customers': their
 *   KYC holds are counted from them (verification.jobs.ts). Nothing else reads the history; a payment's
 *   states stay in the events log, each event with its type, the resource's status and its time (30f).
 * Ledger journals and entries are kept forever.
 * Issue 29 (29d): each statement runs once per platform group (src/platform/platform-groups.ts), naming it
 * with `platform_id = ANY($n)`: on Citus one shard per statement (a multi-shard UPDATE whose SET calls
 * jsonb_build_object is refused there), on plain Postgres one group, as before. The batch is per group.
 */
const DAY_MS = 24 * 3_600_000;

export interface RetentionPass {
  eventsPruned: number;
  attemptsDeleted: number;
  idempotencyDeleted: number;
  statusChangesDeleted: number;
}

/**
 * The status history retention may delete: every machine's but customers' (migration
 * 20270115030000_status_change_retention indexes exactly these rows, `status_changes_prunable_idx`).
 */
export const PRUNABLE_STATUS_CHANGES_SQL = `machine <> 'customer'`;

/**
 * The payload an event keeps after its retention window: enough to list it and find its resource. The
 * resource's `id` is kept in it only where the event's type and `resource_id` cannot give it back
 * (src/domains/webhooks/webhooks.model.ts eventPayload lists it as `{id, type, status}`, as before; issue 30,
 * 30c, 30f). An IMMUTABLE function (migrations 20261225010000_pruned_payload, 20270115010000_webhook_event_keys):
 * Citus refuses a STABLE one such as jsonb_build_object over a column in an UPDATE's SET (29d).
 */
export const PRUNED_PAYLOAD_SQL = `svc_pruned_payload(type, data)`;

/**
 * What else a cut-down event no longer keeps: the last delivery error and the start of its retry window,
 * which only a PENDING event uses (a redelivery sets both afresh) and the events log does not show (30c).
 */
export const PRUNED_COLUMNS_SQL = 'last_error = NULL, retry_window_started_at = NULL';

/** One bounded pass over every retained table, per platform group; returns the rows changed per table (all groups). */
export async function pruneOnce(deps: Pick<AppDeps, 'prisma' | 'config' | 'clock'>): Promise<RetentionPass> {
  const total: RetentionPass = { eventsPruned: 0, attemptsDeleted: 0, idempotencyDeleted: 0, statusChangesDeleted: 0 };
  // The four tables are co-located (one co-location group on Citus, the same partitions on the rehearsal): one read of the groups.
  for (const platforms of await platformGroups(deps.prisma, 'webhook_events')) {
    const pass = await pruneGroup(deps, platforms);
    total.eventsPruned += pass.eventsPruned;
    total.attemptsDeleted += pass.attemptsDeleted;
    total.idempotencyDeleted += pass.idempotencyDeleted;
    total.statusChangesDeleted += pass.statusChangesDeleted;
  }
  return total;
}

async function pruneGroup(deps: Pick<AppDeps, 'prisma' | 'config' | 'clock'>, platforms: string[]): Promise<RetentionPass> {
  const c = deps.config;
  const now = deps.clock.now().getTime();
  const payloadDays = Math.max(c.WEBHOOK_PAYLOAD_RETENTION_DAYS * DAY_MS, c.WEBHOOK_RETRY_WINDOW_MS + DAY_MS);
  const eventsBefore = new Date(now - payloadDays);
  const attemptsBefore = new Date(now - c.WEBHOOK_ATTEMPT_RETENTION_DAYS * DAY_MS);
  const batch = c.RETENTION_BATCH;
  const p = deps.prisma;
  // A PENDING event is still owed a delivery: it keeps its payload whatever its age. The batch is chosen among
  // the others (webhook_events_unpruned_idx holds only them, 27e), so old PENDING events never fill it.
  const eventsPruned = await p.$executeRawUnsafe(
    // The due keys as two arrays (issue 29: the key is (platform_id, id)), each row then found by key; the
    // due conditions again on the row found, so only due rows change whichever pairs the arrays make.
    `WITH due AS (
       SELECT array_agg(platform_id) AS platforms, array_agg(id) AS ids
         FROM (SELECT platform_id, id FROM webhook_events WHERE platform_id = ANY($4) AND pruned_at IS NULL AND delivery_status <> 'PENDING' AND created_at < $2 ORDER BY created_at LIMIT $3) d)
     UPDATE webhook_events SET data = ${PRUNED_PAYLOAD_SQL}, pruned_at = $1, ${PRUNED_COLUMNS_SQL}
      WHERE platform_id = ANY($4) AND platform_id = ANY((SELECT platforms FROM due)::uuid[]) AND id = ANY((SELECT ids FROM due)::uuid[])
        AND pruned_at IS NULL AND created_at < $2 AND delivery_status <> 'PENDING'`,
    new Date(now),
    eventsBefore,
    batch,
    platforms,
  );
  const attemptsDeleted = await p.$executeRawUnsafe(
    `DELETE FROM webhook_attempts WHERE platform_id = ANY($3) AND (platform_id, id) IN (
       SELECT platform_id, id FROM webhook_attempts WHERE platform_id = ANY($3) AND attempted_at < $1 ORDER BY attempted_at LIMIT $2)`,
    attemptsBefore,
    batch,
    platforms,
  );
  const idempotencyDeleted = await p.$executeRawUnsafe(
    `DELETE FROM idempotency_records WHERE platform_id = ANY($3) AND (platform_id, key) IN (
       SELECT platform_id, key FROM idempotency_records WHERE platform_id = ANY($3) AND expires_at < $1 ORDER BY expires_at LIMIT $2)`,
    new Date(now),
    batch,
    platforms,
  );
  const statusChangesDeleted = c.STATUS_CHANGE_RETENTION_DAYS > 0
    ? await p.$executeRawUnsafe(
        `DELETE FROM status_changes WHERE platform_id = ANY($3) AND (platform_id, id) IN (
           SELECT platform_id, id FROM status_changes WHERE platform_id = ANY($3) AND ${PRUNABLE_STATUS_CHANGES_SQL} AND created_at < $1 ORDER BY created_at LIMIT $2)`,
        new Date(now - c.STATUS_CHANGE_RETENTION_DAYS * DAY_MS),
        batch,
        platforms,
      )
    : 0;
  return { eventsPruned, attemptsDeleted, idempotencyDeleted, statusChangesDeleted };
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
