import { isValidE164, PHONE_MESSAGE } from '../../platform/phone.js';
import { z } from 'zod';
import { countrySpecs } from 'ibantools';

/**
 * Field-level zod building blocks for account info and beneficiaries. Structural checks only: anything
 * needing a checksum or a registry lives in account-info.checksums.ts and runs after these passed.
 */

export const digits = (min: number, max = min) => {
  const count = min === max ? `${min}` : `${min} to ${max}`;
  return z.string().regex(new RegExp(`^\\d{${min},${max}}$`), `Must be ${count} digits.`);
};

/** Free-text name: bank names, wallet names, legal names. 255 is the reference service's bound. */
export const name = () => z.string().trim().min(1, 'Must not be empty.').max(255);

/** Account identifiers whose format the spec leaves open: ISO 20022 allows up to 34 alphanumerics. */
export const accountIdentifier = () => z.string().regex(/^[A-Za-z0-9]{1,34}$/, 'Must be 1 to 34 letters or digits.');

/** An enum whose missing value reads "Required." like every other missing field, not "Invalid option". */
export const oneOf = <const T extends readonly [string, ...string[]]>(values: T) =>
  z.enum(values, { error: (issue) => (issue.input === undefined ? 'Required.' : `Must be one of: ${values.join(', ')}.`) });

export const bankAccountType = () => oneOf(['CHECKING', 'SAVINGS']);

/** Decision B§1: phones are strict E.164, and valid for their country (libphonenumber-js, issue 14). */
export const e164 = () => z.string().regex(/^\+[1-9]\d{1,14}$/, { message: PHONE_MESSAGE }).refine(isValidE164, { message: PHONE_MESSAGE });

/** A phone with a fixed country code and national digit count, as the spec gives for mobile-money types. */
export const phoneIn = (countryCode: string, nationalDigits: string) =>
  z.string().regex(new RegExp(`^\\+${countryCode}\\d{${nationalDigits}}$`), `Must be +${countryCode} followed by ${nationalDigits.replace(',', ' to ')} digits.`);

export const bic = () =>
  z.string().regex(/^[A-Z]{4}[A-Z]{2}[A-Z0-9]{2}([A-Z0-9]{3})?$/, 'Must be a BIC/SWIFT code of 8 or 11 characters.');

/**
 * IBANs are accepted in their printed form (spaces, lower case) and kept in electronic form, the one the
 * mod-97 check and the rails use. `country`/`length` narrow it where the spec fixes them (AED, ILS, EGP...).
 */
export function iban(opts: { country?: string; length?: number; pattern?: RegExp } = {}) {
  const generic = /^[A-Z]{2}\d{2}[A-Z0-9]{11,30}$/;
  const what = opts.country ? `an IBAN of ${opts.length} characters starting with ${opts.country}` : 'an IBAN';
  const check = (v: string) =>
    (opts.pattern ?? generic).test(v) && (!opts.country || v.startsWith(opts.country)) && (!opts.length || v.length === opts.length);
  return z.preprocess(
    (v) => (typeof v === 'string' ? v.replace(/\s+/g, '').toUpperCase() : v),
    z.string().refine(check, `Must be ${what}.`),
  );
}

export const countryCode = () =>
  z.string().refine((v) => /^[A-Z]{2}$/.test(v) && v in countrySpecs, 'Must be an ISO 3166-1 alpha-2 country code.');

export const isoDate = () =>
  z.string().refine((v) => /^\d{4}-\d{2}-\d{2}$/.test(v) && !Number.isNaN(Date.parse(`${v}T00:00:00Z`)) && new Date(`${v}T00:00:00Z`).toISOString().startsWith(v), 'Must be a date as YYYY-MM-DD.');
