/**
 * A UMA counterparty: who answers for the receiving side of a UMA address. Two calls, in our
 * vocabulary (the spec's §9.1 lookup and the pay request behind a UMA quote):
 *   lookup      LNURL-p: does the receiver exist, which currencies, limits and payer data it takes
 *   payRequest  the UMA pay request: the receiver's terms for an exact amount and a Lightning invoice
 * Settlement then pays that invoice over the LIGHTNING rail (src/domains/uma/uma.settlement.ts).
 * Implementations are stateless; failures are UmaCounterpartyError with the spec's code.
 */
/** Bounds one outbound call (hand the signal to fetch). */
export interface CallOptions {
  signal?: AbortSignal;
}

/** One currency the receiver takes (UMA `currencies[]`); amounts in its minor units. */
export interface UmaCurrencyOption {
  code: string;
  decimals: number;
  /** Millisatoshis per minor unit of the currency (UMA `multiplier`). */
  multiplier: number;
  min: bigint;
  max: bigint;
}

/** A payer-data field the receiver asks for, named in the spec's CustomerInfoFieldName vocabulary. */
export interface PayerDataField {
  name: string;
  mandatory: boolean;
}

export interface UmaReceiver {
  receiverUmaAddress: string;
  currencies: UmaCurrencyOption[];
  requiredPayerDataFields: PayerDataField[];
  /** What the pay request needs later (callback, keys, version); stored with the lookup, never returned. */
  counterparty: Record<string, unknown>;
}

export interface UmaLookupRequest {
  receiverUmaAddress: string;
  senderUmaAddress: string;
}

export interface UmaPayRequest {
  /** Our quote id: a repeated pay request for one quote must not create a second payment. */
  idempotencyKey: string;
  receiverUmaAddress: string;
  senderUmaAddress: string;
  counterparty: Record<string, unknown>;
  /** The receiving currency and the exact amount the receiver gets, in its minor units. */
  currency: string;
  amount: bigint;
  /** Payer data keyed by CustomerInfoFieldName (FULL_NAME, BIRTH_DATE, ...). */
  payerData: Record<string, string>;
}

export interface UmaPayTerms {
  /** BOLT11 invoice the sender pays to settle. */
  invoice: string;
  /** Millisatoshis the invoice asks for (amount × multiplier + receiver fee). */
  amountMsats: bigint;
  multiplier: number;
  receiverFeeMsats: bigint;
  /** Until when the receiver holds these terms. */
  expiresAt: Date;
  /** Data the receiver gave about itself (payee data), shown as the transaction's counterpartyInformation. */
  counterpartyInformation?: Record<string, unknown>;
}

/**
 * A refusal or failure with the spec's code (Errors 400/404/412/424 and decisions B§9.1):
 * UMA_NOT_FOUND 404; INVALID_UMA_ADDRESS, LOOKUP_REQUEST_FAILED, PARSE_LNURLP_RESPONSE_ERROR, INVALID_RECEIVER,
 * CERT_CHAIN_INVALID, CERT_CHAIN_EXPIRED, INVALID_PUBKEY_FORMAT, MISSING_REQUIRED_UMA_PARAMETERS, SENDER_NOT_ACCEPTED,
 * INVALID_PAYREQ_RESPONSE, PARSE_PAYREQ_RESPONSE_ERROR, AMOUNT_OUT_OF_RANGE, INVALID_CURRENCY 400;
 * UNSUPPORTED_UMA_VERSION 412; LNURLP_REQUEST_FAILED, COUNTERPARTY_PUBKEY_FETCH_ERROR, NO_COMPATIBLE_UMA_VERSION,
 * PAYREQ_REQUEST_FAILED 424.
 */
export class UmaCounterpartyError extends Error {
  constructor(
    readonly code: string,
    readonly httpStatus: 400 | 404 | 412 | 424,
    message: string,
    /** Whether the same call may succeed later (the counterparty was unreachable). */
    readonly retryable = false,
  ) {
    super(message);
    this.name = 'UmaCounterpartyError';
  }
}

export interface UmaCounterpartyAdapter {
  /** `sandbox`, `uma-protocol` or an operator module's id. */
  id: string;
  lookup(req: UmaLookupRequest, opts?: CallOptions): Promise<UmaReceiver>;
  payRequest(req: UmaPayRequest, opts?: CallOptions): Promise<UmaPayTerms>;
}
