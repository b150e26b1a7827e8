import type { DomainModule } from '../../platform/module.js';
import { internalAccountRoutes } from './internal-accounts.routes.js';

export const ledgerModule: DomainModule = {
  name: 'ledger',
  routes: (api) => internalAccountRoutes(api),
};
