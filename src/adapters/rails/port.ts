/**
 * A payment rail: how money leaves the service for an external destination. One implementation per
 * rail (or per group of rails), selected by configuration. Implementations are stateless (state,
 * if any, lives with the provider or in Redis/Postgres), receive our transaction id as their
 * idempotency key, and never guess an outcome: a status they do not recognise is PENDING.
 */
export type PayoutStatus = 'PENDING' | 'COMPLETED' | 'FAILED' | 'RETURNED';

export interface PayoutRequest {
  /** Our transaction id: submitting twice with the same id must not pay twice. */
  idempotencyKey: string;
  rail: string;
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

export interface PayoutResult {
  status: PayoutStatus;
  /** The provider's reference for status polls. */
  reference: string;
  /** For FAILED/RETURNED: one of the transaction failure reasons (decisions Part B §3.1). */
  failureReason?: string;
  /** For FAILED: whether the same request may succeed if tried again later. */
  retryable?: boolean;
  /** How long until a status poll is worth it. */
  pollAfterMs?: number;
}

export interface RefundResult {
  status: 'COMPLETED' | 'FAILED' | 'PENDING';
  reference: string;
}

export interface RailAdapter {
  id: string;
  /** Rails this adapter serves (ACH, WIRE, RTP, ...). */
  rails: readonly string[];
  submitPayout(req: PayoutRequest): Promise<PayoutResult>;
  getPayoutStatus(reference: string): Promise<PayoutResult>;
  /** Returns a failed or returned payout's funds; idempotent per idempotencyKey. */
  refundPayout(req: { idempotencyKey: string; reference: string; amount: bigint; currency: string }): Promise<RefundResult>;
}

export class RailError extends Error {
  constructor(message: string, readonly retryable: boolean) {
    super(message);
  }
}
