import type { JobsOptions, Queue } from 'bullmq';
import type { AppDeps } from '../deps.js';
import { incrementCounter } from './metrics.js';
import { perPlatformGroup } from './platform-groups.js';

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
