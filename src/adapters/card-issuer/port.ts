import { AdapterCallError, type AdapterContext, type AdapterLifecycle, type CallOptions } from '../common.js';

/**
 * A card issuer-processor: the company that holds the card on the network (Lithic, Marqeta, …, with an
 * issuing bank behind it). One per deployment, selected by CARD_ISSUER; without one, card operations
 * answer 501 (REF). Implementations are stateless, receive our card id as their idempotency key and
 * never guess an outcome (an unknown provisioning status is PENDING).
 *
 * Outbound (the service calls the adapter), never inside a database transaction:
 *   provision(req)        once per card, repeated with the same cardId after a crash or a timeout
 *   getProvisioning(ref)  while PENDING, by the provisioning sweep
 *   setState(req)         after a freeze, unfreeze or close committed
 *   reveal(req)           a short-lived URL of the processor's page showing PAN/CVV/expiry: the PAN never
 *                         reaches the service
 *   set3dsPassword(req)   the cardholder's static 3-D Secure password, forwarded and forgotten
 *
 * Inbound (the processor calls the service through handleWebhook, which verifies the processor's
 * signature over the raw body first and answers 401 otherwise):
 *   context.authorize(req)       synchronous: the answer is the decision the network waits for
 *   context.reportCardEvent(e)   asynchronous: advice, clearing, return, return reversal, expiry,
 *                                balance inquiry, credits, single-message (financial) authorizations;
 *                                each applied once per eventToken, however often it is delivered
 *   context.reportProvisioned(r) asynchronous: a PENDING provisioning finished
 */
export const PROVISIONING_STATUSES = ['PENDING', 'ACTIVE', 'REJECTED'] as const;
export type ProvisioningStatus = (typeof PROVISIONING_STATUSES)[number];
export const CARD_BRANDS = ['VISA', 'MASTERCARD'] as const;
export type CardBrand = (typeof CARD_BRANDS)[number];

export interface ProvisionRequest {
  /** Our card id: provisioning twice with it must issue one card. */
  cardId: string;
  platformCardId: string;
  cardholderId: string;
  form: 'VIRTUAL' | 'PHYSICAL';
  currency: string;
}

/**
 *   PENDING   not yet: the sweep asks again after pollAfterMs (or reportProvisioned arrives)
 *   ACTIVE    issued: brand, last4, expiry and references are set
 *   REJECTED  the issuer refused: the card closes with ISSUER_REJECTED
 */
export interface ProvisionResult {
  status: ProvisioningStatus;
  /** The processor's reference for the card (Lithic card token): stable for one cardId. */
  processorRef: string;
  issuerRef?: string;
  brand?: CardBrand;
  last4?: string;
  expMonth?: number;
  expYear?: number;
  pollAfterMs?: number;
}

export interface SetStateRequest {
  cardId: string;
  processorRef: string;
  state: 'ACTIVE' | 'FROZEN' | 'CLOSED';
}

export interface RevealRequest {
  cardId: string;
  processorRef: string;
  /** Who asked (the credential's id): the processor may keep it in its own audit. */
  actor: string;
}

export interface RevealResult {
  /** A bearer secret for the card's details: handed to the platform, never stored or logged. */
  url: string;
  expiresAt: Date;
}

export interface ThreeDSecurePasswordRequest {
  cardId: string;
  processorRef: string;
  password: string;
}

export const CARD_MESSAGE_KINDS = ['AUTHORIZATION', 'FINANCIAL_AUTHORIZATION', 'CREDIT_AUTHORIZATION', 'FINANCIAL_CREDIT_AUTHORIZATION', 'BALANCE_INQUIRY'] as const;
export type CardMessageKind = (typeof CARD_MESSAGE_KINDS)[number];

export interface CardMerchant {
  descriptor: string;
  mcc?: string;
  country?: string;
}

/** The network asks: may this card spend (or receive) this amount? Answer within the network's deadline. */
export interface AuthorizationRequest {
  /** The processor's reference of the card (ProvisionResult.processorRef). */
  processorRef: string;
  /** The processor's transaction token: a retried request carries the same one and gets the same answer. */
  issuerTransactionToken: string;
  kind: CardMessageKind;
  /** Minor units of `currency` (0 for a balance inquiry). */
  amount: bigint;
  currency: string;
  merchant: CardMerchant;
}

export type AuthorizationDecision =
  | { approved: true; cardTransactionId: string | null; heldAmount: bigint; currency: string }
  | { approved: false; cardTransactionId: string | null; reason: string };

export const CARD_EVENT_TYPES = [
  'AUTHORIZATION_ADVICE', 'CLEARING', 'AUTHORIZATION_EXPIRY', 'RETURN', 'RETURN_REVERSAL', 'CREDIT_AUTHORIZATION_ADVICE',
] as const;
export type CardEventType = (typeof CARD_EVENT_TYPES)[number];

/** Something that happened to an authorization after the decision. */
export interface CardEvent {
  /** Unique per event: the same event delivered twice is applied once. */
  eventToken: string;
  type: CardEventType;
  processorRef: string;
  /** The authorization it reconciles against. */
  issuerTransactionToken: string;
  /** AUTHORIZATION_ADVICE: the new total; CLEARING/RETURN: this event's amount (0 clearing = expiry). */
  amount?: bigint;
  /** CREDIT_AUTHORIZATION_ADVICE only: the credit's currency and merchant (a new transaction). */
  currency?: string;
  merchant?: CardMerchant;
}

/** How the service took an event. RETRY_LATER: not applicable yet (out of order); the processor re-sends. */
export type CardEventReceipt = 'APPLIED' | 'DUPLICATE' | 'REFUSED' | 'RETRY_LATER' | 'UNKNOWN_CARD';

export interface CardIssuerAdapter extends AdapterLifecycle {
  id: string;
  provision(req: ProvisionRequest, opts?: CallOptions): Promise<ProvisionResult>;
  getProvisioning(processorRef: string, opts?: CallOptions): Promise<ProvisionResult>;
  setState(req: SetStateRequest, opts?: CallOptions): Promise<void>;
  reveal(req: RevealRequest, opts?: CallOptions): Promise<RevealResult>;
  set3dsPassword(req: ThreeDSecurePasswordRequest, opts?: CallOptions): Promise<void>;
  /** Whether this program takes a static 3-D Secure password (REF: EU programs); else INVALID_INPUT. */
  readonly supports3dsPassword: boolean;
}

export interface CardIssuerAdapterContext extends AdapterContext {
  authorize(req: AuthorizationRequest): Promise<AuthorizationDecision>;
  reportCardEvent(event: CardEvent): Promise<CardEventReceipt>;
  reportProvisioned(result: ProvisionResult): Promise<'ACCEPTED' | 'UNKNOWN_CARD'>;
}

/** A call that produced no answer: `retryable: true` (timeouts too) means "ask again with the same key". */
export class CardIssuerError extends AdapterCallError {
  override readonly name = 'CardIssuerError';
}
