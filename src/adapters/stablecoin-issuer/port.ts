import { AdapterCallError, type AdapterContext, type AdapterLifecycle, type CallOptions } from '../common.js';

/**
 * A stablecoin issuer: the provider through which a platform mints and burns its own token (REF
 * "Stablecoins", provider BRALE). Selected by STABLECOIN_ISSUER_PROVIDER. Credentials belong to the
 * platform, not to the adapter: every call carries them (the service keeps them sealed), so one
 * adapter serves every platform and stays stateless.
 *
 * Life of an operation as the adapter sees it (docs/adapters.md "Stablecoin issuer"):
 *   1. createOperation(req)        once per operation, repeated with the same idempotencyKey (our
 *                                  operation id) after a crash or a retryable error: one operation
 *                                  at the provider per key.
 *   2. getOperation(reference)     by the reconciliation job while the operation is not final,
 *      or context.reportOperationUpdated(reference) when the provider pushes (a verified webhook):
 *                                  the service then reads the operation through getOperation.
 * The service owns expiry: an operation still AWAITING_FUNDS at its expiresAt becomes EXPIRED here,
 * whatever the provider says afterwards.
 */

/** The provider's view of an operation. Anything else it says reads as PENDING (never guessed). */
export const ISSUER_OPERATION_STATUSES = ['AWAITING_FUNDS', 'PENDING', 'PROCESSING', 'COMPLETED', 'FAILED'] as const;
export type IssuerOperationStatus = (typeof ISSUER_OPERATION_STATUSES)[number];

/** The platform's API credentials at the provider, opened only for the call. */
export interface IssuerCredentials {
  apiClientId: string;
  apiClientSecret: string;
  /** SANDBOX or PRODUCTION: which of the provider's environments to talk to. */
  environment: 'SANDBOX' | 'PRODUCTION';
}

/** Credentials plus the provider account they act on. */
export interface IssuerAccount extends IssuerCredentials {
  providerAccountId: string;
}

/**
 * VALID: the credentials work; `accounts` lists the provider accounts they reach.
 * INVALID: the provider refuses them (wrong or rotated secret). REVOKED: the provider revoked access.
 */
export type CredentialCheck = { status: 'VALID'; accounts: string[] } | { status: 'INVALID' | 'REVOKED'; reason?: string };

export interface TokenQuery {
  providerTokenIdentifier: string;
  network: 'SPARK';
  networkTokenIdentifier: string;
}

export type IssuerIssuanceStatus = 'PENDING_REVIEW' | 'PROVISIONING' | 'PROVISIONED' | 'REJECTED' | 'FAILED';

/** A token the provider knows, as it describes it. */
export interface ResolvedToken {
  name: string;
  symbol: string;
  /** ISO 4217 code the token is redeemable for. */
  baseCurrency: string;
  decimals: number;
  /** The token identifier on `network` as the provider knows it (compared with the platform's). */
  networkTokenIdentifier: string;
  issuanceStatus: IssuerIssuanceStatus;
}

/** Fiat rails a mint is funded by, and a burn pays out on. */
/**
 * GRID_INTERNAL_ACCOUNT: the service pays the fiat from an internal account (its ledger holds it at creation);
 * PROVIDER_INTERNAL_BALANCE: the provider spends a balance it already holds for the account. Both count as
 * funded at creation (no AWAITING_FUNDS).
 */
export type MintFundingRail = 'WIRE' | 'ACH_DEBIT' | 'SAME_DAY_ACH_DEBIT' | 'GRID_INTERNAL_ACCOUNT' | 'PROVIDER_INTERNAL_BALANCE';
export type BurnPayoutRail = 'WIRE' | 'ACH_CREDIT' | 'SAME_DAY_ACH_CREDIT' | 'RTP_CREDIT';

/** A bank account as the provider needs it (the service opens the sealed fields for the call). */
export interface IssuerBankAccount {
  /** Our ExternalAccount id: providers map it to their own address id once, keyed by it. */
  externalAccountId: string;
  accountType: string;
  accountInfo: Record<string, unknown>;
}

export interface IssuerOperationRequest {
  /** Our StablecoinOperation id: creating twice with it must create one operation. */
  idempotencyKey: string;
  operationType: 'MINT' | 'BURN';
  providerTokenIdentifier: string;
  networkTokenIdentifier: string;
  /** Token smallest units. */
  amount: bigint;
  /** The same amount in the base currency's minor units (cents). */
  fiatAmount: bigint;
  baseCurrency: string;
  /** MINT: how the fiat arrives; `fundedBy` names the debited account for ACH debits. */
  funding?: { rail: MintFundingRail; fundedBy?: IssuerBankAccount; providerBalance?: { sourceTokenIdentifier: string; cryptoNetwork: string } };
  /** MINT: the Spark wallet receiving the tokens, or (gridCustody) the service's custody at the provider for an internal account. */
  mintTo?: { address: string } | { gridCustody: true };
  /**
   * BURN: where the tokens come from (EXTERNAL_ACCOUNT: sent to the deposit address the answer names;
   * GRID_INTERNAL_ACCOUNT: from the service's custody, funded at creation).
   */
  burnSource?: 'EXTERNAL_ACCOUNT' | 'GRID_INTERNAL_ACCOUNT' | 'PROVIDER_INTERNAL_BALANCE';
  /** BURN: the bank account paid and the payout rail. */
  payout?: { rail: BurnPayoutRail; to: IssuerBankAccount };
}

/**
 * What the provider says about an operation.
 *   AWAITING_FUNDS  waits for the issuer's wire or token transfer (fundingInstructions says where)
 *   PENDING         funds received or not needed; the provider has not started
 *   PROCESSING      the provider is minting, burning or paying out
 *   COMPLETED       done. FAILED: final, with failureReason; nothing further happens.
 */
export interface IssuerOperationResult {
  /** The provider's id of the operation (stable for one idempotency key). */
  reference: string;
  status: IssuerOperationStatus;
  /** The provider's own word for the status, sanitized (REF `providerStatus`). */
  providerStatus?: string;
  /** Where the issuer sends funds: REF `StablecoinFundingInstructions` (rail, network, address, valueType, …). */
  fundingInstructions?: Record<string, unknown>;
  /** A stable failure code for FAILED (REF `failureReason`, e.g. PROVIDER_TRANSFER_FAILED). */
  failureReason?: string;
  /** getOperation only: the provider has no such operation (read as PENDING, never as failed). */
  notFound?: boolean;
}

export interface StablecoinIssuer extends AdapterLifecycle {
  id: string;
  /** The provider named on the resources (REF `StablecoinProvider`). */
  provider: 'BRALE';
  verifyCredentials(credentials: IssuerCredentials, opts?: CallOptions): Promise<CredentialCheck>;
  /** undefined: the provider knows no such token for this account. */
  resolveToken(account: IssuerAccount, token: TokenQuery, opts?: CallOptions): Promise<ResolvedToken | undefined>;
  createOperation(account: IssuerAccount, req: IssuerOperationRequest, opts?: CallOptions): Promise<IssuerOperationResult>;
  getOperation(account: IssuerAccount, reference: string, opts?: CallOptions): Promise<IssuerOperationResult>;
  /** Sandbox adapters only (POST /sandbox/stablecoin-operations/{id}/fund): the issuer's funds arrive. */
  simulateFunding?(reference: string): Promise<boolean>;
  /** Sandbox adapters only: the provider stops honouring an API client (rotated or revoked credentials). */
  simulateCredentialStatus?(apiClientId: string, status: 'INVALID' | 'REVOKED'): Promise<void>;
}

/** What reportOperationUpdated says about a push. */
export type IssuerReportReceipt = 'ACCEPTED' | 'UNKNOWN_OPERATION';

export interface StablecoinIssuerContext extends AdapterContext {
  /**
   * The provider says an operation changed (a verified webhook). Resolves once the service has read
   * it again through getOperation; a duplicate or stale push changes nothing.
   */
  reportOperationUpdated(reference: string): Promise<IssuerReportReceipt>;
}

/**
 * Thrown when a call produced no answer. `retryable: true` (or any other error): the outcome is
 * unknown, the service asks again later with the same idempotency key (creating answers 503).
 * `retryable: false`: the provider refused the request; `code` says why (CREDENTIALS_INVALID,
 * CREDENTIALS_REVOKED, REQUEST_REFUSED).
 */
export class IssuerError extends AdapterCallError {
  override readonly name = 'IssuerError';
  constructor(
    message: string,
    retryable: boolean,
    readonly code: 'CREDENTIALS_INVALID' | 'CREDENTIALS_REVOKED' | 'REQUEST_REFUSED' | 'UNAVAILABLE' = retryable ? 'UNAVAILABLE' : 'REQUEST_REFUSED',
  ) {
    super(message, retryable);
  }
}
