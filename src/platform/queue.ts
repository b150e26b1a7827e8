import { Queue, type ConnectionOptions, type JobsOptions } from 'bullmq';

export type Queues = Record<string, Queue>;

/** Completed and failed jobs are kept a bounded time so duplicate job ids stay deduplicated. */
export const DEFAULT_JOB_OPTIONS: JobsOptions = {
  removeOnComplete: { age: 24 * 3600, count: 100_000 },
  removeOnFail: { age: 7 * 24 * 3600 },
};

/**
 * BullMQ's key prefix: `{<REDIS_PREFIX>}:bull`. The braces are a Redis Cluster hash tag: every key
 * of every queue hashes to one slot, so BullMQ's multi-key scripts work on a cluster (CROSSSLOT
 * otherwise). Queues and workers must use the same prefix.
 */
export function queuePrefix(config: { REDIS_PREFIX: string }): string {
  return `{${config.REDIS_PREFIX}}:bull`;
}

export function createQueues(names: readonly string[], connection: ConnectionOptions, prefix: string): Queues {
  const out: Queues = {};
  for (const name of names) {
    out[name] = new Queue(name, { connection, prefix: queuePrefix({ REDIS_PREFIX: prefix }), defaultJobOptions: DEFAULT_JOB_OPTIONS });
    // A queue re-emits its connection's errors on every reconnection attempt; the process's own Redis
    // client (createRedis) reports the outage once, so the queue's copies are dropped here.
    out[name].on('error', () => undefined);
  }
  return out;
}

/** The queue a module declared; a typo fails loudly at the first use instead of dropping work. */
export function queueOf(deps: { queues: Queues }, name: string): Queue {
  const q = deps.queues[name];
  if (!q) throw new Error(`queue ${name} is not declared by any module`);
  return q;
}

export async function closeQueues(queues: Queues): Promise<void> {
  await Promise.all(Object.values(queues).map((q) => q.close()));
}
