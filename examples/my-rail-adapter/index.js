// @ts-check
/**
 * A minimal third-party payment rail adapter for svc-payments: RTP payouts through a bank API.
 * Plug it in by configuration only:
 *
 *   RAIL_ADAPTERS=RTP:./examples/my-rail-adapter/index.js
 *   ADAPTER_MY_RAIL_SETTLE_MS=2000        # its own settings: ADAPTER_<ID>_<KEY>
 *
 * Check it with the contract suite: npm run adapter:test -- rail ./examples/my-rail-adapter/index.js
 *
 * Types come from the service package (`svc-payments/adapters`); nothing is imported at run time.
 * @typedef {import('svc-payments/adapters').RailAdapter} RailAdapter
 * @typedef {import('svc-payments/adapters').RailAdapterContext} RailAdapterContext
 * @typedef {import('svc-payments/adapters').PayoutResult} PayoutResult
 */
import { SimulatedBank } from './bank.js';

/** The id: settings are ADAPTER_MY_RAIL_*, webhooks arrive at /adapters/my-rail/webhooks. */
export const id = 'my-rail';
export const kind = 'rail';

/** The bank's states, mapped to ours. Anything else is PENDING: never guess an outcome. */
/** @type {Record<string, 'COMPLETED' | 'FAILED' | 'RETURNED' | undefined>} */
const STATES = { SETTLED: 'COMPLETED', REJECTED: 'FAILED', RETURNED: 'RETURNED' };

/** One bank per process (stands for the bank's own books; a real adapter keeps no state). */
const banks = new Map();

/**
 * @param {Record<string, string>} config  ADAPTER_MY_RAIL_* without the prefix
 * @param {RailAdapterContext} context
 * @returns {RailAdapter}
 */
export function create(config, context) {
  const settleMs = config.SETTLE_MS === undefined ? 1000 : Number(config.SETTLE_MS);
  if (!Number.isInteger(settleMs) || settleMs < 0) throw new Error(`ADAPTER_MY_RAIL_SETTLE_MS: must be a whole number of milliseconds, got "${config.SETTLE_MS}"`);
  const bank = banks.get(settleMs) ?? new SimulatedBank({ settleMs });
  banks.set(settleMs, bank);

  /** @returns {PayoutResult} */
  const toResult = (/** @type {{ id: string, state: string }} */ p) => {
    const status = STATES[p.state] ?? 'PENDING';
    if (status === 'FAILED') return { status, reference: p.id, failureReason: 'ACCOUNT_CANNOT_RECEIVE', retryable: false };
    if (status === 'RETURNED') return { status, reference: p.id, failureReason: 'PAYOUT_RETURNED', retryable: false };
    return status === 'PENDING' ? { status, reference: p.id, pollAfterMs: Math.max(50, Math.floor(settleMs / 4)) } : { status, reference: p.id };
  };

  return {
    id,
    rails: ['RTP'],
    expectedSettlementMs: settleMs,

    async submitPayout(req, opts) {
      const accountNumber = String(req.destination.accountInfo.accountNumber ?? '');
      try {
        return toResult(await bank.createPayment(req.idempotencyKey, req.amount, accountNumber, opts?.signal));
      } catch (err) {
        // The bank refused the request and moved nothing: final (the payment fails and is refunded).
        if (/** @type {{ code?: string }} */ (err).code === 'ACCOUNT_CLOSED') throw Object.assign(new Error('the bank refused the account'), { retryable: false });
        throw err; // anything else: unknown outcome, the service retries with the same key
      }
    },

    async getPayoutStatus(reference, opts) {
      const p = await bank.getPayment(reference, opts?.signal);
      // Unknown to the bank (yet): PENDING, never FAILED.
      return p ? toResult(p) : { status: 'PENDING', reference, pollAfterMs: 1000 };
    },

    async refundPayout(req, opts) {
      const r = await bank.returnPayment(req.idempotencyKey, req.reference, opts?.signal);
      return { status: r.state === 'DONE' ? 'COMPLETED' : 'PENDING', reference: r.id };
    },
  };
}

/** Fixtures for the contract suite (npm run adapter:test): which destinations complete and fail. */
export const contract = {
  rail: 'RTP',
  currency: 'USD',
  config: { SETTLE_MS: '100' },
  completes: { accountType: 'USD_ACCOUNT', accountInfo: { accountNumber: '123456789', routingNumber: '021000021' }, identifierLast3: '789' },
  fails: { accountType: 'USD_ACCOUNT', accountInfo: { accountNumber: '123456004', routingNumber: '021000021' }, identifierLast3: '004' },
  /** How often the bank really paid a key (the contract checks it is once). */
  payoutCount: async (/** @type {string} */ key) => [...banks.values()].reduce((n, b) => n + (b.paid.get(key) ?? 0), 0),
};
