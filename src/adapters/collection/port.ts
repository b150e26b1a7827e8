import { AdapterCallError, type AdapterContext, type AdapterLifecycle, type CallOptions } from '../common.js';

/**
 * A collection provider: the bank (or virtual-account program, or custodian) that issues standing pay-in
 * coordinates — a virtual account number, a CLABE, an IBAN, a PIX key, a wallet address — in the name of
 * one internal account, and tells the service when money arrives on them (REF `fundingPaymentInstructions`,
 * issue 26 item 1). One per deployment (COLLECTION_PROVIDER). Implementations are stateless, take our
 * coordinates id as their idempotency key, and never guess: an unknown opening status is PENDING.
 *
 * Outbound (the service calls the adapter), never inside a database transaction:
 *   railsFor(currency)      which rails this provider collects on for a currency (none: no coordinates)
 *   openCoordinates(req)    once per account and rail, repeated with the same coordinatesId after a crash
 *                           or a timeout; OPEN carries the wire instructions and the provider's reference
 *   closeCoordinates(req)   the account closed: the coordinates stop taking money (repeatable)
 *   listCredits(req)        reconciliation: the credits the provider received after `cursor`, oldest
 *                           first, at most `limit`; `nextCursor` resumes after the last one returned
 *
 * Inbound (the provider calls the service through handleWebhook, which verifies the provider's signature
 * over the raw body first and answers 401 otherwise):
 *   context.reportCredit(c) a credit arrived; applied once per creditId however often it is reported
 *                           (webhook and poll alike)
 */
export const OPENING_STATUSES = ['PENDING', 'OPEN', 'REJECTED'] as const;
export type OpeningStatus = (typeof OPENING_STATUSES)[number];

export interface OpenCoordinatesRequest {
  /** Our id for these coordinates: opening twice with it must issue one set of coordinates. */
  coordinatesId: string;
  internalAccountId: string;
  /** The account's owner (null: the platform's own account) and its name as payers must write it. */
  customerId: string | null;
  accountHolderName: string;
  currency: string;
  rail: string;
  isPlatformAccount: boolean;
}

/** REF `PaymentInstructions`: what the platform shows its payers. */
export interface PaymentInstructionsWire {
  instructionsNotes?: string;
  isPlatformAccount: boolean;
  accountOrWalletInfo: Record<string, unknown> & { accountType: string };
}

/**
 *   PENDING   not yet (a SWIFT account takes days): the sweep asks again after pollAfterMs
 *   OPEN      issued: `reference` names them in credits, `instructions` are shown to payers
 *   REJECTED  the provider will not issue them for this account: no coordinates on this rail
 */
export interface OpenCoordinatesResult {
  status: OpeningStatus;
  /** The provider's reference for the coordinates: credits name it. Stable for one coordinatesId. */
  reference?: string;
  instructions?: PaymentInstructionsWire;
  pollAfterMs?: number;
}

export interface CloseCoordinatesRequest {
  coordinatesId: string;
  reference: string;
  rail: string;
}

/** One credit on a set of coordinates, as the provider reports it. */
export interface CollectionCredit {
  /** The provider's id of the credit: the idempotency key of its application. */
  creditId: string;
  /** The coordinates' reference (OpenCoordinatesResult.reference) the money arrived on. */
  reference: string;
  rail: string;
  /** Minor units of `currency`, > 0. */
  amount: bigint;
  currency: string;
  receivedAt: Date;
  sender?: { name?: string; accountLast4?: string; bankName?: string };
}

export interface ListCreditsRequest {
  /** Opaque; undefined: from the start of what the provider keeps. */
  cursor?: string;
  limit: number;
}

export interface ListCreditsResult {
  credits: CollectionCredit[];
  /** Where the next poll starts (the same cursor when nothing new arrived). */
  nextCursor: string;
}

/**
 * How the service took a credit: APPLIED (a new INCOMING transaction), DUPLICATE (already taken),
 * HELD (kept and reported, not credited: a frozen or closed account, an unknown reference, another currency).
 */
export type CreditReceipt = 'APPLIED' | 'DUPLICATE' | 'HELD';

export interface CollectionAdapter extends AdapterLifecycle {
  id: string;
  railsFor(currency: string): readonly string[];
  openCoordinates(req: OpenCoordinatesRequest, opts?: CallOptions): Promise<OpenCoordinatesResult>;
  closeCoordinates(req: CloseCoordinatesRequest, opts?: CallOptions): Promise<void>;
  listCredits(req: ListCreditsRequest, opts?: CallOptions): Promise<ListCreditsResult>;
}

export interface CollectionAdapterContext extends AdapterContext {
  reportCredit(credit: CollectionCredit): Promise<CreditReceipt>;
}

/** A call that produced no answer: `retryable: true` (timeouts too) means "ask again with the same key". */
export class CollectionError extends AdapterCallError {
  override readonly name = 'CollectionError';
}
