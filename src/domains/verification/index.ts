import type { DomainModule } from '../../platform/module.js';
import { hostedKycRoutes } from './hosted.routes.js';
import { KYC_QUEUE, reconcileOpenCases, startDecisionWorker } from './verification.jobs.js';
import { verificationRoutes } from './verification.routes.js';

export const verificationModule: DomainModule = {
  name: 'verification',
  queues: [KYC_QUEUE],
  routes: (api, deps) => verificationRoutes(api, deps),
  publicRoutes: (app, deps) => hostedKycRoutes(app, deps),
  workers: (deps, connection) => [startDecisionWorker(deps, connection)],
  loops: [{ name: 'kyc-reconcile', intervalMs: (deps) => deps.config.KYC_RECONCILE_INTERVAL_MS, run: reconcileOpenCases }],
};
