import type { DomainModule } from '../../platform/module.js';
import { internalAccountRoutes } from './internal-accounts.routes.js';

export const ledgerModule: DomainModule = {
  name: 'ledger',
  routes: (api) => internalAccountRoutes(api),
};

/** What other domains call: journals (only the ledger writes balances) and internal accounts. */
export { postJournal } from './ledger.service.js';
export { systemAccount, type Posting } from './ledger.model.js';
export { getInternalAccount, openInternalAccounts } from './internal-accounts.service.js';
