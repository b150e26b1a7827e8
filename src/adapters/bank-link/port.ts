import type { AdapterLifecycle, CallOptions } from '../common.js';

/**
 * Bank-account linking (REF's `plaid.*`, issue 13): the customer signs in to its bank in the
 * provider's link UI; the service exchanges the resulting public token for verified account
 * numbers and registers them as an external account. Implementations: `sandbox` (its own small
 * link page), `plaid` (Plaid's API with the operator's keys), `none`.
 */

export interface LinkTokenRequest {
  /** Our BankLink id: the provider's idempotency reference and its user id. */
  reference: string;
  customerId: string;
  /** Shown by some providers' UIs; null when unknown. */
  customerName: string | null;
  /** Where an OAuth bank sends the customer back (optional). */
  redirectUri?: string;
}

export interface LinkToken {
  linkToken: string;
  expiresAt: Date;
  /** The provider's request id, for support. */
  requestId?: string;
  /** A page of the service where the sandbox link flow runs (sandbox only). */
  linkUrl?: string;
}

export interface PublicTokenExchange {
  linkToken: string;
  publicToken: string;
  /** The provider's account the customer chose; the first depository account when absent. */
  accountId?: string;
}

/** A bank account whose numbers the provider verified (US ACH today). */
export interface LinkedBankAccount {
  providerAccountId: string;
  currency: 'USD';
  accountNumber: string;
  routingNumber: string;
  bankAccountType: 'CHECKING' | 'SAVINGS';
  bankName?: string;
  /** The account's display name at the bank ("Plaid Checking"). */
  accountName?: string;
}

/** A refusal of the provider: `retryable` false means the same input will fail again. */
export class BankLinkError extends Error {
  constructor(
    readonly code: 'INVALID_PUBLIC_TOKEN' | 'ACCOUNT_NOT_FOUND' | 'NO_ELIGIBLE_ACCOUNT' | 'PROVIDER_ERROR' | 'NOT_CONFIGURED',
    message: string,
    readonly retryable = false,
  ) {
    super(message);
    this.name = 'BankLinkError';
  }
}

export interface BankLinkAdapter extends AdapterLifecycle {
  readonly id: string;
  createLinkToken(request: LinkTokenRequest, opts?: CallOptions): Promise<LinkToken>;
  exchangePublicToken(request: PublicTokenExchange, opts?: CallOptions): Promise<LinkedBankAccount>;
}
