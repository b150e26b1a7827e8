import { createHash } from 'node:crypto';
import { defineLifecycle, type TransitionTable } from '../../platform/state-machine.js';
import type { CanonicalAccountType } from './account-types.js';
import { variantOf } from './account-info.schemas.js';

/**
 * External account lifecycle (spec: "External account status"; decisions A11, B§6.4) and the pure rules
 * around it. No I/O here.
 */

export const EXTERNAL_ACCOUNT_STATUSES = ['PENDING', 'ACTIVE', 'PENDING_OWNERSHIP_VERIFICATION', 'UNVERIFIED', 'UNDER_REVIEW', 'INACTIVE'] as const;
export type ExternalAccountStatus = (typeof EXTERNAL_ACCOUNT_STATUSES)[number];

/**
 * Every status change, keyed by the event that causes it. `transitionAccount()` (external-accounts.repo.ts) applies
 * one through transition() (src/platform/state-machine.ts): compare-and-set, history row and
 * EXTERNAL_ACCOUNT.STATUS_UPDATED in one transaction.
 */
export const externalAccountTransitions = {
  /** A11: the queued beneficiary check finished. */
  beneficiaryCheckPassed: { from: ['PENDING'], to: 'ACTIVE' },
  /** A11: sandbox identifier suffix 008 (or a provider asking for review). */
  beneficiaryCheckNeedsReview: { from: ['PENDING'], to: 'UNDER_REVIEW' },
  /** B§6.4: a new challenge after a failed one; the account waits for proof again. */
  challengeRestarted: { from: ['UNVERIFIED'], to: 'PENDING_OWNERSHIP_VERIFICATION' },
  /** Spec: a valid signature submitted before the challenge's expiresAt. */
  signatureVerified: { from: ['PENDING_OWNERSHIP_VERIFICATION'], to: 'ACTIVE' },
  /** Spec: an invalid or late signature; a new challenge is needed. */
  signatureRejected: { from: ['PENDING_OWNERSHIP_VERIFICATION'], to: 'UNVERIFIED' },
  /** B§6.4: asynchronous liveness outcome. */
  livenessPassed: { from: ['PENDING_OWNERSHIP_VERIFICATION'], to: 'ACTIVE' },
  livenessFailed: { from: ['PENDING_OWNERSHIP_VERIFICATION'], to: 'UNVERIFIED' },
  /** Operator (A11: INACTIVE is set by the operator CLI). */
  reviewApproved: { from: ['UNDER_REVIEW'], to: 'ACTIVE' },
  deactivate: { from: ['PENDING', 'ACTIVE', 'PENDING_OWNERSHIP_VERIFICATION', 'UNVERIFIED', 'UNDER_REVIEW'], to: 'INACTIVE' },
  reactivate: { from: ['INACTIVE'], to: 'ACTIVE' },
} as const satisfies TransitionTable<ExternalAccountStatus>;

export type ExternalAccountEvent = keyof typeof externalAccountTransitions;

/** No status is final: the operator can deactivate any account and reactivate an inactive one (A11). */
export const externalAccountLifecycle = defineLifecycle({
  name: 'external-account',
  label: 'The external account',
  statuses: EXTERNAL_ACCOUNT_STATUSES,
  transitions: externalAccountTransitions,
  terminal: [],
  conflictCode: 'CONFLICT',
});

/** An ownership or trust challenge (B§6.4): answered once; a new challenge abandons the outstanding one. */
export const CHALLENGE_STATUSES = ['OUTSTANDING', 'SUCCEEDED', 'FAILED', 'ABANDONED'] as const;
export const accountChallengeLifecycle = defineLifecycle({
  name: 'external-account-challenge',
  label: 'The challenge',
  statuses: CHALLENGE_STATUSES,
  transitions: {
    succeed: { from: ['OUTSTANDING'], to: 'SUCCEEDED' },
    fail: { from: ['OUTSTANDING'], to: 'FAILED' },
    abandon: { from: ['OUTSTANDING'], to: 'ABANDONED' },
  },
  terminal: ['SUCCEEDED', 'FAILED', 'ABANDONED'],
  conflictCode: 'CONFLICT',
});

/** Pure: the status an event leads to from `status`, or undefined when the move is illegal. */
export function nextStatus(status: ExternalAccountStatus, event: ExternalAccountEvent): ExternalAccountStatus | undefined {
  const t = externalAccountTransitions[event];
  return (t.from as readonly string[]).includes(status) ? t.to : undefined;
}

export const OWNERSHIP_TYPES = ['FIRST_PARTY', 'THIRD_PARTY'] as const;
export type OwnershipType = (typeof OWNERSHIP_TYPES)[number];

/** Self-custody wallet types whose ownership can be proven by a signed message, and the scheme each uses. */
export type SignatureFamily = 'EVM' | 'SOLANA' | 'BITCOIN' | 'TRON';

const SIGNATURE_FAMILY: Partial<Record<CanonicalAccountType, SignatureFamily>> = {
  BASE_WALLET: 'EVM',
  ETHEREUM_WALLET: 'EVM',
  POLYGON_WALLET: 'EVM',
  PLASMA_WALLET: 'EVM',
  SOLANA_WALLET: 'SOLANA',
  // A Spark address carries the wallet's secp256k1 identity key: Bitcoin message signing proves it.
  SPARK_WALLET: 'BITCOIN',
  TRON_WALLET: 'TRON',
};

/**
 * Lightning destinations are not wallets a customer holds keys for in a signable form (an invoice is single-use,
 * a Lightning address is usually custodial): they never need an ownership proof.
 */
export function signatureFamilyOf(type: CanonicalAccountType): SignatureFamily | undefined {
  return SIGNATURE_FAMILY[type];
}

export interface OwnershipFacts {
  accountType: CanonicalAccountType;
  ownershipType: OwnershipType | null;
  /** A custodial wallet names its VASP; a self-custody wallet does not. */
  vaspName?: unknown;
}

/** B§6.4: only FIRST_PARTY self-custody wallets can (and, under counterparty rules, must) prove ownership. */
export function isOwnershipProvable(a: OwnershipFacts): boolean {
  return signatureFamilyOf(a.accountType) !== undefined && a.ownershipType === 'FIRST_PARTY' && (a.vaspName === undefined || a.vaspName === null);
}

/**
 * A11 and B§6.4: on counterparty-rules platforms a FIRST_PARTY self-custody wallet starts
 * PENDING_OWNERSHIP_VERIFICATION; everything else starts PENDING and the beneficiary check moves it on.
 * THIRD_PARTY and custodial wallets carry their Travel Rule data in the beneficiary or the VASP instead,
 * and no challenge could ever be started for them (409), so they take the PENDING path.
 */
export function initialStatus(a: OwnershipFacts, counterpartyRules: boolean): ExternalAccountStatus {
  return counterpartyRules && isOwnershipProvable(a) ? 'PENDING_OWNERSHIP_VERIFICATION' : 'PENDING';
}

/**
 * The duplicate rule's identity: the canonical type and the fields that name the destination, normalised.
 * Two accounts of one owner in one currency with the same identity are the same account (409).
 */
export function identityOf(type: CanonicalAccountType, info: Record<string, unknown>): string {
  const s = (k: string) => (typeof info[k] === 'string' ? String(info[k]) : '');
  const variant = variantOf(type, info);
  let parts: string[];
  if (signatureFamilyOf(type) === 'EVM') parts = [s('address').toLowerCase()];
  else if (type === 'LIGHTNING') parts = [s('lightningAddress').toLowerCase(), s('invoice').toLowerCase(), s('bolt12').toLowerCase()];
  else if (type.endsWith('_WALLET')) parts = [s('address')];
  else if (type === 'USD_ACCOUNT') parts = [s('routingNumber'), s('accountNumber')];
  else if (type === 'GBP_ACCOUNT') parts = [s('sortCode'), s('accountNumber')];
  else if (type === 'CAD_ACCOUNT') parts = [s('bankCode'), s('branchCode'), s('accountNumber')];
  else if (type === 'MXN_ACCOUNT') parts = [s('clabeNumber')];
  else if (type === 'BRL_ACCOUNT') parts = [s('pixKeyType'), s('pixKey')];
  else if (type === 'INR_ACCOUNT') parts = variant === 'UPI' ? [s('vpa').toLowerCase()] : [s('ifsc'), s('accountNumber')];
  else if (s('iban') && !s('accountNumber')) parts = [s('iban')];
  else if (variant === 'MOBILE_MONEY' || variant === 'WALLET' || (!s('accountNumber') && s('phoneNumber'))) parts = [s('bankName'), s('provider'), s('phoneNumber')];
  else parts = [s('swiftCode'), s('bankName'), s('branchCode'), s('accountNumber'), s('iban')];
  return createHash('sha256').update([type, variant, ...parts].join('\u0000')).digest('hex');
}

/** Decision A8: EEA countries are SCA regions (EU 27, Iceland, Liechtenstein, Norway). */
export const EEA_COUNTRIES: ReadonlySet<string> = new Set([
  'AT', 'BE', 'BG', 'HR', 'CY', 'CZ', 'DK', 'EE', 'FI', 'FR', 'DE', 'GR', 'HU', 'IE', 'IT', 'LV', 'LT', 'LU', 'MT', 'NL',
  'PL', 'PT', 'RO', 'SK', 'SI', 'ES', 'SE', 'IS', 'LI', 'NO',
]);

/** A8: a customer's region is `region`, else its address country; the platform flag forces SCA. */
export function isScaCustomer(customer: { region?: string | null; addressCountry?: string | null }, platformScaRegion: boolean): boolean {
  if (platformScaRegion) return true;
  const region = customer.region ?? customer.addressCountry ?? undefined;
  return !!region && EEA_COUNTRIES.has(region.toUpperCase());
}
