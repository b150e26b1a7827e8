import { AdapterCallError, type AdapterContext, type AdapterLifecycle, type CallOptions } from '../common.js';

/**
 * A payment rail: how money leaves the service for an external destination. One implementation per
 * rail (or per group of rails), selected by configuration (RAIL_ADAPTERS). Implementations are
 * stateless (state, if any, lives with the provider or in Redis/Postgres), receive our transaction
 * id as their idempotency key, and never guess an outcome: a status they do not recognise is PENDING.
 *
 * Life of a payout as the adapter sees it (docs/adapters.md "Payment rail"):
 *   1. submitPayout(req)            once per payment, repeated with the same idempotencyKey after a
 *                                   crash, a timeout or a thrown retryable error: pay at most once.
 *   2. getPayoutStatus(reference)   while PENDING (every pollAfterMs), and by reconciliation for a
 *                                   payment PROCESSING longer than expectedSettlementMs; after
 *                                   COMPLETED too when the answer carried pollAfterMs (bank returns).
 *      or context.reportPayoutStatus(report) whenever the provider tells you (push).
 *   3. refundPayout(req)            after FAILED or RETURNED, with idempotencyKey `<transaction id>:refund`.
 */
export const PAYOUT_STATUSES = ['PENDING', 'COMPLETED', 'FAILED', 'RETURNED'] as const;
export type PayoutStatus = (typeof PAYOUT_STATUSES)[number];

export interface PayoutRequest {
  /** Our transaction id: submitting twice with the same id must not pay twice. */
  idempotencyKey: string;
  rail: string;
  /** Minor units of `currency` (what the beneficiary receives). */
  amount: bigint;
  currency: string;
  destination: {
    accountType: string;
    accountInfo: Record<string, unknown>;
    /** Last three characters of the main identifier (sandbox magic values, decision A9). */
    identifierLast3: string;
  };
  remittanceInformation?: string | null;
  purposeOfPayment?: string | null;
}

/**
 * What the rail says about a payout.
 *   PENDING    not final; ask again after pollAfterMs (or report when the provider tells you)
 *   COMPLETED  the beneficiary was paid: the service settles the payment. Add pollAfterMs if a
 *              later bank return is still possible and should be watched for
 *   FAILED     final, nothing was paid: the service fails the payment and refunds the sender
 *   RETURNED   paid, then sent back by the receiving bank: the service reverses and refunds
 */
export interface PayoutResult {
  status: PayoutStatus;
  /** The provider's reference for status polls (stable for one idempotency key). */
  reference: string;
  /** For FAILED/RETURNED: one of the transaction failure reasons (decisions Part B §3.1). */
  failureReason?: string;
  /** For FAILED: whether a new payment to the same destination may succeed later (informational). */
  retryable?: boolean;
  /** How long until a status poll is worth it. */
  pollAfterMs?: number;
  /**
   * getPayoutStatus only, with status PENDING: the provider has no record of this payout (a 404 from
   * its API). Never a failure: the service keeps the payment PROCESSING and, once this lasts
   * PAYMENT_UNKNOWN_AFTER_MS after submission, reports it (pendingReason RAIL_PAYOUT_UNKNOWN).
   */
  notFound?: boolean;
}

/** An asynchronous outcome, pushed by the adapter through RailAdapterContext.reportPayoutStatus. */
export interface PayoutReport extends PayoutResult {
  /** Our transaction id (the submit's idempotency key): the surest way to name the payment. */
  idempotencyKey?: string;
}

export interface RefundRequest {
  /** `<transaction id>:refund`: repeated calls with it must move the money back once. */
  idempotencyKey: string;
  reference: string;
  amount: bigint;
  currency: string;
}

export interface RefundResult {
  /** PENDING: asked again later; COMPLETED: funds are back; FAILED: an operator resolves it. */
  status: 'COMPLETED' | 'FAILED' | 'PENDING';
  reference: string;
}

export interface StatusOptions extends CallOptions {
  /** Our transaction id, for providers that look payouts up by our key rather than theirs. */
  idempotencyKey?: string;
}

export interface RailAdapter extends AdapterLifecycle {
  id: string;
  /** Rails this adapter can serve (ACH, WIRE, RTP, ...); absent: any rail it is configured for. */
  rails?: readonly string[];
  /**
   * `poll` (default): the service polls PENDING payouts as pollAfterMs says. `push`: the adapter
   * reports outcomes through context.reportPayoutStatus and the service only polls in reconciliation.
   */
  statusDelivery?: 'poll' | 'push';
  /** How long a payout normally takes, per rail or for all: reconciliation asks after that. */
  expectedSettlementMs?: number | Readonly<Record<string, number>>;
  submitPayout(req: PayoutRequest, opts?: CallOptions): Promise<PayoutResult>;
  /**
   * Optional: several payouts in one call (the payments worker's batches, when the provider takes
   * them). One answer per request, in the same order, each exactly what submitPayout would have
   * answered for it — the same idempotency rules per request. A thrown error leaves every request of
   * the call unanswered: each is then submitted on its own with submitPayout. Absent: submitPayout
   * per payout.
   */
  submitPayouts?(reqs: readonly PayoutRequest[], opts?: CallOptions): Promise<PayoutResult[]>;
  /** A reference the provider does not know reads as PENDING (with notFound: true), never FAILED. */
  getPayoutStatus(reference: string, opts?: StatusOptions): Promise<PayoutResult>;
  /**
   * Optional: the status of several payouts in one call (the payments worker's poll batches, issue 24).
   * One answer per reference, in the same order, each what getPayoutStatus would have answered. A thrown
   * error leaves every payout of the call unanswered: each is then asked on its own. Absent:
   * getPayoutStatus per payout.
   */
  getPayoutStatuses?(queries: ReadonlyArray<{ reference: string; idempotencyKey: string }>, opts?: CallOptions): Promise<PayoutResult[]>;
  /** Returns a failed or returned payout's funds; idempotent per idempotencyKey. */
  refundPayout(req: RefundRequest, opts?: CallOptions): Promise<RefundResult>;
  /**
   * Optional (crypto rails, issue 25): what sending `amount` of `currency` to `destinationAddress` on `network` would
   * cost on chain now. Informational (POST /crypto/estimate-withdrawal-fee): nothing is reserved or sent. Absent: the
   * service answers 501 for the estimate.
   */
  estimateNetworkFee?(req: NetworkFeeRequest, opts?: CallOptions): Promise<NetworkFeeEstimate>;
}

export interface NetworkFeeRequest {
  /** REF's cryptoNetwork: SOLANA, ETHEREUM, BASE, POLYGON, TRON, PLASMA, SPARK, LIGHTNING, BITCOIN. */
  network: string;
  currency: string;
  /** Minor units of `currency`. */
  amount: bigint;
  destinationAddress: string;
}

export interface NetworkFeeEstimate {
  /** In the smallest unit of networkFeeAsset (lamports, wei, sun, sats). */
  networkFee: bigint;
  /** The asset the chain is paid in (SOL, ETH, POL, TRX, XPL, BTC). */
  networkFeeAsset: string;
  /** The same fee in minor units of the withdrawal currency, at the adapter's current rate (rounded up). */
  networkFeeInCurrency: bigint;
}

/** What reportPayoutStatus says about a report. */
export type PayoutReportReceipt = 'ACCEPTED' | 'UNKNOWN_PAYOUT';

export interface RailAdapterContext extends AdapterContext {
  /**
   * Hands the service an outcome the provider pushed (a webhook, a message). Resolves once the report
   * is queued: it is applied through the same code as a poll, so a duplicate or stale report changes
   * nothing. `UNKNOWN_PAYOUT` when no payment of a rail this adapter serves matches.
   */
  reportPayoutStatus(report: PayoutReport): Promise<PayoutReportReceipt>;
}

/**
 * Thrown by an adapter when a call did not produce an answer. `retryable: true` (or any other
 * error, a timeout included): the outcome is unknown and the service repeats the same call with the
 * same idempotency key later. `retryable: false` on submitPayout: the provider refused the request
 * and nothing was sent, so the payment fails (QUOTE_EXECUTION_FAILED) and is refunded.
 */
export class RailError extends AdapterCallError {
  override readonly name = 'RailError';
}
