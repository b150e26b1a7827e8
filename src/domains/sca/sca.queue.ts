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
export const resetOutcomeJobId = (resetId: string) => jobId('rl', resetId);
export const RESET_JOB_OPTIONS = { attempts: 5, backoff: { type: 'exponential' as const, delay: 1000 } };

/** The verdict is recorded on the reset (liveness_outcome, review_due_at) before this is queued. */
export async function enqueueResetLivenessOutcome(deps: AppDeps, job: ResetLivenessOutcomeJob): Promise<void> {
  await queueOf(deps, SCA_QUEUE).add('reset-liveness-outcome', job, {
    jobId: resetOutcomeJobId(job.resetId),
    delay: deps.config.SCA_RESET_REVIEW_DELAY_MS,
    ...RESET_JOB_OPTIONS,
  });
}
