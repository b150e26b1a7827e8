import { queuePrefix } from '../../platform/queue.js';
import { Worker, type ConnectionOptions, type Job } from 'bullmq';
import type { AppDeps } from '../../deps.js';
import { EXTERNAL_ACCOUNTS_QUEUE, type BeneficiaryCheckJob, type LivenessOutcomeJob } from './external-accounts.queue.js';
import { runBeneficiaryCheck } from './external-accounts.service.js';
import { applyLivenessOutcome } from './ownership.service.js';
import { currentJobData } from '../../platform/ids.js';

/** Jobs in flight per worker process: each is a short provider call plus one transaction. */
const CONCURRENCY = 8;

export function startExternalAccountsWorker(deps: AppDeps, connection: ConnectionOptions): Worker {
  return new Worker(
    EXTERNAL_ACCOUNTS_QUEUE,
    async (job: Job) => {
      if (job.name === 'beneficiary-check') {
        const data = currentJobData(job.data as BeneficiaryCheckJob);
        return runBeneficiaryCheck(deps, data.platformId, data.accountId);
      }
      if (job.name === 'liveness-outcome') {
        const data = currentJobData(job.data as LivenessOutcomeJob);
        return applyLivenessOutcome(deps, data.platformId, data.challengeId, data.outcome);
      }
      throw new Error(`unknown job ${job.name} on ${EXTERNAL_ACCOUNTS_QUEUE}`);
    },
    { connection, prefix: queuePrefix(deps.config), concurrency: CONCURRENCY },
  );
}
