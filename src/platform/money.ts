import { currencyOf, type Currency } from './currencies.js';

/**
 * Amounts are bigint minor units from the HTTP edge to the database (decision A19). JSON carries
 * them as numbers, which are exact only below 2^53; larger values are refused at the edge.
 */
export const MAX_WIRE_AMOUNT = BigInt(Number.MAX_SAFE_INTEGER);

export interface CurrencyAmount {
  amount: bigint;
  currency: string;
}

/** The wire form `{amount, currency: {code, name, symbol, decimals}}`. */
export function toWireAmount(value: CurrencyAmount): { amount: number; currency: Currency } {
  return { amount: toWireNumber(value.amount), currency: currencyOf(value.currency) };
}

export function toWireNumber(amount: bigint): number {
  if (amount > MAX_WIRE_AMOUNT || amount < -MAX_WIRE_AMOUNT) throw new Error('amount exceeds the wire range');
  return Number(amount);
}
