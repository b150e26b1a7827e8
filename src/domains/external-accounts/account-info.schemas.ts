import { z } from 'zod';
import type { FieldError } from '../../platform/errors.js';
import { type CanonicalAccountType, canonicalProvider, providerCodesFor } from './account-types.js';
import { accountIdentifier, bankAccountType, bic, countryCode, digits, e164, iban, name, oneOf, phoneIn } from './account-info.fields.js';
import { isDiscoveredBank } from './discoveries.js';

/**
 * Account-info field sets per `accountType` (spec: "Account-info fields by type"; types the spec leaves "not
 * shown" follow decisions B§5.9). Structure only: checksums run afterwards (account-info.checksums.ts).
 * `accountType`, `beneficiary` and the read-only `paymentRails` are handled by the caller; unknown keys are
 * stripped (zod's default for objects).
 */

/** The spec's two wallet names for CNY wallet payouts (they are also discovery entries for CN/CNY). */
export const CNY_WALLET_NAMES = ['ALIPAY', 'WECHAT_PAY'] as const;

export type VariantName = 'DEFAULT' | 'BANK_TRANSFER' | 'MOBILE_MONEY' | 'UPI' | 'WALLET';

export interface Variant {
  name: VariantName;
  /** Human words for messages: "bank transfer", "mobile money"... */
  label: string;
  /** Fields whose presence selects this variant; the first is reported when none is given. */
  keys: readonly string[];
  schema: z.ZodType;
}

/** A type with several shapes; `fallback` picks one when no key field is present (default: the first). */
export interface AccountInfoDef {
  variants: readonly [Variant, ...Variant[]];
  fallback?: (raw: Record<string, unknown>) => VariantName;
}

const provider = (currency: string) =>
  z.string().max(255).transform((value, ctx) => {
    // Read at parse time: deployments replace the operator lists at boot (MOBILE_MONEY_PROVIDERS).
    const stored = canonicalProvider(currency, value);
    if (stored !== undefined) return stored;
    const names = providerCodesFor(currency);
    ctx.addIssue({ code: 'custom', message: `Must be the name of a mobile-money operator: ${names.join(', ')}.`, params: { enum: [...names] } });
    return z.NEVER;
  });

const phpBankName = () =>
  name().refine((v) => isDiscoveredBank('PH', 'PHP', v), 'Must be a bankName returned by GET /discoveries?country=PH&currency=PHP.');

const swiftCode = bic;
const evmAddress = () => z.string().regex(/^0x[0-9a-fA-F]{40}$/, 'Must be 0x followed by 40 hex digits.');
const walletFields = { vaspName: name().optional() };

const single = (shape: z.ZodRawShape): AccountInfoDef => ({ variants: [{ name: 'DEFAULT', label: 'account', keys: [], schema: z.object(shape) }] });
const bank = (keys: string[], shape: z.ZodRawShape): Variant => ({ name: 'BANK_TRANSFER', label: 'bank transfer', keys, schema: z.object(shape) });
const mobile = (shape: z.ZodRawShape): Variant => ({ name: 'MOBILE_MONEY', label: 'mobile money', keys: ['phoneNumber'], schema: z.object(shape) });
const mobileMoney = (currency: string, phone: z.ZodType) => single({ phoneNumber: phone, provider: provider(currency) });
const bankWithSwift = () => single({ bankName: name(), accountNumber: accountIdentifier(), swiftCode: swiftCode() });

/** XOF covers several countries; the spec gives each its own national number length (Togo: REF's `region` TG). */
const xofPhone = () =>
  z.string().regex(/^(\+221\d{9}|\+225\d{10}|\+229\d{8,9}|\+228\d{8})$/, 'Must be +221 and 9 digits, +225 and 10 digits, +229 and 8 or 9 digits, or +228 and 8 digits.');

/** REF's XOF `region` (the CFA-zone country) and the calling code its phone numbers carry. */
const XOF_REGION_CALLING_CODES: Readonly<Record<string, string>> = { BJ: '+229', CI: '+225', SN: '+221', TG: '+228' };
const XOF_REGIONS = ['BJ', 'CI', 'SN', 'TG'] as const;

/**
 * XOF_ACCOUNT: the spec's phone and provider, and REF's `region` (issue 25) — optional as in the spec,
 * and when given the phone number must be of that country.
 */
const xofAccount = (): AccountInfoDef => ({
  variants: [{
    name: 'DEFAULT',
    label: 'account',
    keys: [],
    schema: z.object({ phoneNumber: xofPhone(), provider: provider('XOF'), region: oneOf(XOF_REGIONS).optional() }).superRefine((v, ctx) => {
      const code = v.region ? XOF_REGION_CALLING_CODES[v.region] : undefined;
      if (code && !v.phoneNumber.startsWith(code)) ctx.addIssue({ code: 'custom', path: ['region'], message: `The phone number is not of ${v.region} (${code}).` });
    }),
  }],
});

const lightningAddress = () =>
  z.string().max(320).regex(/^[a-z0-9._+-]+@[a-z0-9-]+(\.[a-z0-9-]+)+$/i, 'Must be a Lightning address such as alice@example.com.');

export const ACCOUNT_INFO: Record<CanonicalAccountType, AccountInfoDef> = {
  USD_ACCOUNT: single({
    accountNumber: digits(4, 17),
    routingNumber: digits(9),
    // Issue 13: REF's client sends neither; CHECKING is the default and bankName stays absent.
    bankAccountType: bankAccountType().default('CHECKING'),
    bankName: name().optional(),
    // Wire-only; kept but ignored on ACH, RTP and FedNow (spec).
    intermediaryBankName: name().optional(),
    intermediaryRoutingNumber: digits(9).optional(),
    fiToFiInformation: z.string().min(1).max(210).optional(),
  }),
  MXN_ACCOUNT: single({ clabeNumber: digits(18), bankName: name().optional() }),
  BRL_ACCOUNT: single({
    pixKey: z.string().min(1).max(77),
    pixKeyType: oneOf(['CPF', 'CNPJ', 'EMAIL', 'PHONE', 'RANDOM']),
    bankName: name().optional(),
    taxId: z.string().regex(/^(\d{11}|\d{14})$/, 'Must be a CPF (11 digits) or CNPJ (14 digits), digits only.'),
  }),
  COP_ACCOUNT: {
    variants: [
      bank(['accountNumber'], { bankName: name(), accountNumber: accountIdentifier(), bankAccountType: bankAccountType() }),
      mobile({ bankName: name(), phoneNumber: e164() }),
    ],
  },
  SLV_ACCOUNT: {
    variants: [
      bank(['accountNumber'], { bankName: name(), accountNumber: accountIdentifier(), bankAccountType: bankAccountType() }),
      mobile({ phoneNumber: e164() }),
    ],
  },
  EUR_ACCOUNT: single({ iban: iban(), bankName: name().optional(), swiftCode: swiftCode().optional() }),
  PHP_ACCOUNT: single({ bankName: phpBankName(), accountNumber: digits(8, 16) }),
  GBP_ACCOUNT: single({ sortCode: digits(6), accountNumber: digits(8) }),
  INR_ACCOUNT: {
    variants: [
      bank(['accountNumber', 'ifsc', 'rail'], {
        accountNumber: digits(9, 18),
        ifsc: z.string().regex(/^[A-Z]{4}0[A-Z0-9]{6}$/, 'Must be an 11-character IFSC: 4 letters, 0, then 6 letters or digits.'),
        rail: oneOf(['NEFT', 'RTGS']),
        bankName: name().optional(),
      }),
      {
        name: 'UPI',
        label: 'UPI',
        keys: ['vpa'],
        schema: z.object({
          vpa: z.string().max(255).regex(/^[A-Za-z0-9._-]{2,256}@[A-Za-z][A-Za-z0-9]{1,64}$/, 'Must be a UPI address such as name@bank.'),
          bankName: name().optional(),
        }),
      },
    ],
  },
  NGN_ACCOUNT: single({ accountNumber: digits(10), bankName: name() }),
  ZAR_ACCOUNT: single({ accountNumber: digits(9, 13), bankName: name() }),
  CAD_ACCOUNT: single({ bankCode: digits(3), branchCode: digits(5), accountNumber: digits(7, 12) }),
  AED_ACCOUNT: single({ iban: iban({ country: 'AE', length: 23 }), swiftCode: swiftCode().optional() }),
  ILS_ACCOUNT: single({ iban: iban({ country: 'IL', length: 23 }), bankName: name() }),
  BDT_ACCOUNT: {
    variants: [
      bank(['accountNumber'], {
        bankName: name(),
        accountNumber: accountIdentifier(),
        branchCode: z.string().regex(/^[A-Za-z0-9]{1,20}$/, 'Must be 1 to 20 letters or digits.').optional(),
        swiftCode: swiftCode().optional(),
      }),
      mobile({ bankName: name(), phoneNumber: e164() }),
    ],
  },
  BWP_ACCOUNT: mobileMoney('BWP', e164()),
  CNY_ACCOUNT: {
    variants: [
      bank(['accountNumber'], { bankName: name(), accountNumber: accountIdentifier() }),
      {
        name: 'WALLET',
        label: 'wallet payout',
        keys: ['phoneNumber'],
        schema: z.object({ bankName: oneOf(CNY_WALLET_NAMES), phoneNumber: e164() }),
      },
    ],
    // A wallet name without a phone is a wallet payout missing its phone, not a bank transfer.
    fallback: (raw) => ((CNY_WALLET_NAMES as readonly unknown[]).includes(raw.bankName) ? 'WALLET' : 'BANK_TRANSFER'),
  },
  EGP_ACCOUNT: {
    variants: [bank(['iban'], { bankName: name(), iban: iban({ country: 'EG', length: 29 }) }), mobile({ bankName: name(), phoneNumber: e164() })],
  },
  GHS_ACCOUNT: {
    variants: [bank(['accountNumber'], { bankName: name(), accountNumber: accountIdentifier() }), mobile({ bankName: name(), phoneNumber: e164() })],
  },
  GTQ_ACCOUNT: single({ accountNumber: accountIdentifier(), bankAccountType: bankAccountType(), bankName: name() }),
  HTG_ACCOUNT: single({ phoneNumber: e164() }),
  JMD_ACCOUNT: single({ accountNumber: accountIdentifier(), branchCode: digits(5), bankAccountType: bankAccountType(), bankName: name() }),
  PKR_ACCOUNT: {
    variants: [
      bank(['accountNumber', 'iban'], {
        bankName: name(),
        accountNumber: accountIdentifier(),
        iban: iban({ country: 'PK', length: 24, pattern: /^PK\d{2}[A-Z]{4}\d{16}$/ }).optional(),
      }),
      mobile({ bankName: name(), phoneNumber: e164() }),
    ],
  },
  KES_ACCOUNT: mobileMoney('KES', phoneIn('254', '9')),
  TZS_ACCOUNT: mobileMoney('TZS', phoneIn('255', '9')),
  ZMW_ACCOUNT: mobileMoney('ZMW', phoneIn('260', '9')),
  RWF_ACCOUNT: mobileMoney('RWF', phoneIn('250', '9')),
  MWK_ACCOUNT: mobileMoney('MWK', phoneIn('265', '9')),
  UGX_ACCOUNT: mobileMoney('UGX', phoneIn('256', '9')),
  XOF_ACCOUNT: xofAccount(),
  XAF_ACCOUNT: single({
    phoneNumber: z.string().regex(/^\+\d{6,14}$/, 'Must be + followed by 6 to 14 digits.'),
    provider: provider('XAF'),
    region: oneOf(['CM', 'CG']),
  }),
  DKK_ACCOUNT: single({ iban: iban({ country: 'DK', length: 18, pattern: /^DK\d{16}$/ }), swiftCode: swiftCode().optional() }),
  HKD_ACCOUNT: bankWithSwift(),
  IDR_ACCOUNT: single({
    bankName: name(),
    accountNumber: accountIdentifier(),
    swiftCode: swiftCode(),
    phoneNumber: z.string().regex(/^\+62\d{9,12}$/, 'Must be +62 followed by 9 to 12 digits.'),
  }),
  MYR_ACCOUNT: bankWithSwift(),
  THB_ACCOUNT: bankWithSwift(),
  VND_ACCOUNT: bankWithSwift(),
  SGD_ACCOUNT: single({ accountNumber: accountIdentifier(), swiftCode: swiftCode(), bankName: name().optional() }),
  SWIFT_ACCOUNT: single({
    country: countryCode(),
    swiftCode: swiftCode(),
    bankName: name(),
    accountNumber: accountIdentifier().optional(),
    iban: iban().optional(),
  }),
  BASE_WALLET: single({ address: evmAddress(), ...walletFields }),
  ETHEREUM_WALLET: single({ address: evmAddress(), ...walletFields }),
  POLYGON_WALLET: single({ address: evmAddress(), ...walletFields }),
  PLASMA_WALLET: single({ address: evmAddress(), ...walletFields }),
  SOLANA_WALLET: single({
    address: z.string().regex(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/, 'Must be a base58 Solana address.'),
    ...walletFields,
  }),
  TRON_WALLET: single({
    address: z.string().regex(/^T[1-9A-HJ-NP-Za-km-z]{33}$/, 'Must be a base58 Tron address starting with T.'),
    ...walletFields,
  }),
  SPARK_WALLET: single({
    // Mainnet `spark1`/legacy `sp1`; test networks use the t/rt/s/l suffixed prefixes.
    address: z
      .string()
      .max(500)
      .regex(/^(sp|spt|sprt|sps|spl|spark|sparkt|sparkrt|sparks|sparkl)1[02-9ac-hj-np-z]{50,}$/i, 'Must be a Spark address (spark1... or sp1...).'),
    ...walletFields,
  }),
  LIGHTNING: single({
    lightningAddress: lightningAddress().optional(),
    invoice: z.string().max(4096).regex(/^ln(bc|tb|bcrt|tbs|sb)[0-9a-z]+$/i, 'Must be a BOLT11 invoice (lnbc...).').optional(),
    bolt12: z.string().max(4096).regex(/^lno1[02-9ac-hj-np-z]+$/i, 'Must be a BOLT12 offer (lno1...).').optional(),
  }),
};

/** Rules spanning several fields, checked on the raw input so they are reported alongside field errors. */
export function crossFieldErrors(type: CanonicalAccountType, raw: Record<string, unknown>): FieldError[] {
  if (type === 'LIGHTNING') return exactlyOne(raw, ['lightningAddress', 'invoice', 'bolt12']);
  if (type === 'SWIFT_ACCOUNT' && !present(raw.accountNumber) && !present(raw.iban))
    return [{ field: 'accountNumber', message: 'Required: accountNumber, or iban for IBAN-only corridors.' }];
  if (type === 'BRL_ACCOUNT') return pixKeyErrors(raw.pixKeyType, raw.pixKey);
  if (type === 'CNY_ACCOUNT' && present(raw.accountNumber) && (CNY_WALLET_NAMES as readonly unknown[]).includes(raw.bankName))
    return [{ field: 'bankName', message: 'A bank transfer needs the beneficiary bank\'s name, not a wallet name.' }];
  return [];
}

const present = (v: unknown) => v !== undefined && v !== null;

function exactlyOne(raw: Record<string, unknown>, fields: string[]): FieldError[] {
  const given = fields.filter((f) => present(raw[f]));
  const list = fields.join(', ');
  if (given.length === 0) return [{ field: fields[0]!, message: `Required: exactly one of ${list}.` }];
  return given.slice(1).map((f) => ({ field: f, message: `Give exactly one of ${list}.` }));
}

/** Pix key formats by key type (Banco Central do Brasil's DICT rules). */
const PIX_KEY_FORMATS: Record<string, [RegExp, string]> = {
  CPF: [/^\d{11}$/, 'A CPF key is 11 digits.'],
  CNPJ: [/^\d{14}$/, 'A CNPJ key is 14 digits.'],
  EMAIL: [/^[^\s@]+@[^\s@]+\.[^\s@]+$/, 'An EMAIL key is an email address.'],
  PHONE: [/^\+55\d{10,11}$/, 'A PHONE key is +55 followed by 10 or 11 digits.'],
  RANDOM: [/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i, 'A RANDOM key is a UUID.'],
};

function pixKeyErrors(keyType: unknown, key: unknown): FieldError[] {
  const format = typeof keyType === 'string' ? PIX_KEY_FORMATS[keyType] : undefined;
  if (!format || typeof key !== 'string') return [];
  return format[0].test(key) ? [] : [{ field: 'pixKey', message: format[1] }];
}

/**
 * The variant the raw input asks for: the one whose key fields are present. Keys of two variants at once
 * is ambiguous and reported on the second variant's key; no key at all falls back (see AccountInfoDef).
 */
export function selectVariant(def: AccountInfoDef, raw: Record<string, unknown>): { variant: Variant; errors: FieldError[] } {
  const [first] = def.variants;
  if (def.variants.length === 1) return { variant: first, errors: [] };
  const chosen = def.variants.filter((v) => v.keys.some((k) => present(raw[k])));
  const either = def.variants.map((v) => `${v.keys.join(', ')} (${v.label})`).join(' or ');
  if (chosen.length > 1) {
    const second = chosen[1]!;
    const key = second.keys.find((k) => present(raw[k]))!;
    return { variant: chosen[0]!, errors: [{ field: key, message: `Give either ${either}, not both.` }] };
  }
  if (chosen.length === 1) return { variant: chosen[0]!, errors: [] };
  const name = def.fallback?.(raw) ?? first.name;
  const variant = def.variants.find((v) => v.name === name) ?? first;
  return { variant, errors: [{ field: variant.keys[0]!, message: `Required: ${either}.` }] };
}

/** The variant of an already validated account (paymentRails, identifiers): same rule, no errors. */
export function variantOf(type: CanonicalAccountType, info: Record<string, unknown>): VariantName {
  return selectVariant(ACCOUNT_INFO[type], info).variant.name;
}
