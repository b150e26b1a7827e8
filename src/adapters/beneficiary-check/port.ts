import type { AdapterContext, AdapterLifecycle, CallOptions } from '../common.js';

/**
 * Beneficiary (account-holder) name verification: Confirmation of Payee, Verification of Payee, Pix DICT
 * look-ups, mobile-money name enquiries. Spec: ExternalAccount `beneficiaryVerificationStatus` and
 * `beneficiaryVerifiedData`; decision A11 runs it, queued, on every new external account.
 */

export const BENEFICIARY_VERIFICATION_STATUSES = ['MATCHED', 'PARTIAL_MATCH', 'NOT_MATCHED', 'UNSUPPORTED', 'CHECKED_BY_RECEIVING_FI', 'PENDING'] as const;
export type BeneficiaryVerificationStatus = (typeof BENEFICIARY_VERIFICATION_STATUSES)[number];

export interface BeneficiaryCheckRequest {
  /** Our external account id: the provider's idempotency key. */
  reference: string;
  /** Canonical account type (LIGHTNING_ACCOUNT reported as LIGHTNING). */
  accountType: string;
  currency: string;
  /** Validated account info in clear (identifiers unsealed), beneficiary included. */
  accountInfo: Record<string, unknown>;
  /** The name the account is claimed to be held under: beneficiary fullName or legalName, if any. */
  beneficiaryName: string | null;
  /** The owning customer's name (individual fullName, business legalName); null for platform accounts. */
  customerName: string | null;
  ownershipType: 'FIRST_PARTY' | 'THIRD_PARTY' | null;
  /** Last three characters of the main identifier (sandbox magic values, decision A9). */
  identifierLast3: string;
}

export interface BeneficiaryCheckResult {
  /** `PENDING` means "no answer yet": the caller retries later and never guesses an outcome. */
  status: BeneficiaryVerificationStatus;
  /** Holder name as returned by the rail, when it returned one. */
  holderName?: string;
  /** The provider asks for a manual review before the account is used (account goes UNDER_REVIEW). */
  requiresReview: boolean;
}

/** Called once per new external account (queued, retried while it answers PENDING). */
export interface BeneficiaryCheckAdapter extends AdapterLifecycle {
  readonly id: string;
  check(request: BeneficiaryCheckRequest, opts?: CallOptions): Promise<BeneficiaryCheckResult>;
}

export interface BeneficiaryCheckAdapterContext extends AdapterContext {
  /** The provider has an answer for a check that said PENDING: the service asks check() again now. */
  reportCheckUpdated(reference: string): Promise<'ACCEPTED' | 'UNKNOWN_CHECK'>;
}
