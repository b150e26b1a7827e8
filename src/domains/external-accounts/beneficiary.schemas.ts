import { z } from 'zod';
import type { FieldError } from '../../platform/errors.js';
import { countryCode, e164, isoDate, name, oneOf } from './account-info.fields.js';

/**
 * Beneficiary of an external account (spec: ExternalAccount › Beneficiary). The zod schemas check formats;
 * which fields must be present depends on the destination and lives in the requirement tables below, checked
 * on the raw input so that a missing field and a malformed one are both reported in one answer.
 */

const text = (max = 255) => z.string().trim().min(1, 'Must not be empty.').max(max);

export const addressSchema = z.object({
  line1: text().optional(),
  line2: text().optional(),
  city: text().optional(),
  state: text().optional(),
  postalCode: text(20).optional(),
  country: countryCode().optional(),
});

/** Fields both beneficiary kinds may carry. `email` is a reference-service extra (decisions B§5.9). */
const commonFields = {
  nationality: countryCode().optional(),
  phoneNumber: e164().optional(),
  countryOfResidence: countryCode().optional(),
  email: z.email('Must be an email address.').max(255).optional(),
  documentType: oneOf(['CC', 'CE', 'TI', 'NIT', 'PP']).optional(),
  documentNumber: text(64).optional(),
  address: addressSchema.optional(),
};

const individualSchema = z.object({
  beneficiaryType: z.literal('INDIVIDUAL'),
  fullName: name(),
  birthDate: isoDate().optional(),
  /** REF's `CadBeneficiary` (issue 25): kept for CAD accounts only (individualFieldsFor). */
  registrationNumber: text(64).optional(),
  ...commonFields,
});

/** Destinations whose individual beneficiaries carry a `registrationNumber` (REF: CAD). */
const INDIVIDUAL_REGISTRATION_NUMBER = ['CAD'];

/**
 * An individual beneficiary's fields as kept for a destination: `registrationNumber` only where REF
 * defines it; elsewhere it is dropped like any key the type does not have.
 */
export function individualFieldsFor<T extends Record<string, unknown>>(beneficiary: T, destination: string): T {
  if (beneficiary.beneficiaryType !== 'INDIVIDUAL' || !('registrationNumber' in beneficiary) || INDIVIDUAL_REGISTRATION_NUMBER.includes(destination)) return beneficiary;
  const { registrationNumber: _dropped, ...rest } = beneficiary;
  return rest as T;
}

/** The spec also accepts `businessInfo {legalName, taxId}` (US business shape); it is folded into the top level. */
const businessSchema = z
  .object({
    beneficiaryType: z.literal('BUSINESS'),
    legalName: name().optional(),
    registrationNumber: text(64).optional(),
    taxId: text(64).optional(),
    businessInfo: z.object({ legalName: name().optional(), taxId: text(64).optional() }).optional(),
    ...commonFields,
  })
  .transform(({ businessInfo, ...rest }) => ({
    ...rest,
    legalName: rest.legalName ?? businessInfo?.legalName,
    taxId: rest.taxId ?? businessInfo?.taxId,
  }));

export const beneficiarySchema = z.discriminatedUnion('beneficiaryType', [individualSchema, businessSchema]);


const FULL_ADDRESS = ['address.line1', 'address.city', 'address.postalCode', 'address.country'];
/** Where postal codes are not universal (UAE, Jamaica, much of Africa) the table asks for none. */
const ADDRESS_NO_POSTCODE = ['address.line1', 'address.city', 'address.country'];

const addressFor = (destination: string) => (['USD', 'GBP', 'EUR'].includes(destination) ? FULL_ADDRESS : ADDRESS_NO_POSTCODE);

/** Spec "Minimum beneficiary fields, businesses", grouped as in its table. */
const BUSINESS_ADDRESS_ONLY = ['USD', 'MXN', 'GBP', 'INR', 'BRL', 'DKK', 'PHP', 'HKD', 'IDR', 'MYR', 'SGD', 'THB', 'VND', 'AED', 'ILS'];
const BUSINESS_FULL_IDS = ['NGN', 'ZAR', 'KES', 'TZS', 'RWF', 'ZMW', 'UGX', 'BWP', 'MWK', 'XOF', 'XAF'];
/** Spec: business senders paying into these currencies must also supply `registrationNumber`. */
const SENDER_REGISTRATION = ['GBP', 'INR', 'BRL', 'DKK', 'PHP', 'HKD', 'IDR', 'MYR', 'SGD', 'THB', 'VND', 'AED', 'ILS'];

export function senderBusinessRegistrationRequired(destinationCurrency: string): boolean {
  return SENDER_REGISTRATION.includes(destinationCurrency);
}

/** Extra fields that the account-info table demands of every beneficiary for a destination (GTQ, JMD, AED, GBP...). */
function destinationExtras(destination: string, type: 'INDIVIDUAL' | 'BUSINESS'): string[] {
  if (destination === 'GTQ') return ['phoneNumber', 'countryOfResidence'];
  if (destination === 'JMD') return ['phoneNumber', ...ADDRESS_NO_POSTCODE];
  if (destination === 'AED') return ADDRESS_NO_POSTCODE;
  if (destination === 'GBP' && type === 'INDIVIDUAL') return FULL_ADDRESS;
  return [];
}

export interface BeneficiaryContext {
  /** Currency code whose table applies (`USD` for USD_ACCOUNT...); `WALLET` for crypto and Lightning accounts. */
  destination: string;
  isBusinessSender?: boolean;
  /** Whose minimum fields apply: the spec's tables (default) or REF's schemas (issue 25, PATCH /config `beneficiaryRules`). */
  rules?: BeneficiaryRules;
}

export type BeneficiaryRules = 'SPEC' | 'REF';

/**
 * REF's required beneficiary fields (its `<Ccy>Beneficiary` and `BusinessBeneficiary` schemas): a name everywhere,
 * EUR's and GTQ's countryOfResidence, GTQ's and JMD's phone, AED's and JMD's address; a business only its legalName.
 */
function refRequiredFields(type: 'INDIVIDUAL' | 'BUSINESS', destination: string): string[] {
  if (type === 'BUSINESS') return ['legalName'];
  if (destination === 'EUR') return ['fullName', 'countryOfResidence'];
  if (destination === 'GTQ') return ['fullName', 'phoneNumber', 'countryOfResidence'];
  if (destination === 'JMD') return ['fullName', 'phoneNumber', ...ADDRESS_NO_POSTCODE];
  if (destination === 'AED') return ['fullName', ...ADDRESS_NO_POSTCODE];
  return ['fullName'];
}

/** Dot paths (relative to the beneficiary) that must be present for this destination and beneficiary type. */
export function requiredBeneficiaryFields(type: 'INDIVIDUAL' | 'BUSINESS', ctx: BeneficiaryContext): string[] {
  const { destination } = ctx;
  // Decisions B§5.9: a wallet's individual beneficiary needs a country of residence (Travel Rule data).
  if (destination === 'WALLET') return type === 'INDIVIDUAL' ? ['fullName', 'countryOfResidence'] : ['legalName'];
  if (ctx.rules === 'REF') return refRequiredFields(type, destination);
  const out = type === 'INDIVIDUAL' ? individualMinimum(destination) : businessMinimum(destination, ctx.isBusinessSender === true);
  return [...new Set([...out, ...destinationExtras(destination, type)])];
}

function individualMinimum(destination: string): string[] {
  return ['USD', 'GBP', 'EUR'].includes(destination) ? ['fullName', ...FULL_ADDRESS] : ['fullName'];
}

function businessMinimum(destination: string, isBusinessSender: boolean): string[] {
  const address = addressFor(destination);
  const senderRule = isBusinessSender && senderBusinessRegistrationRequired(destination) ? ['registrationNumber'] : [];
  if (destination === 'EUR') return ['legalName', ...address, 'registrationNumber'];
  if (BUSINESS_FULL_IDS.includes(destination)) return ['legalName', ...address, 'registrationNumber', 'taxId'];
  if (BUSINESS_ADDRESS_ONLY.includes(destination)) return ['legalName', ...address, ...senderRule];
  return ['legalName'];
}

const isPresent = (v: unknown) => v !== undefined && v !== null && !(typeof v === 'string' && v.trim() === '');

/** `legalName`/`taxId` may come nested in `businessInfo`; requirements look at the folded view. */
function foldBusinessInfo(raw: Record<string, unknown>): Record<string, unknown> {
  const info = raw.businessInfo;
  if (!info || typeof info !== 'object') return raw;
  const nested = info as Record<string, unknown>;
  return { ...raw, legalName: raw.legalName ?? nested.legalName, taxId: raw.taxId ?? nested.taxId };
}

/** Missing required fields, as field errors relative to the beneficiary. A missing parent is reported once. */
export function missingBeneficiaryFields(raw: unknown, ctx: BeneficiaryContext): FieldError[] {
  if (!raw || typeof raw !== 'object') return [];
  const type = (raw as Record<string, unknown>).beneficiaryType;
  if (type !== 'INDIVIDUAL' && type !== 'BUSINESS') return []; // the schema reports the discriminator
  const view = foldBusinessInfo(raw as Record<string, unknown>);
  const errors: FieldError[] = [];
  for (const path of requiredBeneficiaryFields(type, ctx)) {
    const [head, leaf] = path.split('.') as [string, string?];
    const parent = view[head];
    if (leaf === undefined ? !isPresent(parent) : !parent || typeof parent !== 'object') {
      if (!errors.some((e) => e.field === head)) errors.push({ field: head, message: requiredMessage(ctx.destination) });
    } else if (leaf !== undefined && !isPresent((parent as Record<string, unknown>)[leaf])) {
      errors.push({ field: path, message: requiredMessage(ctx.destination) });
    }
  }
  return errors;
}

const requiredMessage = (destination: string) =>
  destination === 'WALLET' ? 'Required for a wallet beneficiary.' : `Required for beneficiaries of ${destination} accounts.`;

/** The nested and top-level forms disagreeing is ambiguous compliance data: refuse rather than pick one. */
export function conflictingBusinessInfo(raw: unknown): FieldError[] {
  if (!raw || typeof raw !== 'object') return [];
  const r = raw as Record<string, unknown>;
  const info = r.businessInfo as Record<string, unknown> | undefined;
  if (!info || typeof info !== 'object') return [];
  return (['legalName', 'taxId'] as const)
    .filter((k) => isPresent(r[k]) && isPresent(info[k]) && r[k] !== info[k])
    .map((k) => ({ field: `businessInfo.${k}`, message: `Differs from ${k}; give it once.` }));
}

/** The rules in force for a platform: its PATCH /config choice, else the deployment's BENEFICIARY_RULES. */
export function beneficiaryRulesOf(config: { BENEFICIARY_RULES: 'spec' | 'ref' }, platform: { beneficiaryRules: string | null }): BeneficiaryRules {
  if (platform.beneficiaryRules === 'SPEC' || platform.beneficiaryRules === 'REF') return platform.beneficiaryRules;
  return config.BENEFICIARY_RULES === 'ref' ? 'REF' : 'SPEC';
}
