import type { DomainModule } from '../../platform/module.js';
import { umaRoutes } from './uma.routes.js';
import { umaProviderRoutes } from './uma.providers.js';

/**
 * UMA receiver lookups, payments to UMA addresses (with quotes) and incoming UMA payments (issue 6). This domain
 * only talks UMA; the payments domain prices, executes and records the payments.
 */
export const umaModule: DomainModule = {
  name: 'uma',
  routes: async (api) => {
    await umaRoutes(api);
    await umaProviderRoutes(api);
  },
};

/** What other domains and the wiring call: UMA addresses, the sandbox's incoming payment, quotes' UMA destinations (bound in src/modules.ts). */
export { normalizeUmaAddress } from './uma.model.js';
export { receiveSandboxUmaPayment } from './uma.incoming.js';
export { umaDestinations } from './uma.destinations.js';
