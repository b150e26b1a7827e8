import type { DomainModule } from '../../platform/module.js';
import { umaRoutes } from './uma.routes.js';
import { umaProviderRoutes } from './uma.providers.js';

/** UMA receiver lookups, payments to UMA addresses (with quotes) and incoming UMA payments (issue 6). */
export const umaModule: DomainModule = {
  name: 'uma',
  routes: async (api) => {
    await umaRoutes(api);
    await umaProviderRoutes(api);
  },
};
