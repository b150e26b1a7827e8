import { isValidE164, PHONE_MESSAGE } from '../../platform/phone.js';
import { z } from 'zod';
import { countrySpecs } from 'ibantools';
import { isKnownCurrency } from '../../platform/currencies.js';

/** Field-level zod building blocks shared by customers, beneficial owners and documents. */

export const oneOf = <const T extends readonly [string, ...string[]]>(values: T) =>
  z.enum(values, { error: (issue) => (issue.input === undefined ? 'Required.' : `Must be one of: ${values.join(', ')}.`) });

/** ISO 3166-1 alpha-2 (ibantools carries the full list, with XK). */
export function isCountryCode(v: string): boolean {
  return /^[A-Z]{2}$/.test(v) && v in countrySpecs;
}
export const country = () => z.string().refine(isCountryCode, { message: 'Must be an ISO 3166-1 alpha-2 country code.', params: { format: 'iso3166-1-alpha-2' } });

/** A real calendar date as YYYY-MM-DD (2023-02-30 is refused). */
export function isCalendarDate(v: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(v)) return false;
  const d = new Date(`${v}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === v;
}
export const calendarDate = () => z.string().refine(isCalendarDate, { message: 'Must be a real date as YYYY-MM-DD.', params: { format: 'date' } });
/** A date not after today (birth, incorporation). Today is read when the request is validated. */
export const pastDate = () =>
  calendarDate().refine((v) => v <= new Date().toISOString().slice(0, 10), { message: 'Must not be in the future.' }).refine((v) => v >= '1850-01-01', { message: 'Must be after 1850-01-01.' });

export const text = (max = 255) => z.string().trim().min(1, 'Must not be empty.').max(max);
export const email = () => z.email({ message: 'Must be an email address.' }).max(254);
/** Decision B§1: phones are strict E.164, and valid for their country (libphonenumber-js, issue 14). */
export const e164 = () => z.string().regex(/^\+[1-9]\d{1,14}$/, { message: PHONE_MESSAGE }).refine(isValidE164, { message: PHONE_MESSAGE });
export const currency = () => z.string().refine(isKnownCurrency, { message: 'Unknown currency.' });

export const address = () =>
  z.strictObject({
    line1: text(),
    line2: text().optional(),
    city: text().optional(),
    state: text(100).optional(),
    postalCode: z.string().trim().min(1, 'Must not be empty.').max(20),
    country: country(),
  });

export const ID_TYPES = ['SSN', 'ITIN', 'EIN', 'NON_US_TAX_ID'] as const;
export const INDIVIDUAL_ID_TYPES = ['SSN', 'ITIN'] as const;
export const SSN_PATTERN = /^\d{3}-\d{2}-\d{4}$/;
/** ITINs start with 9 and have a group number of 50-65, 70-88, 90-92 or 94-99 (IRS). */
export const ITIN_PATTERN = /^9\d{2}-(5\d|6[0-5]|7\d|8[0-8]|9[0-2]|9[4-9])-\d{4}$/;

/** Decisions B§5.3 enumerations. */
export const INDIVIDUAL_SOURCE_OF_FUNDS = ['SALARY', 'SELF_EMPLOYMENT_INCOME', 'INVESTMENT_INCOME', 'PENSION', 'RENTAL_INCOME', 'GIFT', 'INHERITANCE', 'LOAN', 'SAVINGS', 'SALE_OF_ASSETS', 'OTHER'] as const;
export const SOURCE_OF_WEALTH = ['SALARY', 'BUSINESS_INCOME', 'INVESTMENTS', 'INHERITANCE', 'PROPERTY_SALE', 'GIFT', 'RETIREMENT', 'SAVINGS', 'OTHER'] as const;
export const PURPOSE_OF_ACCOUNT = [
  'CONTRACTOR_PAYOUTS', 'CREATOR_PAYOUTS', 'EMPLOYEE_PAYOUTS', 'MARKETPLACE_SELLER_PAYOUTS', 'SUPPLIER_PAYMENTS', 'CROSS_BORDER_B2B',
  'AR_AUTOMATION', 'AP_AUTOMATION', 'EMBEDDED_PAYMENTS', 'PLATFORM_FEE_COLLECTION', 'P2P_TRANSFERS', 'CHARITABLE_DONATIONS', 'OTHER',
] as const;
export const MONTHLY_COUNT = ['COUNT_UNDER_10', 'COUNT_10_TO_100', 'COUNT_100_TO_500', 'COUNT_500_TO_1000', 'COUNT_OVER_1000'] as const;
export const MONTHLY_VOLUME = ['VOLUME_UNDER_10K', 'VOLUME_10K_TO_100K', 'VOLUME_100K_TO_1M', 'VOLUME_1M_TO_10M', 'VOLUME_OVER_10M'] as const;
export const ANNUAL_INCOME = ['UNDER_50K', 'RANGE_50K_100K', 'RANGE_100K_250K', 'RANGE_250K_1M', 'OVER_1M'] as const;
export const NET_WORTH = ['UNDER_100K', 'RANGE_100K_500K', 'RANGE_500K_1M', 'RANGE_1M_5M', 'RANGE_5M_25M', 'OVER_25M'] as const;
export const PEP_STATUS = ['NONE', 'DOMESTIC', 'FOREIGN', 'HIO', 'FAMILY_OR_ASSOCIATE'] as const;
export const BUSINESS_SOURCE_OF_FUNDS = ['OPERATING_REVENUE', 'INVESTMENT_INCOME', 'LOANS', 'VENTURE_CAPITAL', 'PERSONAL_SAVINGS', 'DONATIONS', 'OTHER'] as const;
export const ENTITY_TYPES = ['SOLE_PROPRIETORSHIP', 'PARTNERSHIP', 'LLC', 'CORPORATION', 'S_CORPORATION', 'NON_PROFIT', 'PUBLICLY_LISTED_COMPANY', 'TRUST', 'PRIVATE_FOUNDATION', 'CHARITY', 'OTHER'] as const;
export const BUSINESS_TYPES = [
  'AGRICULTURE_FORESTRY_FISHING_AND_HUNTING', 'MINING_QUARRYING_AND_OIL_AND_GAS_EXTRACTION', 'UTILITIES', 'CONSTRUCTION', 'MANUFACTURING',
  'WHOLESALE_TRADE', 'RETAIL_TRADE', 'TRANSPORTATION_AND_WAREHOUSING', 'INFORMATION', 'FINANCE_AND_INSURANCE', 'REAL_ESTATE_AND_RENTAL_AND_LEASING',
  'PROFESSIONAL_SCIENTIFIC_AND_TECHNICAL_SERVICES', 'MANAGEMENT_OF_COMPANIES_AND_ENTERPRISES',
  'ADMINISTRATIVE_AND_SUPPORT_AND_WASTE_MANAGEMENT_AND_REMEDIATION_SERVICES', 'EDUCATIONAL_SERVICES', 'HEALTH_CARE_AND_SOCIAL_ASSISTANCE',
  'ARTS_ENTERTAINMENT_AND_RECREATION', 'ACCOMMODATION_AND_FOOD_SERVICES', 'OTHER_SERVICES', 'PUBLIC_ADMINISTRATION',
] as const;
export const OWNER_ROLES = ['UBO', 'DIRECTOR', 'COMPANY_OFFICER', 'CONTROL_PERSON', 'TRUSTEE', 'GENERAL_PARTNER'] as const;

/**
 * Tax ids by country of incorporation (spec: `businessInfo.country` fixes the format). The US EIN
 * is `##-#######`; other countries get a generic shape until a provider needs more.
 */
export function taxIdProblem(countryCode: string | undefined, taxId: string): string | undefined {
  if (countryCode === 'US') return /^\d{2}-?\d{7}$/.test(taxId) ? undefined : 'Must be a US EIN (##-#######).';
  return /^[A-Za-z0-9][A-Za-z0-9 ./-]{3,29}$/.test(taxId) ? undefined : 'Must be 4 to 30 letters, digits, spaces, dots, slashes or hyphens.';
}

/** UMA addresses: `$` + local part (lower-case letters, digits, `-_.+`, up to 64) + `@` + domain. */
export const UMA_ADDRESS_PATTERN = /^\$[a-z0-9._+-]{1,64}@(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)*[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;
