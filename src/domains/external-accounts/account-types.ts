/**
 * The spec's `accountType` values (ExternalAccount section) and the facts that hang off the type alone:
 * which currencies the account may hold, whether it is a crypto wallet, mobile-money operator codes.
 */

export const ACCOUNT_TYPES = [
  'AED_ACCOUNT', 'BDT_ACCOUNT', 'BRL_ACCOUNT', 'BWP_ACCOUNT', 'CAD_ACCOUNT', 'COP_ACCOUNT', 'DKK_ACCOUNT',
  'EGP_ACCOUNT', 'EUR_ACCOUNT', 'GBP_ACCOUNT', 'GHS_ACCOUNT', 'GTQ_ACCOUNT', 'HKD_ACCOUNT', 'HTG_ACCOUNT',
  'IDR_ACCOUNT', 'INR_ACCOUNT', 'JMD_ACCOUNT', 'KES_ACCOUNT', 'MWK_ACCOUNT', 'MXN_ACCOUNT', 'MYR_ACCOUNT',
  'NGN_ACCOUNT', 'PHP_ACCOUNT', 'PKR_ACCOUNT', 'RWF_ACCOUNT', 'SGD_ACCOUNT', 'SLV_ACCOUNT', 'THB_ACCOUNT',
  'TZS_ACCOUNT', 'UGX_ACCOUNT', 'USD_ACCOUNT', 'VND_ACCOUNT', 'XAF_ACCOUNT', 'XOF_ACCOUNT', 'ZAR_ACCOUNT',
  'ZMW_ACCOUNT', 'SWIFT_ACCOUNT', 'BASE_WALLET', 'ETHEREUM_WALLET', 'LIGHTNING', 'LIGHTNING_ACCOUNT',
  'POLYGON_WALLET', 'PLASMA_WALLET', 'SOLANA_WALLET', 'SPARK_WALLET', 'TRON_WALLET', 'CNY_ACCOUNT', 'ILS_ACCOUNT',
] as const;

export type AccountType = (typeof ACCOUNT_TYPES)[number];

/** `LIGHTNING_ACCOUNT` is the spec's second name for the Lightning type; rules are keyed by the canonical one. */
export type CanonicalAccountType = Exclude<AccountType, 'LIGHTNING_ACCOUNT'>;

export function isAccountType(value: unknown): value is AccountType {
  return typeof value === 'string' && (ACCOUNT_TYPES as readonly string[]).includes(value);
}

export function canonicalAccountType(type: AccountType): CanonicalAccountType {
  return type === 'LIGHTNING_ACCOUNT' ? 'LIGHTNING' : type;
}

/** Currencies each crypto type carries (spec: account-info table and payment flow 3; Spark also carries USDB, decision A19). */
const CRYPTO_CURRENCIES: Partial<Record<CanonicalAccountType, readonly string[]>> = {
  BASE_WALLET: ['USDC'],
  POLYGON_WALLET: ['USDC'],
  SOLANA_WALLET: ['USDC'],
  TRON_WALLET: ['USDT'],
  PLASMA_WALLET: ['USDT'],
  ETHEREUM_WALLET: ['USDC', 'USDT'],
  SPARK_WALLET: ['BTC', 'USDB'],
  LIGHTNING: ['BTC'],
};

/** Every non-fiat asset code the service knows: never the currency of a fiat account. */
export const CRYPTO_ASSETS: readonly string[] = ['USDC', 'USDT', 'BTC', 'USDB'];

export function isWalletType(type: CanonicalAccountType): boolean {
  return type in CRYPTO_CURRENCIES;
}

/**
 * Currencies an account of this type may hold; `undefined` means "any fiat currency" (SWIFT accounts).
 * An `XXX_ACCOUNT` holds XXX, except El Salvador's, which the spec says is held in USD.
 */
export function currenciesFor(type: CanonicalAccountType): readonly string[] | undefined {
  const crypto = CRYPTO_CURRENCIES[type];
  if (crypto) return crypto;
  if (type === 'SWIFT_ACCOUNT') return undefined;
  if (type === 'SLV_ACCOUNT') return ['USD'];
  return [type.slice(0, 3)];
}

/**
 * Mobile-money operator codes for `provider`. The spec omits the real codes (brand names) and gives only their
 * counts (KES 1, TZS 2, ZMW 4, RWF 2, MWK 2, UGX 2); BWP, XOF and XAF counts are not given, so 2, 3 and 2 are
 * placeholders. Operators replace these with the real codes at boot via `configureProviderCodes`.
 */
const DEFAULT_PROVIDER_CODES: Readonly<Record<string, readonly string[]>> = {
  KES: ['KES_MOBILE_1'],
  TZS: ['TZS_MOBILE_1', 'TZS_MOBILE_2'],
  ZMW: ['ZMW_MOBILE_1', 'ZMW_MOBILE_2', 'ZMW_MOBILE_3', 'ZMW_MOBILE_4'],
  RWF: ['RWF_MOBILE_1', 'RWF_MOBILE_2'],
  MWK: ['MWK_MOBILE_1', 'MWK_MOBILE_2'],
  UGX: ['UGX_MOBILE_1', 'UGX_MOBILE_2'],
  BWP: ['BWP_MOBILE_1', 'BWP_MOBILE_2'],
  XOF: ['XOF_MOBILE_1', 'XOF_MOBILE_2', 'XOF_MOBILE_3'],
  XAF: ['XAF_MOBILE_1', 'XAF_MOBILE_2'],
};

let providerCodes: Readonly<Record<string, readonly string[]>> = DEFAULT_PROVIDER_CODES;

export function providerCodesFor(currency: string): readonly string[] {
  return providerCodes[currency] ?? [];
}

/** Replace the placeholder operator codes per currency (missing currencies keep their placeholders). */
export function configureProviderCodes(overrides: Record<string, readonly string[]>): void {
  providerCodes = { ...DEFAULT_PROVIDER_CODES, ...overrides };
}

/** For tests: back to the placeholders. */
export function resetProviderCodes(): void {
  providerCodes = DEFAULT_PROVIDER_CODES;
}
