import type { AppDeps } from '../../deps.js';
import { queueOf } from '../../platform/queue.js';

/** The module's BullMQ queue and its job payloads (producers here, processors in external-accounts.jobs.ts). */

export const EXTERNAL_ACCOUNTS_QUEUE = 'external-accounts';

export interface BeneficiaryCheckJob {
  platformId: string;
  accountId: string;
}

export interface LivenessOutcomeJob {
  platformId: string;
  challengeId: string;
  outcome: 'PASSED' | 'FAILED';
}

/** BullMQ forbids ':' in custom job ids. */
const jobId = (...parts: string[]) => parts.join('_').replace(/:/g, '-');
export const beneficiaryCheckJobId = (accountId: string, round = '0') => jobId('bc', accountId, round);
export const livenessOutcomeJobId = (challengeId: string) => jobId('lv', challengeId);
export const JOB_OPTIONS = { attempts: 5, backoff: { type: 'exponential' as const, delay: 1000 } };

/**
 * Queues the beneficiary check (A11); Postgres records it as owed (beneficiary_verification_status PENDING).
 * `round` distinguishes a provider's push from the first one; the sweeper re-adds round 0 when it is
 * no longer live (ensureJob removes a finished one first).
 */
export async function enqueueBeneficiaryCheck(deps: AppDeps, job: BeneficiaryCheckJob, round = '0'): Promise<void> {
  await queueOf(deps, EXTERNAL_ACCOUNTS_QUEUE).add('beneficiary-check', job, { jobId: beneficiaryCheckJobId(job.accountId, round), ...JOB_OPTIONS });
}

/** Queues a liveness outcome already recorded on its challenge (liveness_outcome), so a lost job is re-added by the sweeper. */
export async function enqueueLivenessOutcome(deps: AppDeps, job: LivenessOutcomeJob): Promise<void> {
  await queueOf(deps, EXTERNAL_ACCOUNTS_QUEUE).add('liveness-outcome', job, { jobId: livenessOutcomeJobId(job.challengeId), ...JOB_OPTIONS });
}
