import type { DomainModule } from '../../platform/module.js';
import { scaRoutes } from './sca.routes.js';
import { SCA_QUEUE } from './sca.queue.js';
import { startScaWorker } from './sca.jobs.js';
import { expireScaChallenges } from './authorization.service.js';
import { expireResets, sweepResetReviews } from './reset.service.js';

export const scaModule: DomainModule = {
  name: 'sca',
  queues: [SCA_QUEUE],
  routes: (api) => scaRoutes(api),
  workers: (deps, connection) => [startScaWorker(deps, connection)],
  loops: [
    { name: 'sca-challenge-expiry', intervalMs: (deps) => deps.config.SCA_SWEEP_INTERVAL_MS, batch: (deps) => deps.config.SCA_SWEEP_BATCH, run: expireScaChallenges },
    { name: 'sca-reset-expiry', intervalMs: (deps) => deps.config.SCA_SWEEP_INTERVAL_MS, batch: (deps) => deps.config.SCA_SWEEP_BATCH, run: expireResets },
    // Issue 11: factor-reset reviews whose job was lost (the verdict is recorded on the reset).
    { name: 'sca-reset-review-sweep', intervalMs: (deps) => deps.config.JOB_SWEEP_INTERVAL_MS, batch: (deps) => deps.config.JOB_SWEEP_BATCH, run: sweepResetReviews },
  ],
};

/**
 * What other domains call: payments (sessions, and a payment's challenge: open, show, verify, consume, resend,
 * expire), the liveness page and sinks (reset outcomes).
 */
export { requireScaSession } from './login.service.js';
export {
  dueQuoteChallenges, expireQuoteChallenge, openQuoteChallenge, quoteChallengeConsumption, quoteScaChallenge, resendQuoteChallenge, verifyQuoteChallenge,
  type QuoteChallengeRequest, type VerifiedQuoteChallenge,
} from './authorization.service.js';
export { authorizeBody } from './sca.schemas.js';
export { getResetLivenessSession, receiveResetLivenessOutcome } from './reset.service.js';
