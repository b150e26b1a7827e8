import { z } from 'zod';
import type { FieldError } from '../../platform/errors.js';
import { paginationQuery } from '../../platform/http/pagination.js';
import { toFieldErrors } from '../../platform/http/validate.js';
import { ValidationError } from '../../platform/errors.js';
import {
  address, ANNUAL_INCOME, BUSINESS_SOURCE_OF_FUNDS, BUSINESS_TYPES, calendarDate, country, currency, e164, email, ENTITY_TYPES, ID_TYPES,
  INDIVIDUAL_ID_TYPES, INDIVIDUAL_SOURCE_OF_FUNDS, ITIN_PATTERN, MONTHLY_COUNT, MONTHLY_VOLUME, NET_WORTH, oneOf, pastDate, PEP_STATUS,
  PURPOSE_OF_ACCOUNT, SOURCE_OF_WEALTH, SSN_PATTERN, taxIdProblem, text, UMA_ADDRESS_PATTERN,
} from './customers.fields.js';
import { CUSTOMER_STATUSES, CUSTOMER_TYPES } from './customers.model.js';
import { endUserTermsConsentSchema } from './end-user-terms.js';

/** `null` on input: absent on create, "clear it" on PATCH. */
const opt = <S extends z.ZodType>(s: S) => s.nullish();

export const DUE_DILIGENCE_FIELDS = [
  'sourceOfFundsCategories', 'sourceOfFundsOtherDescription', 'sourceOfWealthCategories', 'sourceOfWealthOtherDescription',
  'purposeOfAccount', 'purposeOfAccountOtherDescription', 'expectedMonthlyTransactionCount', 'expectedMonthlyTransactionVolume',
  'annualIncomeRange', 'netWorthRange', 'pepStatus',
] as const;

/** Fields only individuals have (spec "Customer"); a business sending them is told so. */
export const INDIVIDUAL_ONLY_FIELDS = ['fullName', 'birthDate', 'nationality', 'idType', 'identifier', 'countryOfIssuance', ...DUE_DILIGENCE_FIELDS] as const;

const businessInfoSchema = z.strictObject({
  legalName: opt(text()),
  doingBusinessAs: opt(text()),
  country: opt(country()),
  registrationNumber: opt(text(100)),
  incorporatedOn: opt(pastDate()),
  entityType: opt(oneOf(ENTITY_TYPES)),
  taxId: opt(z.string().trim().min(1, 'Must not be empty.').max(30)),
  countriesOfOperation: opt(z.array(country()).max(250)),
  businessType: opt(oneOf(BUSINESS_TYPES)),
  purposeOfAccount: opt(oneOf(PURPOSE_OF_ACCOUNT)),
  purposeOfAccountOtherDescription: opt(text(500)),
  sourceOfFunds: opt(text(500)),
  sourceOfFundsCategories: opt(z.array(oneOf(BUSINESS_SOURCE_OF_FUNDS)).max(BUSINESS_SOURCE_OF_FUNDS.length)),
  sourceOfFundsOtherDescription: opt(text(500)),
  expectedMonthlyTransactionCount: opt(oneOf(MONTHLY_COUNT)),
  expectedMonthlyTransactionVolume: opt(oneOf(MONTHLY_VOLUME)),
  expectedRecipientJurisdictions: opt(z.array(country()).max(250)),
  expectedCounterpartyCountries: opt(z.array(country()).max(250)),
  naicsCode: opt(z.string().regex(/^\d{2,6}$/, { message: 'Must be 2 to 6 digits.' })),
  primaryContactFirstName: opt(text(250)),
  primaryContactLastName: opt(text(250)),
});

const customerFields = {
  platformCustomerId: opt(text()),
  region: opt(country()),
  currencies: opt(z.array(currency()).max(50)),
  email: opt(email()),
  phoneNumber: opt(e164()),
  umaAddress: opt(z.string().regex(UMA_ADDRESS_PATTERN, { message: 'Must be an UMA address such as $alice@example.com.' })),
  fullName: opt(text()),
  birthDate: opt(pastDate()),
  nationality: opt(country()),
  address: opt(address()),
  idType: opt(oneOf(ID_TYPES)),
  identifier: opt(z.string().trim().min(1, 'Must not be empty.').max(64)),
  countryOfIssuance: opt(country()),
  sourceOfFundsCategories: opt(z.array(oneOf(INDIVIDUAL_SOURCE_OF_FUNDS)).max(INDIVIDUAL_SOURCE_OF_FUNDS.length)),
  sourceOfFundsOtherDescription: opt(text(500)),
  sourceOfWealthCategories: opt(z.array(oneOf(SOURCE_OF_WEALTH)).max(SOURCE_OF_WEALTH.length)),
  sourceOfWealthOtherDescription: opt(text(500)),
  purposeOfAccount: opt(oneOf(PURPOSE_OF_ACCOUNT)),
  purposeOfAccountOtherDescription: opt(text(500)),
  expectedMonthlyTransactionCount: opt(oneOf(MONTHLY_COUNT)),
  expectedMonthlyTransactionVolume: opt(oneOf(MONTHLY_VOLUME)),
  annualIncomeRange: opt(oneOf(ANNUAL_INCOME)),
  netWorthRange: opt(oneOf(NET_WORTH)),
  pepStatus: opt(oneOf(PEP_STATUS)),
  businessInfo: opt(businessInfoSchema),
  /** REF (issue 25): evidence of End User Terms acceptance; cannot be cleared once recorded. */
  endUserTermsConsent: endUserTermsConsentSchema.optional(),
};

export const createCustomerBody = z.strictObject({ customerType: oneOf(CUSTOMER_TYPES), ...customerFields });
export const patchCustomerBody = z.strictObject({ customerType: oneOf(CUSTOMER_TYPES).optional(), ...customerFields });

/** Read-only fields of the resource: accepted on input (clients echo what they read) and ignored. */
const READ_ONLY = ['id', 'kycStatus', 'kybStatus', 'contactVerification', 'createdAt', 'updatedAt', 'isDeleted', 'beneficialOwners'];

export function withoutReadOnly(body: unknown): unknown {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return body;
  const copy: Record<string, unknown> = { ...(body as Record<string, unknown>) };
  for (const k of READ_ONLY) delete copy[k];
  return copy;
}

const isObj = (v: unknown): v is Record<string, any> => typeof v === 'object' && v !== null && !Array.isArray(v);
const present = (v: unknown) => v !== undefined && v !== null;

/**
 * The rules that span fields (spec "Customer"), applied to the customer as it would be after the
 * request (the create body, or the stored customer with a PATCH applied). Defensive about types:
 * it also runs on input that failed the field schema, so one answer names every bad field.
 */
export function crossFieldErrors(m: Record<string, any>): FieldError[] {
  const errors: FieldError[] = [];
  const type = m.customerType;
  if (type === 'INDIVIDUAL' && present(m.businessInfo)) errors.push({ field: 'businessInfo', message: 'Only BUSINESS customers have businessInfo.' });
  if (type === 'BUSINESS') {
    for (const f of INDIVIDUAL_ONLY_FIELDS) if (present(m[f])) errors.push({ field: f, message: 'Only INDIVIDUAL customers have this field.' });
    const bi = isObj(m.businessInfo) ? m.businessInfo : {};
    for (const f of ['legalName', 'country', 'taxId', 'incorporatedOn']) {
      if (!present(bi[f])) errors.push({ field: `businessInfo.${f}`, message: 'Required to create a BUSINESS customer.' });
    }
    if (typeof bi.taxId === 'string' && (bi.country === undefined || typeof bi.country === 'string')) {
      const problem = taxIdProblem(bi.country, bi.taxId.trim());
      if (problem) errors.push({ field: 'businessInfo.taxId', message: problem, constraint: { format: bi.country === 'US' ? 'us-ein' : 'tax-id' } });
    }
    errors.push(...otherDescriptionErrors(bi, 'businessInfo.'));
  }
  if (type === 'INDIVIDUAL') {
    errors.push(...identifierErrors(m));
    errors.push(...otherDescriptionErrors(m, ''));
  }
  return errors;
}

function identifierErrors(m: Record<string, any>): FieldError[] {
  const errors: FieldError[] = [];
  if (present(m.idType) && !(INDIVIDUAL_ID_TYPES as readonly string[]).includes(String(m.idType))) {
    errors.push({ field: 'idType', constraint: { enum: [...INDIVIDUAL_ID_TYPES] }, message: 'Individuals accept only SSN or ITIN.' });
  }
  if (present(m.identifier) && !present(m.idType)) errors.push({ field: 'idType', message: 'Required with identifier.' });
  if (present(m.idType) && !present(m.identifier)) errors.push({ field: 'identifier', message: `Required with idType.` });
  if (typeof m.identifier === 'string') {
    if (m.idType === 'SSN' && !SSN_PATTERN.test(m.identifier)) errors.push({ field: 'identifier', constraint: { format: 'us-ssn', pattern: '^\\d{3}-\\d{2}-\\d{4}$' }, message: 'An SSN must look like ###-##-####.' });
    if (m.idType === 'ITIN' && !ITIN_PATTERN.test(m.identifier)) errors.push({ field: 'identifier', constraint: { format: 'us-itin' }, message: 'An ITIN must look like 9##-##-#### with a valid group number.' });
  }
  if ((m.idType === 'SSN' || m.idType === 'ITIN') && present(m.countryOfIssuance) && m.countryOfIssuance !== 'US') {
    errors.push({ field: 'countryOfIssuance', constraint: { enum: ['US'] }, message: 'SSNs and ITINs are issued by the US.' });
  }
  return errors;
}

/** Spec: a `*Categories` field containing OTHER needs its `*OtherDescription` (and so does purposeOfAccount OTHER). */
function otherDescriptionErrors(m: Record<string, any>, prefix: string): FieldError[] {
  const errors: FieldError[] = [];
  const pairs: Array<[string, string]> = [
    ['sourceOfFundsCategories', 'sourceOfFundsOtherDescription'],
    ['sourceOfWealthCategories', 'sourceOfWealthOtherDescription'],
  ];
  for (const [cats, desc] of pairs) {
    if (Array.isArray(m[cats]) && m[cats].includes('OTHER') && !present(m[desc])) {
      errors.push({ field: `${prefix}${desc}`, message: `Required when ${cats} contains OTHER.` });
    }
  }
  if (m.purposeOfAccount === 'OTHER' && !present(m.purposeOfAccountOtherDescription)) {
    errors.push({ field: `${prefix}purposeOfAccountOtherDescription`, message: 'Required when purposeOfAccount is OTHER.' });
  }
  return errors;
}

/** One entry per field, the schema's finding first. */
export function mergeFieldErrors(...lists: FieldError[][]): FieldError[] {
  const seen = new Set<string>();
  return lists.flat().filter((e) => (seen.has(e.field) ? false : (seen.add(e.field), true)));
}

/** Parses with the schema and the cross-field rules; extra (context) errors join the same 400. */
export function parseCustomerInput<S extends z.ZodType>(
  schema: S,
  raw: unknown,
  merged: (parsedOrRaw: Record<string, any>) => Record<string, any>,
  context: (merged: Record<string, any>) => FieldError[] = () => [],
): z.output<S> {
  const input = withoutReadOnly(raw ?? {});
  const result = schema.safeParse(input);
  const base = isObj(result.success ? result.data : input) ? ((result.success ? result.data : input) as Record<string, any>) : {};
  const m = merged(base);
  const errors = mergeFieldErrors(result.success ? [] : toFieldErrors(result.error), crossFieldErrors(m), context(m));
  if (errors.length) throw new ValidationError(errors);
  return result.data as z.output<S>;
}

const listBool = z.enum(['true', 'false']).transform((v) => v === 'true');
const dateTime = () => z.iso.datetime({ offset: true }).transform((s) => new Date(s));

export const listCustomersQuery = z.strictObject({
  ...paginationQuery,
  platformCustomerId: z.string().max(255).optional(),
  /** Case-insensitive substring of the name (full or legal), email or platformCustomerId (ours; the dashboard's search). */
  search: z.string().trim().min(1).max(200).optional(),
  customerType: oneOf(CUSTOMER_TYPES).optional(),
  status: oneOf(CUSTOMER_STATUSES).optional(),
  region: country().optional(),
  currency: currency().optional(),
  umaAddress: z.string().max(400).optional(),
  createdAfter: dateTime().optional(),
  createdBefore: dateTime().optional(),
  updatedAfter: dateTime().optional(),
  updatedBefore: dateTime().optional(),
  isIncludingDeleted: listBool.optional(),
});
export type ListCustomersQuery = z.infer<typeof listCustomersQuery>;

export const customerIdParams = z.object({ customerId: z.string().min(1).max(200) });
export const kycLinkBody = z.strictObject({
  redirectUri: opt(
    z.url({ protocol: /^https?$/, message: 'Must be an http(s) URL.' }).max(2048),
  ),
});
export const confirmCodeBody = z.strictObject({ code: z.string().trim().min(1, 'Must not be empty.').max(32) });

