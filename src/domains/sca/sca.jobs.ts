import { queuePrefix } from '../../platform/queue.js';
import { Worker, type ConnectionOptions, type Job } from 'bullmq';
import type { AppDeps } from '../../deps.js';
import { SCA_QUEUE, type ResetLivenessOutcomeJob } from './sca.queue.js';
import { applyResetLivenessOutcome } from './reset.service.js';
import { currentJobData } from '../../platform/ids.js';

/** Jobs in flight per worker process: each is one short transaction. */
const CONCURRENCY = 8;

export function startScaWorker(deps: AppDeps, connection: ConnectionOptions): Worker {
  return new Worker(
    SCA_QUEUE,
    async (job: Job) => {
      if (job.name === 'reset-liveness-outcome') {
        const data = currentJobData(job.data as ResetLivenessOutcomeJob);
        return applyResetLivenessOutcome(deps, data.platformId, data.resetId, data.outcome);
      }
      throw new Error(`unknown job ${job.name} on ${SCA_QUEUE}`);
    },
    { connection, prefix: queuePrefix(deps.config), concurrency: CONCURRENCY },
  );
}
