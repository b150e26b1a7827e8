import cc from 'currency-codes';

/** A currency object as the spec's Conventions describe it. */
export interface Currency {
  code: string;
  name: string;
  symbol: string;
  decimals: number;
}

/** Crypto assets the spec names (decision A19): not in ISO 4217. */
const CRYPTO: Currency[] = [
  { code: 'USDC', name: 'USD Coin', symbol: 'USDC', decimals: 6 },
  { code: 'USDT', name: 'Tether USD', symbol: 'USDT', decimals: 6 },
  { code: 'BTC', name: 'Bitcoin', symbol: '₿', decimals: 8 },
  { code: 'USDB', name: 'USDB', symbol: 'USDB', decimals: 6 },
];

/** ISO 4217 codes that are not currencies one can pay in (funds, metals, testing, no currency). */
const NON_TRANSACTIONAL = new Set(['XAU', 'XAG', 'XPT', 'XPD', 'XTS', 'XXX', 'XBA', 'XBB', 'XBC', 'XBD', 'XDR', 'XSU', 'XUA', 'BOV', 'CHE', 'CHW', 'CLF', 'COU', 'MXV', 'USN', 'UYI', 'UYW']);

function symbolOf(code: string): string {
  try {
    const parts = new Intl.NumberFormat('en', { style: 'currency', currency: code, currencyDisplay: 'narrowSymbol' }).formatToParts(1);
    return parts.find((p) => p.type === 'currency')?.value ?? code;
  } catch {
    return code;
  }
}

function buildRegistry(): Map<string, Currency> {
  const map = new Map<string, Currency>();
  for (const code of cc.codes()) {
    if (NON_TRANSACTIONAL.has(code)) continue;
    const info = cc.code(code);
    if (!info) continue;
    // ISO 4217 minor units (digits) decide amounts in minor units; names from the same standard.
    map.set(code, { code, name: info.currency, symbol: symbolOf(code), decimals: info.digits });
  }
  for (const c of CRYPTO) map.set(c.code, c);
  return map;
}

const REGISTRY = buildRegistry();

export function isKnownCurrency(code: string): boolean {
  return REGISTRY.has(code);
}

export function currencyOf(code: string): Currency {
  const c = REGISTRY.get(code);
  if (!c) throw new Error(`unknown currency ${code}`);
  return { ...c };
}
