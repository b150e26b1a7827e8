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
 * Mobile-money operators for `provider` (issue 25; shared decisions "REF's current surface" 6): the
 * operator's name, as REF takes it, from a list per currency. The sandbox list names real operators in
 * the counts the spec gives (KES 1, TZS 2, ZMW 4, RWF 2, MWK 2, UGX 2; BWP, XOF and XAF have no count
 * in the spec). Deployments replace a currency's list with MOBILE_MONEY_PROVIDERS (configureProviderCodes
 * at boot). A name matches whatever its letter case and is stored as listed.
 */
const SANDBOX_MOBILE_MONEY_PROVIDERS: Readonly<Record<string, readonly string[]>> = {
  KES: ['M-PESA'],
  TZS: ['Vodacom M-Pesa', 'Airtel Money'],
  ZMW: ['MTN Mobile Money', 'Airtel Money', 'Zamtel Money', 'Zoona'],
  RWF: ['MTN Mobile Money', 'Airtel Money'],
  MWK: ['Airtel Money', 'TNM Mpamba'],
  UGX: ['MTN Mobile Money', 'Airtel Money'],
  BWP: ['Orange Money', 'Mascom MyZaka'],
  XOF: ['Orange Money', 'Wave', 'MTN Mobile Money', 'Moov Money'],
  XAF: ['MTN Mobile Money', 'Orange Money'],
};

/**
 * The placeholder codes of earlier versions (`KES_MOBILE_1`, …, in these counts), still accepted as
 * aliases and stored as sent, so accounts and integrations written against them keep working.
 */
const PLACEHOLDER_COUNTS: Readonly<Record<string, number>> = { KES: 1, TZS: 2, ZMW: 4, RWF: 2, MWK: 2, UGX: 2, BWP: 2, XOF: 3, XAF: 2 };

let providerCodes: Readonly<Record<string, readonly string[]>> = SANDBOX_MOBILE_MONEY_PROVIDERS;

/** The operators' names of a currency, as listed. */
export function providerCodesFor(currency: string): readonly string[] {
  return providerCodes[currency] ?? [];
}

/** `provider` as stored: the listed name (any letter case matches) or a placeholder alias as sent; undefined when neither. */
export function canonicalProvider(currency: string, value: string): string | undefined {
  const wanted = value.trim().toLowerCase();
  const named = providerCodesFor(currency).find((n) => n.toLowerCase() === wanted);
  if (named) return named;
  const alias = new RegExp(`^${currency}_MOBILE_(\\d+)$`).exec(value);
  const n = alias ? Number(alias[1]) : 0;
  return n >= 1 && n <= (PLACEHOLDER_COUNTS[currency] ?? 0) ? value : undefined;
}

/** Replace the operator lists per currency (missing currencies keep the sandbox's). */
export function configureProviderCodes(overrides: Record<string, readonly string[]>): void {
  providerCodes = { ...SANDBOX_MOBILE_MONEY_PROVIDERS, ...overrides };
}

/** For tests: back to the placeholders. */
export function resetProviderCodes(): void {
  providerCodes = SANDBOX_MOBILE_MONEY_PROVIDERS;
}
