import type { AppDeps } from '../../deps.js';
import { queueOf } from '../../platform/queue.js';

/** The SCA module's BullMQ queue and its job payloads (processors in sca.jobs.ts). */
export const SCA_QUEUE = 'sca';

export interface ResetLivenessOutcomeJob {
  platformId: string;
  resetId: string;
  outcome: 'PASSED' | 'FAILED';
}

/** BullMQ forbids ':' in custom job ids. */
const jobId = (...parts: string[]) => parts.join('_').replace(/:/g, '-');

export async function enqueueResetLivenessOutcome(deps: AppDeps, job: ResetLivenessOutcomeJob): Promise<void> {
  await queueOf(deps, SCA_QUEUE).add('reset-liveness-outcome', job, {
    jobId: jobId('rl', job.resetId),
    delay: deps.config.SCA_RESET_REVIEW_DELAY_MS,
    attempts: 5,
    backoff: { type: 'exponential', delay: 1000 },
  });
}
