import { Decimal } from 'decimal.js';
import type { Clock } from '../../../platform/clock.js';
import { FxRateUnavailableError, type FxRateProvider } from '../port.js';

/**
 * Deterministic sandbox rates: a fixed mid-rate table (units of each currency per one US dollar,
 * rounded late-2025 levels), crossed through USD, plus a spread against the sender. Covers every
 * currency of the spec's account types, the stablecoins (USDC, USDT, USDB pegged 1:1) and BTC.
 */
export const SANDBOX_UNITS_PER_USD: Readonly<Record<string, string>> = Object.freeze({
  USD: '1',
  USDC: '1',
  USDT: '1',
  USDB: '1',
  BTC: '0.00001',
  AED: '3.6725',
  BDT: '120',
  BRL: '5.4',
  BWP: '13.5',
  CAD: '1.4',
  CNY: '7.1',
  COP: '3900',
  DKK: '6.4',
  EGP: '48',
  EUR: '0.86',
  GBP: '0.75',
  GHS: '11',
  GTQ: '7.7',
  HKD: '7.8',
  HTG: '131',
  IDR: '16500',
  ILS: '3.3',
  INR: '88',
  JMD: '160',
  KES: '129',
  MWK: '1735',
  MXN: '18.5',
  MYR: '4.2',
  NGN: '1450',
  PHP: '58',
  PKR: '282',
  RWF: '1450',
  SGD: '1.3',
  THB: '32.5',
  TZS: '2450',
  UGX: '3500',
  VND: '26300',
  XAF: '565',
  XOF: '565',
  ZAR: '17.5',
  ZMW: '23',
});

/** Rates are published to 12 significant digits, rounded up: rounding never favours the sender. */
const RATE_SIGNIFICANT_DIGITS = 12;
const D = Decimal.clone({ precision: 40 });

export function sandboxFxProvider(opts: { spreadBps: number; clock: Clock }): FxRateProvider {
  const id = 'sandbox';
  const spread = new D(opts.spreadBps).div(10_000).plus(1);
  return {
    id,
    async getRate(sending, receiving, callOpts) {
      callOpts?.signal?.throwIfAborted();
      const asOf = opts.clock.now();
      if (sending === receiving) return { rate: '1', asOf };
      const perUsdSending = SANDBOX_UNITS_PER_USD[sending];
      const perUsdReceiving = SANDBOX_UNITS_PER_USD[receiving];
      if (!perUsdSending || !perUsdReceiving) {
        throw new FxRateUnavailableError(id, 'PAIR_UNSUPPORTED', false, `No sandbox rate for ${sending} to ${receiving}.`);
      }
      // Sending major per receiving major = (sending per USD) / (receiving per USD); a higher
      // rate costs the sender more, so the spread multiplies it.
      const mid = new D(perUsdSending).div(perUsdReceiving);
      const rate = mid.mul(spread).toSignificantDigits(RATE_SIGNIFICANT_DIGITS, Decimal.ROUND_UP);
      return { rate: rate.toFixed(), asOf };
    },
  };
}
