import { Queue, type ConnectionOptions, type JobsOptions } from 'bullmq';

/** Every BullMQ queue of the service. A domain adds its queue here and its processor in <d>.jobs.ts. */
export const QUEUE_NAMES = ['webhooks'] as const;
export type QueueName = (typeof QUEUE_NAMES)[number];

export type Queues = Record<QueueName, Queue>;

/** Completed and failed jobs are kept a bounded time so duplicate job ids stay deduplicated. */
export const DEFAULT_JOB_OPTIONS: JobsOptions = {
  removeOnComplete: { age: 24 * 3600, count: 100_000 },
  removeOnFail: { age: 7 * 24 * 3600 },
};

export function createQueues(connection: ConnectionOptions, prefix: string): Queues {
  const out = {} as Queues;
  for (const name of QUEUE_NAMES) {
    out[name] = new Queue(name, { connection, prefix: `${prefix}:bull`, defaultJobOptions: DEFAULT_JOB_OPTIONS });
  }
  return out;
}

export async function closeQueues(queues: Queues): Promise<void> {
  await Promise.all(Object.values(queues).map((q) => q.close()));
}
