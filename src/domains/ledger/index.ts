import type { DomainModule } from '../../platform/module.js';
import { internalAccountRoutes } from './internal-accounts.routes.js';

export const ledgerModule: DomainModule = {
  name: 'ledger',
  routes: (api) => internalAccountRoutes(api),
};

/** What other domains call: journals (only the ledger writes balances; the one-statement path builds its CTEs here) and internal accounts. */
export { InsufficientFundsError, postJournal } from './ledger.service.js';
export { systemAccount, type Posting } from './ledger.model.js';
export { getInternalAccount, openInternalAccounts } from './internal-accounts.service.js';
export { internalAccountResource } from './internal-accounts.resource.js';
export { gatedJournalCtes, journalsCtes } from './ledger.sql.js';
export { assertAccountsCanMove, operatorSetInternalAccountStatus, type MovingAccount } from './internal-accounts.status.js';
export { type InternalAccountStatus } from './internal-accounts.model.js';
// Issue 26: GET /agents/me/internal-accounts (src/domains/agent-actions).
export { listCustomerInternalAccounts } from './internal-accounts.service.js';
export { customerAccountsQuery } from './internal-accounts.routes.js';
