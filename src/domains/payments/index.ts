import type { DomainModule } from '../../platform/module.js';
import { quoteRoutes } from './quotes.routes.js';
import { quoteListRoutes } from './quotes.list.js';
import { transactionRoutes } from './transactions.routes.js';
import { PAYMENTS_QUEUE, startPaymentsWorker, sweepPayments, sweepPaymentWork } from './transactions.jobs.js';

/** The payments domain (issue 12): quotes and the transactions they execute into. */
export const quotesModule: DomainModule = {
  name: 'quotes',
  routes: async (api) => {
    await quoteRoutes(api);
    await quoteListRoutes(api);
  },
};

export const transactionsModule: DomainModule = {
  name: 'transactions',
  queues: [PAYMENTS_QUEUE],
  routes: (api) => transactionRoutes(api),
  workers: (deps, connection) => [startPaymentsWorker(deps, connection)],
  loops: [
    {
      name: 'payments-sweep',
      intervalMs: (deps) => deps.config.QUOTE_EXPIRY_SWEEP_INTERVAL_MS,
      batch: (deps) => deps.config.QUOTE_EXPIRY_SWEEP_BATCH,
      run: sweepPayments,
    },
    {
      // Issue 11: lost submissions and refunds re-enqueued from Postgres; reconciliation with the rails.
      name: 'payments-reconcile',
      intervalMs: (deps) => deps.config.PAYMENT_RECONCILE_INTERVAL_MS,
      batch: (deps) => deps.config.PAYMENT_RECONCILE_BATCH,
      run: sweepPaymentWork,
    },
  ],
};
