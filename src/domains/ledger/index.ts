import type { DomainModule } from '../../platform/module.js';
import { internalAccountRoutes } from './internal-accounts.routes.js';

export const ledgerModule: DomainModule = {
  name: 'ledger',
  routes: (api) => internalAccountRoutes(api),
};

export { InsufficientFundsError, postJournal } from './ledger.service.js';
export { internalAccountResource } from './internal-accounts.resource.js';
export { journalCtes } from './ledger.sql.js';
