import type { DomainModule } from '../../platform/module.js';
import { stablecoinRoutes } from './stablecoin.routes.js';
import { issuanceRoutes } from './issuance.routes.js';
import { expireOperations, reconcileOperations, reverifyCredentials } from './issuance.jobs.js';

/** Stablecoin enablement (decision A16) and issuance through a provider (issue 26, REF "Stablecoins"). */
export const stablecoinModule: DomainModule = {
  name: 'stablecoin',
  routes: async (api) => {
    await stablecoinRoutes(api);
    await issuanceRoutes(api);
  },
  loops: [
    { name: 'stablecoin-operations-reconcile', intervalMs: (deps) => deps.config.STABLECOIN_RECONCILE_INTERVAL_MS, batch: (deps) => deps.config.STABLECOIN_RECONCILE_BATCH, run: reconcileOperations },
    { name: 'stablecoin-operations-expire', intervalMs: (deps) => deps.config.STABLECOIN_RECONCILE_INTERVAL_MS, batch: (deps) => deps.config.STABLECOIN_RECONCILE_BATCH, run: expireOperations },
    { name: 'stablecoin-credentials-reverify', intervalMs: (deps) => Math.min(deps.config.STABLECOIN_CREDENTIAL_CHECK_INTERVAL_MS, 60_000), batch: (deps) => deps.config.STABLECOIN_RECONCILE_BATCH, run: reverifyCredentials },
  ],
};

/** What the adapter sinks call: a provider's push about an operation. */
export { receiveIssuerReport } from './operations.service.js';
