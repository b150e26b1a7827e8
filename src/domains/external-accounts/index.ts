import type { DomainModule } from '../../platform/module.js';
import { EXTERNAL_ACCOUNTS_QUEUE } from './external-accounts.queue.js';
import { externalAccountRoutes } from './external-accounts.routes.js';
import { startExternalAccountsWorker } from './external-accounts.jobs.js';
import { sweepPendingChecks } from './external-accounts.service.js';
import { sweepLivenessOutcomes } from './ownership.service.js';
import { configureProviderCodes } from './account-types.js';

export const externalAccountsModule: DomainModule = {
  name: 'external-accounts',
  queues: [EXTERNAL_ACCOUNTS_QUEUE],
  routes: (api, deps) => {
    // Issue 25: the deployment's mobile-money operator names (MOBILE_MONEY_PROVIDERS), read when accounts are parsed.
    if (Object.keys(deps.config.MOBILE_MONEY_PROVIDERS).length > 0) configureProviderCodes(deps.config.MOBILE_MONEY_PROVIDERS);
    return externalAccountRoutes(api);
  },
  workers: (deps, connection) => [startExternalAccountsWorker(deps, connection)],
  loops: [
    {
      name: 'external-accounts-pending-sweep',
      intervalMs: (deps) => deps.config.EXTERNAL_ACCOUNT_SWEEP_INTERVAL_MS,
      run: sweepPendingChecks,
    },
    {
      // Issue 11: liveness outcomes recorded on their challenge whose job was lost.
      name: 'external-accounts-liveness-sweep',
      intervalMs: (deps) => deps.config.JOB_SWEEP_INTERVAL_MS,
      batch: (deps) => deps.config.JOB_SWEEP_BATCH,
      run: sweepLivenessOutcomes,
    },
  ],
};

/** What other domains call: payable accounts (payments, uma), accounts made for a quote or a bank link, liveness sessions. */
export {
  createExternalAccount, deleteExternalAccount, getDefaultUmaDepositAccount, getExternalAccount, getPayableExternalAccount, getPayoutDestination, getPayoutDestinations, runBeneficiaryCheck,
  type PayableExternalAccount,
} from './external-accounts.service.js';
export { externalAccountResource, livenessOutcomeBody, livenessParams, type ExternalAccountRecord } from './external-accounts.schemas.js';
export { beneficiaryRulesOf, requiredBeneficiaryFields } from './beneficiary.schemas.js';
export { getLivenessSession, receiveLivenessOutcome } from './ownership.service.js';
export { isValidBolt11, isValidEvmAddress, isValidSolanaAddress, isValidSparkAddress, isValidTronAddress } from './account-info.checksums.js';
// Issue 26: /agents/me/external-accounts (src/domains/agent-actions).
export { listCustomerExternalAccounts } from './external-accounts.service.js';
export { listCustomerAccountsQuery } from './external-accounts.schemas.js';
