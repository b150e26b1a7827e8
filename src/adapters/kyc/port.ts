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
  | { status: 'REJECTED'; reason: string; ownerId?: string }
  | { status: 'HOLD'; reason: string }
  | { status: 'MANUAL_REVIEW' }
  | { status: 'PENDING' };

export interface KycProvider {
  readonly id: string;
  /** `provider` in the kyc-link response. */
  readonly provider: string;
  createHostedLink(request: HostedLinkRequest): Promise<HostedLink>;
  decide(kycCase: KycCase): Promise<KycOutcome>;
}
