import type { DomainModule } from '../../platform/module.js';
import { cardRoutes } from './cards.routes.js';
import { cardSpendingRoutes } from './card-spending.routes.js';
import { sweepCardStates, sweepProvisioning } from './card-issuing.service.js';
import { sweepCardTransactions } from './card-spending.service.js';

export const cardsModule: DomainModule = {
  name: 'cards',
  routes: async (api) => {
    await cardRoutes(api);
    await cardSpendingRoutes(api);
  },
  loops: [
    // Issue 27: cards the issuer has not finished provisioning, and authorizations past expiry / pulls due.
    { name: 'card-provisioning', intervalMs: (deps) => deps.config.CARD_SWEEP_INTERVAL_MS, batch: (deps) => deps.config.CARD_SWEEP_BATCH, run: (deps) => sweepProvisioning(deps, deps.config.CARD_SWEEP_BATCH) },
    { name: 'card-issuer-states', intervalMs: (deps) => deps.config.CARD_SWEEP_INTERVAL_MS, batch: (deps) => deps.config.CARD_SWEEP_BATCH, run: (deps) => sweepCardStates(deps, deps.config.CARD_SWEEP_BATCH) },
    { name: 'card-transactions', intervalMs: (deps) => deps.config.CARD_SWEEP_INTERVAL_MS, batch: (deps) => deps.config.CARD_SWEEP_BATCH, run: (deps) => sweepCardTransactions(deps, deps.config.CARD_SWEEP_BATCH) },
  ],
};

/** What other layers call: the inbound side of the card issuer port (adapter sinks) and the card transaction reads. */
export { authorizeCard, applyCardEvent, sweepCardTransactions } from './card-spending.service.js';
export { receiveProvisioned, sweepCardStates, sweepProvisioning } from './card-issuing.service.js';
export { cardTransactionById, cardTransactionsPage, withCardQuery, withCardTransactions } from './card-transactions.reads.js';
