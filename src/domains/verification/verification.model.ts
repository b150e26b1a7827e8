import { defineLifecycle, type EventOf } from '../../platform/state-machine.js';

/** Spec "Verification status". */
export const VERIFICATION_STATUSES = ['RESOLVE_ERRORS', 'IN_PROGRESS', 'PENDING_MANUAL_REVIEW', 'APPROVED', 'REJECTED'] as const;
export type VerificationStatus = (typeof VERIFICATION_STATUSES)[number];
/** Cases the provider is working on; at most one per customer (partial unique index). */
export const OPEN_STATUSES: readonly VerificationStatus[] = ['IN_PROGRESS', 'PENDING_MANUAL_REVIEW'];

/**
 * A case is created RESOLVE_ERRORS (data missing) or IN_PROGRESS (spec); the provider then moves it.
 * `requestInformation` is the provider's HOLD (decision A10): the case goes back to RESOLVE_ERRORS
 * naming what to fix. RESOLVE_ERRORS, APPROVED and REJECTED are terminal for a case: fixing and
 * re-submitting creates a new one.
 */
export const verificationMachine = defineLifecycle({
  name: 'verification',
  label: 'The verification',
  statuses: VERIFICATION_STATUSES,
  transitions: {
    review: { from: ['IN_PROGRESS'], to: 'PENDING_MANUAL_REVIEW' },
    approve: { from: ['IN_PROGRESS', 'PENDING_MANUAL_REVIEW'], to: 'APPROVED' },
    reject: { from: ['IN_PROGRESS', 'PENDING_MANUAL_REVIEW'], to: 'REJECTED' },
    requestInformation: { from: ['IN_PROGRESS', 'PENDING_MANUAL_REVIEW'], to: 'RESOLVE_ERRORS' },
  },
  terminal: ['RESOLVE_ERRORS', 'APPROVED', 'REJECTED'],
  conflictCode: 'CONFLICT',
});
export type VerificationEvent = EventOf<typeof verificationMachine>;

/** Spec error types plus the reference service's additions we emit (decisions B§5.8). */
export const VERIFICATION_ERROR_TYPES = [
  'MISSING_FIELD', 'INVALID_FIELD',
  'MISSING_LEGAL_PRESENCE_DOCUMENT', 'MISSING_CONTROL_STRUCTURE_DOCUMENT', 'MISSING_OWNERSHIP_STRUCTURE_DOCUMENT',
  'MISSING_PROOF_OF_ADDRESS_DOCUMENT', 'MISSING_IDENTITY_DOCUMENT', 'MISSING_GOOD_STANDING_DOCUMENT',
  'INVALID_DOCUMENT', 'EXPIRED_DOCUMENT', 'POOR_QUALITY_DOCUMENT', 'UNREADABLE_DOCUMENT', 'INCOMPLETE_DOCUMENT',
  'MISSING_CONTROL_PERSON', 'MISSING_BENEFICIAL_OWNER', 'APPLICANT_REJECTED',
  // REF's finer rejection causes (issue 25), as a KYC provider reports them (KycOutcome.errorType).
  'SUSPECTED_FRAUD_DOCUMENT', 'WRONG_DOCUMENT_TYPE', 'DOCUMENT_VERIFICATION_FAILED', 'APPLICANT_SANCTIONED', 'APPLICANT_FRAUD', 'APPLICANT_CRIMINAL_RECORD',
] as const;
export type VerificationErrorType = (typeof VERIFICATION_ERROR_TYPES)[number];

/** REF's rejection causes a provider may name; anything else reads as APPLICANT_REJECTED (never guessed). */
const REJECTION_ERROR_TYPES: ReadonlySet<string> = new Set(['SUSPECTED_FRAUD_DOCUMENT', 'WRONG_DOCUMENT_TYPE', 'DOCUMENT_VERIFICATION_FAILED', 'APPLICANT_SANCTIONED', 'APPLICANT_FRAUD', 'APPLICANT_CRIMINAL_RECORD']);
export function rejectionErrorType(providerType: string | undefined): VerificationErrorType {
  return providerType && REJECTION_ERROR_TYPES.has(providerType) ? (providerType as VerificationErrorType) : 'APPLICANT_REJECTED';
}

/**
 * REF's `verificationStatus` values (issue 25): this server's, and `READY_FOR_VERIFICATION`, which REF
 * lists without describing. A complete case is submitted to the provider as it is created (IN_PROGRESS),
 * so no case of this server waits in READY_FOR_VERIFICATION: the value is accepted as a filter (and
 * matches nothing) so that REF clients' queries work.
 */
export const REF_VERIFICATION_STATUSES = [...VERIFICATION_STATUSES, 'READY_FOR_VERIFICATION'] as const;

export interface VerificationError {
  resourceId: string;
  type: VerificationErrorType;
  field?: string;
  acceptedDocumentTypes?: string[];
  reason: string;
}

export const IDENTITY_DOCUMENTS = ['PASSPORT', 'DRIVERS_LICENSE', 'NATIONAL_ID'];
export const TWO_SIDED_DOCUMENTS = ['DRIVERS_LICENSE', 'NATIONAL_ID'];
export const FORMATION_DOCUMENTS = [
  'CERTIFICATE_OF_INCORPORATION', 'ARTICLES_OF_INCORPORATION', 'STATE_REGISTRY_EXCERPT', 'STATE_COMPANY_REGISTRY',
  'BUSINESS_LICENSE', 'PARTNERSHIP_AGREEMENT', 'TRUST_AGREEMENT',
];
export const OWNERSHIP_DOCUMENTS = ['SHAREHOLDER_REGISTER', 'ARTICLES_OF_ASSOCIATION', 'INFORMATION_STATEMENT', 'INCUMBENCY_CERTIFICATE', 'PARTNERSHIP_CONTROL_AGREEMENT'];
export const PROOF_OF_ADDRESS_DOCUMENTS = ['PROOF_OF_ADDRESS', 'UTILITY_BILL', 'ELECTRICITY_BILL', 'BANK_STATEMENT', 'RENT_OR_LEASE_AGREEMENT'];
/** Spec "Limits": beneficial ownership threshold, 25% or more. */
export const OWNERSHIP_THRESHOLD_BPS = 2_500;
/** Spec "Limits": proof of address within 3 months. */
export const PROOF_OF_ADDRESS_MAX_AGE_MONTHS = 3;

export interface EvalCustomer {
  id: string;
  customerType: string;
  region?: string | null;
  email?: string | null;
  phoneNumber?: string | null;
  fullName?: string | null;
  birthDate?: string | null;
  nationality?: string | null;
  address?: Record<string, any> | null;
  idType?: string | null;
  identifier?: string | null;
  businessInfo?: Record<string, any> | null;
}
export interface EvalOwner {
  id: string;
  roles: string[];
  ownershipBps: number;
  personalInfo: Record<string, any>;
}
export interface EvalDocument {
  id: string;
  holderId: string;
  documentType: string;
  side: string | null;
  /** issuedOn, else the upload date: what "dated within 3 months" is measured on. */
  datedOn: string;
}

const blank = (v: unknown) => v === undefined || v === null || (typeof v === 'string' && v.trim() === '') || (Array.isArray(v) && v.length === 0);

function get(obj: Record<string, any> | null | undefined, path: string): unknown {
  return path.split('.').reduce<any>((o, k) => (o == null ? undefined : o[k]), obj ?? undefined);
}

const ADDRESS_PATHS = ['line1', 'postalCode', 'country'];

/** `providerRequiredCustomerFields` names → the customer field paths they require, per customer type. */
const PROVIDER_FIELD_PATHS: Record<string, { INDIVIDUAL: string[]; BUSINESS: string[] }> = {
  FULL_NAME: { INDIVIDUAL: ['fullName'], BUSINESS: ['businessInfo.legalName'] },
  COMPANY_LEGAL_NAME: { INDIVIDUAL: [], BUSINESS: ['businessInfo.legalName'] },
  BIRTH_DATE: { INDIVIDUAL: ['birthDate'], BUSINESS: [] },
  NATIONALITY: { INDIVIDUAL: ['nationality'], BUSINESS: [] },
  PHONE_NUMBER: { INDIVIDUAL: ['phoneNumber'], BUSINESS: ['phoneNumber'] },
  EMAIL: { INDIVIDUAL: ['email'], BUSINESS: ['email'] },
  POSTAL_ADDRESS: { INDIVIDUAL: ADDRESS_PATHS.map((p) => `address.${p}`), BUSINESS: ADDRESS_PATHS.map((p) => `address.${p}`) },
  COUNTRY_OF_RESIDENCE: { INDIVIDUAL: ['address.country'], BUSINESS: ['address.country'] },
  TAX_ID: { INDIVIDUAL: ['identifier'], BUSINESS: ['businessInfo.taxId'] },
  ID_TYPE: { INDIVIDUAL: ['idType'], BUSINESS: [] },
  ID_NUMBER: { INDIVIDUAL: ['identifier'], BUSINESS: [] },
  IDENTIFIER: { INDIVIDUAL: ['identifier'], BUSINESS: [] },
  REGISTRATION_NUMBER: { INDIVIDUAL: [], BUSINESS: ['businessInfo.registrationNumber'] },
  BUSINESS_TYPE: { INDIVIDUAL: [], BUSINESS: ['businessInfo.businessType'] },
};

function monthsAgo(now: Date, months: number): string {
  const d = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - months, now.getUTCDate()));
  return d.toISOString().slice(0, 10);
}

export interface EvaluationInput {
  customer: EvalCustomer;
  owners: EvalOwner[];
  documents: EvalDocument[];
  /** Union of providerRequiredCustomerFields over the customer's currencies. */
  providerFields: string[];
  now: Date;
}

/**
 * Every unmet requirement at once (spec "Verification", KYB paragraph; issue 3 §6). Pure: the
 * caller loads the data. An empty list means the case can go to the provider.
 */
export function evaluateRequirements(input: EvaluationInput): VerificationError[] {
  const { customer: c } = input;
  const errors: VerificationError[] = [];
  const missing = (resourceId: string, field: string, what = field) =>
    errors.push({ resourceId, type: 'MISSING_FIELD', field, reason: `${what} is required for verification.` });
  const isBusiness = c.customerType === 'BUSINESS';

  const paths = isBusiness
    ? ['businessInfo.legalName', ...ADDRESS_PATHS.map((p) => `address.${p}`), 'businessInfo.countriesOfOperation', 'businessInfo.taxId']
    : ['fullName', 'birthDate', 'nationality', ...ADDRESS_PATHS.map((p) => `address.${p}`)];
  if (!isBusiness && isUsPerson(c.nationality, c.address?.country ?? c.region)) paths.push('idType', 'identifier');
  for (const name of input.providerFields) paths.push(...(PROVIDER_FIELD_PATHS[name]?.[isBusiness ? 'BUSINESS' : 'INDIVIDUAL'] ?? []));
  for (const p of [...new Set(paths)]) if (blank(get(c as Record<string, any>, p))) missing(c.id, p);

  if (!isBusiness && typeof c.fullName === 'string' && c.fullName.trim() && c.fullName.trim().split(/\s+/).length < 2) {
    errors.push({ resourceId: c.id, type: 'INVALID_FIELD', field: 'fullName', reason: 'fullName must contain a given and a family name.' });
  }

  const docsOf = (holderId: string) => input.documents.filter((d) => d.holderId === holderId);
  if (!isBusiness) {
    errors.push(...identityErrors(c.id, docsOf(c.id), IDENTITY_DOCUMENTS));
    return errors;
  }

  errors.push(...companyDocumentErrors(c.id, docsOf(c.id), input.now));
  const inScope = input.owners.filter((o) => o.ownershipBps >= OWNERSHIP_THRESHOLD_BPS || o.roles.includes('CONTROL_PERSON'));
  if (!input.owners.some((o) => o.roles.includes('CONTROL_PERSON'))) {
    errors.push({ resourceId: c.id, type: 'MISSING_CONTROL_PERSON', reason: 'Add a beneficial owner with the role CONTROL_PERSON (POST /beneficial-owners).' });
  }
  for (const o of inScope) errors.push(...ownerErrors(o, docsOf(o.id)));
  return errors;
}

function isUsPerson(nationality: unknown, residence: unknown): boolean {
  return nationality === 'US' || residence === 'US';
}

function ownerErrors(o: EvalOwner, docs: EvalDocument[]): VerificationError[] {
  const errors: VerificationError[] = [];
  const info = o.personalInfo;
  const fields = ['firstName', 'lastName', 'birthDate', ...ADDRESS_PATHS.map((p) => `address.${p}`), 'idType', 'identifier'];
  for (const f of fields) {
    if (blank(get(info, f))) errors.push({ resourceId: o.id, type: 'MISSING_FIELD', field: `personalInfo.${f}`, reason: `personalInfo.${f} is required for owners of 25% or more and control persons.` });
  }
  const us = isUsPerson(info.nationality, info.address?.country);
  if (us && !blank(info.idType) && info.idType !== 'SSN' && info.idType !== 'ITIN') {
    errors.push({ resourceId: o.id, type: 'INVALID_FIELD', field: 'personalInfo.idType', reason: 'US persons are identified by SSN or ITIN.' });
  }
  if (!us) {
    // Spec KYB paragraph: non-US owners need a passport plus one further government id.
    errors.push(...identityErrors(o.id, docs, ['PASSPORT']));
    errors.push(...identityErrors(o.id, docs, TWO_SIDED_DOCUMENTS));
  }
  return errors;
}

/** One complete identity document among `accepted` (two-sided ones need FRONT and BACK). */
function identityErrors(holderId: string, docs: EvalDocument[], accepted: string[]): VerificationError[] {
  const candidates = docs.filter((d) => accepted.includes(d.documentType));
  const complete = candidates.some((d) => !TWO_SIDED_DOCUMENTS.includes(d.documentType) || (candidates.some((x) => x.documentType === d.documentType && x.side === 'FRONT') && candidates.some((x) => x.documentType === d.documentType && x.side === 'BACK')));
  if (complete) return [];
  const half = candidates[candidates.length - 1];
  if (half) {
    const missingSide = half.side === 'FRONT' ? 'BACK' : 'FRONT';
    return [{ resourceId: half.id, type: 'INCOMPLETE_DOCUMENT', acceptedDocumentTypes: [half.documentType], reason: `The ${missingSide} side of this ${half.documentType} is missing.` }];
  }
  return [{ resourceId: holderId, type: 'MISSING_IDENTITY_DOCUMENT', acceptedDocumentTypes: accepted, reason: `Upload one of: ${accepted.join(', ')}.` }];
}

function companyDocumentErrors(customerId: string, docs: EvalDocument[], now: Date): VerificationError[] {
  const errors: VerificationError[] = [];
  const has = (types: string[]) => docs.some((d) => types.includes(d.documentType));
  if (!has(FORMATION_DOCUMENTS)) errors.push({ resourceId: customerId, type: 'MISSING_LEGAL_PRESENCE_DOCUMENT', acceptedDocumentTypes: FORMATION_DOCUMENTS, reason: 'Upload a company formation document.' });
  if (!has(OWNERSHIP_DOCUMENTS)) errors.push({ resourceId: customerId, type: 'MISSING_OWNERSHIP_STRUCTURE_DOCUMENT', acceptedDocumentTypes: OWNERSHIP_DOCUMENTS, reason: 'Upload a document showing the ownership structure.' });
  const proofs = docs.filter((d) => PROOF_OF_ADDRESS_DOCUMENTS.includes(d.documentType)).sort((a, b) => (a.datedOn < b.datedOn ? 1 : -1));
  const cutoff = monthsAgo(now, PROOF_OF_ADDRESS_MAX_AGE_MONTHS);
  if (proofs.length === 0) {
    errors.push({ resourceId: customerId, type: 'MISSING_PROOF_OF_ADDRESS_DOCUMENT', acceptedDocumentTypes: PROOF_OF_ADDRESS_DOCUMENTS, reason: 'Upload a proof of address dated within the last 3 months.' });
  } else if (proofs[0]!.datedOn < cutoff) {
    errors.push({ resourceId: proofs[0]!.id, type: 'EXPIRED_DOCUMENT', acceptedDocumentTypes: PROOF_OF_ADDRESS_DOCUMENTS, reason: `A proof of address must be dated on or after ${cutoff}.` });
  }
  return errors;
}
