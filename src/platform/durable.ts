import type { JobsOptions, Queue } from 'bullmq';
import { Prisma } from '../generated/prisma/client.js';
import type { AppDeps } from '../deps.js';
import { incrementCounter } from './metrics.js';
import { perPlatformGroup } from './platform-groups.js';
import { queueOf } from './queue.js';
import { sqlIdentifier } from './sql/identifiers.js';

/**
 * Durable schedules (issue 11, docs/decisions.md "Issue 11"). Postgres records everything owed — a
 * status and a due time on the owning row — and BullMQ is only the fast path. Each domain has a
 * bounded sweeper in the worker that finds rows due for a while (`FOR UPDATE SKIP LOCKED`, so
 * several workers take disjoint rows) and calls ensureJob with the job id the producer used: a job
 * still live in Redis makes it a no-op, a job lost with Redis's data is added again.
 */

/** BullMQ forbids ':' in custom job ids. */
export const jobIdOf = (...parts: Array<string | number>): string => parts.join('_').replace(/:/g, '-');

const LIVE_STATES = new Set(['waiting', 'delayed', 'active', 'prioritized', 'waiting-children']);

/**
 * Makes sure a job with `opts.jobId` is live (waiting, delayed or running). A job that already
 * finished under that id (completed, or failed after its attempts) is removed and added afresh —
 * BullMQ keeps finished ids (removeOnComplete/removeOnFail ages), and adding an id it still knows
 * is a silent no-op. Returns whether a job was (re-)added. Every handler is idempotent, so the rare
 * race of two sweepers (both add: BullMQ keeps one) or of a job finishing meanwhile is harmless.
 */
export async function ensureJob(queue: Queue, name: string, data: unknown, opts: JobsOptions & { jobId: string }): Promise<boolean> {
  const existing = await queue.getJob(opts.jobId);
  if (existing) {
    const state = await existing.getState();
    if (state === 'active') {
      // Running — unless its worker died: then its lock has expired and it is stalled; take it over.
      if (await isLocked(queue, opts.jobId)) return false;
    } else if (LIVE_STATES.has(state)) return false;
    try {
      await existing.remove();
    } catch {
      // Locked: it is running again, someone else revived it.
      return false;
    }
  }
  await queue.add(name, data, opts);
  return true;
}

async function isLocked(queue: Queue, jobId: string): Promise<boolean> {
  const client = await queue.getBackend().client;
  return (await client.get(`${queue.toKey(jobId)}:lock`)) !== null;
}

/**
 * One sweeper run: per platform group of `table` (platform-groups.ts: every platform on plain Postgres,
 * one shard's on Citus), `select` (inside a transaction, rows locked with FOR UPDATE SKIP LOCKED, the
 * statement naming its platforms with `platform_id = ANY(platforms)`) returns the due rows; `revive`
 * ensures each one's job. Returns how many jobs were re-added (not how many rows were looked at: the
 * loop then goes again at once only while lost work remains).
 */
export async function sweepDue<R>(
  deps: AppDeps,
  queue: string,
  table: string,
  select: (tx: Pick<AppDeps['prisma'], '$queryRaw'>, platforms: string[]) => Promise<R[]>,
  revive: (row: R) => Promise<boolean>,
): Promise<number> {
  const revived = await perPlatformGroup(deps.prisma, table, (platforms) =>
    deps.prisma.$transaction(async (tx) => {
      const rows = await select(tx, platforms);
      let n = 0;
      for (const row of rows) if (await revive(row)) n++;
      return n;
    }),
  );
  if (revived > 0) {
    deps.logger.warn({ queue, revived }, 're-enqueued due work that no live job held');
    await incrementCounter(deps, 'jobs_revived', queue, revived).catch(() => undefined);
  }
  return revived;
}

/** The rows a sweeper revives: `where` holds on them and their `due` column is older than the cutoff. */
export interface OverdueRows {
  table: string;
  /** The columns each row is read with (its job's data and id come from them). */
  columns: readonly string[];
  /** What makes a row owe work (a status, a recorded outcome), besides its platform and its due time. */
  where: Prisma.Sql;
  /** The timestamp column the row is due by; rows are taken oldest first. */
  due: string;
  /** How long after `due` a row counts as lost (its job should have run by then). */
  graceMs: number;
  batch: number;
}

/** A job to ensure: name, data and options with the producer's job id. */
export type JobSpec = [name: string, data: unknown, opts: JobsOptions & { jobId: string }];

/**
 * sweepDue for the common sweeper: rows matching `rows` whose `due` is `graceMs` past, locked SKIP LOCKED,
 * oldest first, at most `batch` per platform group; `job` says each one's job. Returns how many were re-added.
 */
export async function reviveOverdue<R>(deps: AppDeps, queue: string, rows: OverdueRows, job: (row: R) => JobSpec): Promise<number> {
  const cutoff = new Date(deps.clock.now().getTime() - rows.graceMs);
  const q = queueOf(deps, queue);
  const id = (name: string) => Prisma.raw(`"${sqlIdentifier(name)}"`);
  const due = id(rows.due);
  const columns = Prisma.join(rows.columns.map(id), ', ');
  return sweepDue(
    deps,
    queue,
    rows.table,
    (tx, platforms) => tx.$queryRaw<R[]>`
      SELECT ${columns} FROM ${id(rows.table)}
       WHERE platform_id = ANY(${platforms}) AND ${rows.where} AND ${due} < ${cutoff}
       ORDER BY ${due} LIMIT ${rows.batch} FOR UPDATE SKIP LOCKED`,
    (row) => ensureJob(q, ...job(row)),
  );
}

/** A row holding a liveness outcome the provider reported and the service has not applied yet. */
export interface RecordedOutcome {
  id: string;
  platform_id: string;
  liveness_outcome: 'PASSED' | 'FAILED';
}

/**
 * The rows of `table` (external-account challenges, SCA factor resets) in `status` with a recorded liveness
 * outcome, due by `due` JOB_SWEEP_GRACE_MS ago. `status` comes from code and is written as a literal (partial
 * indexes name it).
 */
export function recordedOutcomes(deps: AppDeps, table: string, status: string, due: string): OverdueRows {
  if (!/^[A-Z_]+$/.test(status)) throw new Error(`not a status: ${JSON.stringify(status)}`);
  return {
    table,
    columns: ['id', 'platform_id', 'liveness_outcome'],
    where: Prisma.sql`status = ${Prisma.raw(`'${status}'`)} AND liveness_outcome IS NOT NULL`,
    due,
    graceMs: deps.config.JOB_SWEEP_GRACE_MS,
    batch: deps.config.JOB_SWEEP_BATCH,
  };
}
