import type { DomainModule } from '../../platform/module.js';
import { quoteRoutes } from './quotes.routes.js';
import { quoteListRoutes } from './quotes.list.js';
import { transactionRoutes } from './transactions.routes.js';
import { PAYMENTS_QUEUE, startPaymentsWorker, sweepPayments, sweepPaymentWork } from './transactions.jobs.js';
import { expireQuoteAuthorizations } from './quotes.authorization.js';
import { expireIncomingApprovals } from './incoming-approval.js';

/**
 * The payments domain (issue 12): quotes and the transactions they execute into — pricing, the one entry point
 * that begins an execution (`beginExecution`), the posting rules of hold, settlement, refund and fee reversal,
 * settlement and reconciliation with the rails, and the routes /quotes* and /transactions*. Other domains use
 * only what this file exports; see docs/decisions.md "Payments domain and module boundaries".
 */
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
    {
      // A payment whose SCA challenge expired unanswered fails (SCA_NOT_COMPLETED); src/domains/sca expires login challenges.
      name: 'payments-authorization-expiry',
      intervalMs: (deps) => deps.config.SCA_SWEEP_INTERVAL_MS,
      batch: (deps) => deps.config.SCA_SWEEP_BATCH,
      run: expireQuoteAuthorizations,
    },
    {
      // Issue 25 (25c): incoming payments whose platform let the approval window pass are REJECTED.
      name: 'payments-incoming-approval-expiry',
      intervalMs: (deps) => Math.min(deps.config.QUOTE_EXPIRY_SWEEP_INTERVAL_MS, deps.config.INCOMING_APPROVAL_WINDOW_MS),
      batch: (deps) => deps.config.QUOTE_EXPIRY_SWEEP_BATCH,
      run: expireIncomingApprovals,
    },
  ],
};

/** Beginning an execution: funding (a real-time deposit) calls it; quotes, SCA authorization, approvals and incoming payments here do. */
export { beginExecution, createQuote, getQuote, type ExecutionStart, type ExecutionTrigger } from './quotes.service.js';
export type { CreateQuoteBody } from './quotes.schemas.js';
export { PURPOSES_OF_PAYMENT } from './quotes.schemas.js';
export { getTransaction } from './transactions.service.js';
export { transactionResource } from './transactions.resource.js';
/** Incoming payments (uma). */
export { creditIncomingPayment, receiveIncomingPayment, type IncomingPayment } from './transactions.incoming.js';
/** Pay-in coordinates (src/domains/collection, issue 26): a credit that could not be applied (COLLECTION_FAILED). */
export { recordFailedIncoming } from './transactions.incoming.js';
/** The port src/domains/uma implements for quotes to UMA addresses, bound by src/modules.ts. */
export { bindUmaDestinations, type ResolvedDestination, type StoredUmaPayment, type UmaCurrencyLimits, type UmaDestinations } from './quotes.destinations.js';
/** Payout outcomes pushed by rail adapters (src/adapter-sinks.ts). */
export { receivePayoutReport } from './payout-reports.js';
// Issue 26: the agent side (/agents/me/*) and platform approvals of agent actions (src/domains/agent-actions).
export { executeQuote } from './quotes.service.js';
export { quoteResource } from './quotes.resource.js';
export { createQuoteFromRequest } from './quotes.inline-destination.js';
export { listTransactions } from './transactions.service.js';
export { listQuery as listTransactionsQuery } from './transactions.routes.js';
export { rejectTransaction } from './approvals.service.js';
