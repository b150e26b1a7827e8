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

/** Bounded retries of a failing provider call; the PENDING sweep picks up whatever still remains. */
const ATTEMPTS = 5;
const BACKOFF = { type: 'exponential', delay: 1000 } as const;

/**
 * Queues the beneficiary check (A11). `round` distinguishes a sweep's re-queue from the first one: BullMQ keeps
 * finished job ids for a day, so reusing one would be a silent no-op.
 */
export async function enqueueBeneficiaryCheck(deps: AppDeps, job: BeneficiaryCheckJob, round = '0'): Promise<void> {
  await queueOf(deps, EXTERNAL_ACCOUNTS_QUEUE).add('beneficiary-check', job, { jobId: jobId('bc', job.accountId, round), attempts: ATTEMPTS, backoff: BACKOFF });
}

export async function enqueueLivenessOutcome(deps: AppDeps, job: LivenessOutcomeJob): Promise<void> {
  await queueOf(deps, EXTERNAL_ACCOUNTS_QUEUE).add('liveness-outcome', job, { jobId: jobId('lv', job.challengeId), attempts: ATTEMPTS, backoff: BACKOFF });
}
