/**
 * `failureReason` on the wire (issue 13): REF's enums, whatever the server recorded. The server
 * records finer causes of its own (`USER_CANCELLATION`, `PLATFORM_REJECTED`, or what a rail
 * adapter reported); where REF has no such value the payment is served with REF's catch-all
 * `QUOTE_EXECUTION_FAILED` ("could not be executed … a debited amount is refunded automatically")
 * and the recorded cause in `failureDetail`, so both forms reach the platform
 * (docs/decisions.md "Issue 13 — failure reasons"). Pure; no I/O.
 */

/**
 * REF's OutgoingTransactionFailureReason (its OpenAPI), plus `TIMEOUT`, which its client's enum
 * (`@lightsparkdev/grid` 0.7.0) still lists.
 */
export const REF_OUTGOING_FAILURE_REASONS = [
  'QUOTE_EXPIRED',
  'QUOTE_RATE_UNAVAILABLE',
  'QUOTE_EXECUTION_FAILED',
  'FUNDING_AMOUNT_MISMATCH',
  'SCA_NOT_COMPLETED',
  'PAYOUT_RETURNED',
  'LIMIT_EXCEEDED',
  'ACCOUNT_CANNOT_RECEIVE',
  'ACCOUNT_INVALID',
  'COMPLIANCE_REJECTED',
  'LIGHTNING_PAYMENT_FAILED',
  'COUNTERPARTY_POST_TX_FAILED',
  'TIMEOUT',
] as const;

/** REF's IncomingTransactionFailureReason. */
export const REF_INCOMING_FAILURE_REASONS = [
  'LNURLP_FAILED',
  'PAY_REQUEST_FAILED',
  'PAYMENT_APPROVAL_WEBHOOK_ERROR',
  'PAYMENT_APPROVAL_TIMED_OUT',
  'OFFRAMP_FAILED',
  'MISSING_MANDATORY_PAYEE_DATA',
  'QUOTE_EXPIRED',
  'QUOTE_EXECUTION_FAILED',
  'COMPLIANCE_REJECTED',
  'COLLECTION_FAILED',
] as const;

/** In both of REF's enums. */
export const REF_FALLBACK_FAILURE_REASON = 'QUOTE_EXECUTION_FAILED';

export interface WireFailureReason {
  failureReason?: string;
  /** The recorded cause, only where it is not REF's value. */
  failureDetail?: string;
}

export function wireFailureReason(type: string, recorded: string | null): WireFailureReason {
  if (!recorded) return {};
  const refValues: readonly string[] = type === 'INCOMING' ? REF_INCOMING_FAILURE_REASONS : REF_OUTGOING_FAILURE_REASONS;
  if (refValues.includes(recorded)) return { failureReason: recorded };
  return { failureReason: REF_FALLBACK_FAILURE_REASON, failureDetail: recorded };
}
