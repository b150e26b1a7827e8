import type { AdapterContext, AdapterLifecycle, CallOptions } from '../common.js';

/**
 * A KYC/KYB provider: hosted verification links and decisions on submitted cases. Vocabulary is
 * ours; an implementation maps its vendor's statuses onto KycOutcome and maps anything it does not
 * recognise to PENDING (never guess an outcome).
 */

export interface HostedLinkRequest {
  /** Our link id: the provider's idempotency key. */
  linkId: string;
  customerId: string;
  /** Single-use secret naming the link (we keep only its hash). */
  token: string;
  expiresAt: Date;
  redirectUri?: string;
}

export interface HostedLink {
  kycUrl: string;
  /** For providers whose page is embedded through an SDK. */
  token?: string;
}

export interface KycCase {
  /** Our verification id: the provider's idempotency key. */
  caseId: string;
  customerId: string;
  customerType: 'INDIVIDUAL' | 'BUSINESS';
  /** fullName of an individual, businessInfo.legalName of a business. */
  name: string;
  owners: Array<{ id: string; lastName: string }>;
  /** True when a reviewer already looked at this case (second decision after PENDING_MANUAL_REVIEW). */
  reviewed: boolean;
  /** How often this customer was put on HOLD before. */
  previousHolds: number;
}

export type KycOutcome =
  | { status: 'APPROVED' }
  /**
   * `errorType`: REF's finer cause when the provider gives one (`APPLICANT_SANCTIONED`, `APPLICANT_FRAUD`,
   * `APPLICANT_CRIMINAL_RECORD`, `DOCUMENT_VERIFICATION_FAILED`, `SUSPECTED_FRAUD_DOCUMENT`,
   * `WRONG_DOCUMENT_TYPE`); absent or another value: `APPLICANT_REJECTED`.
   */
  | { status: 'REJECTED'; reason: string; ownerId?: string; errorType?: string }
  | { status: 'HOLD'; reason: string }
  | { status: 'MANUAL_REVIEW' }
  | { status: 'PENDING' };

/**
 * Life of a verification as the provider sees it: createHostedLink (POST /customers/{id}/kyc-link,
 * idempotency key linkId) whenever a platform asks for a link; decide(case) once the case is
 * submitted, repeated (KYC_DECISION_ATTEMPTS, then every KYC_RECONCILE_INTERVAL_MS) while it answers
 * PENDING. APPROVED / REJECTED / HOLD are final for that submission; MANUAL_REVIEW parks the case
 * and decide is asked again with `reviewed: true`.
 */
export interface KycProvider extends AdapterLifecycle {
  readonly id: string;
  /** `provider` in the kyc-link response. */
  readonly provider: string;
  createHostedLink(request: HostedLinkRequest, opts?: CallOptions): Promise<HostedLink>;
  decide(kycCase: KycCase, opts?: CallOptions): Promise<KycOutcome>;
}

export interface KycAdapterContext extends AdapterContext {
  /**
   * The provider has news about a case (a webhook): the service asks decide(case) again now instead
   * of at the next retry. `UNKNOWN_CASE` when no open case has this id.
   */
  reportCaseUpdated(caseId: string): Promise<'ACCEPTED' | 'UNKNOWN_CASE'>;
}
