export type Bucket = 'AVAILABLE' | 'HELD' | 'SYSTEM';

export interface Posting {
  /** An internal account id, or a system account name (see systemAccount). */
  account: string;
  bucket: Bucket;
  currency: string;
  /** Positive increases the account, negative decreases it. */
  amount: bigint;
}

export const CRYPTO_CURRENCIES = new Set(['USDC', 'USDT', 'BTC', 'USDB']);

export function internalAccountType(currency: string): 'INTERNAL_FIAT' | 'INTERNAL_CRYPTO' {
  return CRYPTO_CURRENCIES.has(currency) ? 'INTERNAL_CRYPTO' : 'INTERNAL_FIAT';
}

/**
 * Accounts outside the platform's balances: where sandbox money comes from, what rails have been
 * sent, FX conversion, the service's own fee revenue. Named per currency so each balances alone.
 */
// 26c — STABLECOIN_ISSUER: fiat paid to / tokens exchanged with the stablecoin issuer for internal-account mints and burns.
// hook:27 — CARD_SETTLEMENT (what is owed to / paid to the card network) and CARD_RECEIVABLE (EXCEPTION: paid to the network, not pulled).
export function systemAccount(kind: 'SANDBOX_FUNDING' | 'RAIL_CLEARING' | 'FX' | 'SERVICE_FEES' | 'DEPOSITS' | 'UMA_CLEARING' | 'CARD_SETTLEMENT' | 'CARD_RECEIVABLE' | 'FEE_REVERSAL_RECEIVABLE' | 'STABLECOIN_ISSUER', currency: string, detail?: string): string {
  return `system:${kind}${detail ? `:${detail}` : ''}:${currency}`;
}

/** Sum per currency; a journal is valid only if every sum is zero. */
export function unbalancedCurrencies(postings: Posting[]): string[] {
  const sums = new Map<string, bigint>();
  for (const p of postings) sums.set(p.currency, (sums.get(p.currency) ?? 0n) + p.amount);
  return [...sums].filter(([, s]) => s !== 0n).map(([c]) => c);
}
