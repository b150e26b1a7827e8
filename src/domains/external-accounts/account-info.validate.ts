import { BadRequestError, type FieldError, ValidationError } from '../../platform/errors.js';
import { isKnownCurrency } from '../../platform/currencies.js';
import { toFieldErrors } from '../../platform/http/validate.js';
import { ACCOUNT_INFO, crossFieldErrors, selectVariant, type Variant } from './account-info.schemas.js';
import { checksumErrors } from './account-info.checksums.js';
import {
  ACCOUNT_TYPES, type CanonicalAccountType, CRYPTO_ASSETS, canonicalAccountType, currenciesFor, isAccountType, isWalletType,
} from './account-types.js';
import { beneficiarySchema, conflictingBusinessInfo, individualFieldsFor, missingBeneficiaryFields, type BeneficiaryRules } from './beneficiary.schemas.js';
import { paymentRailsFor } from './payment-rails.js';

export { paymentRailsFor } from './payment-rails.js';
export { senderBusinessRegistrationRequired } from './beneficiary.schemas.js';

export interface ValidatedAccountInfo {
  /** Canonical type: `LIGHTNING_ACCOUNT` is reported as `LIGHTNING` so callers branch on one name. */
  accountType: CanonicalAccountType;
  /** What to store and echo: `accountType` as the caller sent it, the documented fields, `beneficiary` if any. */
  accountInfo: Record<string, unknown>;
  paymentRails: string[];
  /** Last 3 characters of the main identifier, for sandbox magic values (decision A9). */
  identifierLast3: string;
}

/**
 * Validate an external account's `currency` and `accountInfo` without I/O.
 * Throws ValidationError (400 INVALID_INPUT) naming every structurally bad field, `accountInfo.`-prefixed;
 * then, only for well-formed input, BadRequestError (400 INVALID_BANK_ACCOUNT) for failed checksums.
 */
export function validateAccountInfo(input: { currency: string; accountInfo: unknown; isBusinessSender?: boolean; beneficiaryRules?: BeneficiaryRules }): ValidatedAccountInfo {
  const given = input.accountInfo;
  if (!isRecord(given)) throw new ValidationError([{ field: 'accountInfo', message: 'Required: an object with accountType.' }]);
  if (!isAccountType(given.accountType)) {
    throw new ValidationError([
      { field: 'accountInfo.accountType', message: 'Must be one of the supported account types.', constraint: { enum: [...ACCOUNT_TYPES] } },
    ]);
  }
  const type = canonicalAccountType(given.accountType);
  // Issue 13: REF's client types `swiftBic` where the spec says `swiftCode`; both are read.
  const raw: Record<string, unknown> = given.swiftBic !== undefined && given.swiftCode === undefined ? { ...given, swiftCode: given.swiftBic } : given;
  const { variant, errors: variantErrors } = selectVariant(ACCOUNT_INFO[type], raw);
  const parsed = variant.schema.safeParse(raw);
  const beneficiary = checkBeneficiary(type, variant, raw.beneficiary, input);
  const errors = [
    // `paymentRails` and `countries` are read-only (spec) but REF's client sends them: accepted and
    // ignored (issue 13); the rails are derived below.
    ...variantErrors,
    ...(parsed.success ? [] : toFieldErrors(parsed.error)),
    ...crossFieldErrors(type, raw),
  ].map((e) => prefixed(e, 'accountInfo'));
  const all = dedupe([...currencyErrors(type, input.currency), ...errors, ...beneficiary.errors]);
  if (all.length > 0 || !parsed.success) throw new ValidationError(all);

  const fields = parsed.data as Record<string, unknown>;
  const failed = checksumErrors(type, fields).map((e) => prefixed(e, 'accountInfo'));
  if (failed.length > 0) throw new BadRequestError('INVALID_BANK_ACCOUNT', 'Bank account invalid.', { errors: failed });

  return {
    accountType: type,
    accountInfo: { accountType: raw.accountType, ...fields, ...(beneficiary.value ? { beneficiary: beneficiary.value } : {}) },
    paymentRails: paymentRailsFor(type, fields),
    identifierLast3: mainIdentifier(fields).slice(-3),
  };
}

function currencyErrors(type: CanonicalAccountType, currency: string): FieldError[] {
  const allowed = currenciesFor(type);
  if (allowed) {
    return allowed.includes(currency) ? [] : [{ field: 'currency', message: `${type} accounts hold ${allowed.join(' or ')}.`, constraint: { enum: [...allowed] } }];
  }
  // SWIFT accounts: any fiat currency the service knows.
  return isKnownCurrency(currency) && !CRYPTO_ASSETS.includes(currency) ? [] : [{ field: 'currency', message: 'SWIFT accounts hold a fiat ISO 4217 currency.' }];
}

interface BeneficiaryResult {
  value?: Record<string, unknown>;
  errors: FieldError[];
}

/**
 * Fiat accounts require a beneficiary (spec); wallets and Lightning accept one and validate it (decisions
 * B§5.9) — whether a THIRD_PARTY wallet must have one is the caller's rule.
 */
function checkBeneficiary(type: CanonicalAccountType, variant: Variant, raw: unknown, input: { currency: string; isBusinessSender?: boolean; beneficiaryRules?: BeneficiaryRules }): BeneficiaryResult {
  const wallet = isWalletType(type);
  if (raw === undefined || raw === null) {
    return { errors: wallet ? [] : [{ field: 'accountInfo.beneficiary', message: 'Required for fiat accounts.' }] };
  }
  const ctx = { destination: beneficiaryDestination(type, input.currency), isBusinessSender: input.isBusinessSender, rules: input.beneficiaryRules };
  const parsed = beneficiarySchema.safeParse(raw);
  const errors = [
    ...(parsed.success ? [] : toFieldErrors(parsed.error)),
    ...missingBeneficiaryFields(raw, ctx),
    ...conflictingBusinessInfo(raw),
    ...cnyBankNeedsBusiness(type, variant, raw),
  ].map((e) => prefixed(e, 'accountInfo.beneficiary'));
  return { value: parsed.success ? withoutUndefined(individualFieldsFor(parsed.data, ctx.destination)) : undefined, errors };
}

/** Which minimum-field table applies: the account type's currency, SWIFT's actual currency, or the wallet rules. */
function beneficiaryDestination(type: CanonicalAccountType, currency: string): string {
  if (isWalletType(type)) return 'WALLET';
  if (type === 'SWIFT_ACCOUNT') return currency;
  return type.slice(0, 3);
}

/** Spec: CNY bank transfers are for business beneficiaries only. */
function cnyBankNeedsBusiness(type: CanonicalAccountType, variant: Variant, raw: unknown): FieldError[] {
  if (type !== 'CNY_ACCOUNT' || variant.name !== 'BANK_TRANSFER') return [];
  const kind = isRecord(raw) ? raw.beneficiaryType : undefined;
  return kind === 'INDIVIDUAL' ? [{ field: 'beneficiaryType', message: 'CNY bank transfers accept only BUSINESS beneficiaries.' }] : [];
}

/** Decision A9: "account number, IBAN, CLABE, phone or address as the type has"; the first present wins. */
const IDENTIFIER_FIELDS = ['clabeNumber', 'accountNumber', 'iban', 'pixKey', 'vpa', 'phoneNumber', 'address', 'lightningAddress', 'invoice', 'bolt12'];

function mainIdentifier(fields: Record<string, unknown>): string {
  const field = IDENTIFIER_FIELDS.find((f) => typeof fields[f] === 'string');
  const value = field ? String(fields[field]) : '';
  // A Lightning address ends in its domain; the user part is what a tester controls.
  return field === 'lightningAddress' ? value.slice(0, value.indexOf('@')) : value;
}

function prefixed(error: FieldError, prefix: string): FieldError {
  return { ...error, field: error.field ? `${prefix}.${error.field}` : prefix };
}

function dedupe(errors: FieldError[]): FieldError[] {
  const seen = new Set<string>();
  return errors.filter((e) => (seen.has(e.field) ? false : (seen.add(e.field), true)));
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function withoutUndefined(value: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined));
}
