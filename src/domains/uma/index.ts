import type { DomainModule } from '../../platform/module.js';
import { umaRoutes } from './uma.routes.js';

/** UMA receiver lookups, payments to UMA addresses (with quotes) and incoming UMA payments (issue 6). */
export const umaModule: DomainModule = {
  name: 'uma',
  routes: (api) => umaRoutes(api),
};
