import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Decimal } from 'decimal.js';
import { BadRequestError, DomainError } from '../../../src/platform/errors.js';
import { currencyOf } from '../../../src/platform/currencies.js';
import { feesForSendingAmount, priceQuote, roundFee, variableFee, type FeeComponents, type PricingInput } from '../../../src/domains/fees/pricing.js';

const NO_FEE: FeeComponents = { fixed: 0n, bps: 0 };
const price = (over: Partial<PricingInput>) =>
  priceQuote({ lockedSide: 'SENDING', lockedAmount: 1000n, sendingCurrency: 'USD', receivingCurrency: 'USD', rate: '1', platformFee: NO_FEE, serviceFee: NO_FEE, ...over });

function failure(fn: () => unknown): DomainError {
  try {
    fn();
  } catch (e) {
    if (e instanceof DomainError) return e;
    throw e;
  }
  throw new Error('expected a DomainError');
}

describe('the spec worked example', () => {
  it('1000 minor units, platform 30 bps + 50 fixed, service 100 bps: base 950, platform fee 53, service fee 10, fees 63', () => {
    const p = price({ platformFee: { fixed: 50n, bps: 30 }, serviceFee: { fixed: 0n, bps: 100 } });
    expect(variableFee(950n, 30)).toBe(3n); // 2.85 rounded
    expect(variableFee(950n, 100)).toBe(10n); // 9.5 rounded half up
    expect(p).toEqual({
      totalSendingAmount: 1000n,
      totalReceivingAmount: 937n,
      netSendingAmount: 937n,
      platformFee: 53n,
      serviceFee: 10n,
      feesIncluded: 63n,
      exchangeRate: '1',
      split: { platformFixed: 50n, platformBps: 30, platformVariable: 3n, serviceFixed: 0n, serviceBps: 100, serviceVariable: 10n, base: 950n },
    });
  });

  it('roundFee rounds each component half up to the minor unit', () => {
    expect(roundFee({ num: 285n, den: 100n })).toBe(3n);
    expect(roundFee({ num: 95n, den: 10n })).toBe(10n);
    expect(roundFee({ num: 94_999n, den: 10_000n })).toBe(9n);
    expect(roundFee({ num: 1n, den: 2n })).toBe(1n);
    expect(roundFee({ num: 0n, den: 10_000n })).toBe(0n);
  });
});

describe('same currency', () => {
  it('with the receiving amount locked, the sender pays the amount plus fees and the recipient gets exactly it', () => {
    const p = price({ lockedSide: 'RECEIVING', lockedAmount: 937n, platformFee: { fixed: 50n, bps: 30 }, serviceFee: { fixed: 0n, bps: 100 } });
    expect(p).toMatchObject({ totalReceivingAmount: 937n, netSendingAmount: 937n });
    expect(p.totalSendingAmount).toBe(p.netSendingAmount + p.feesIncluded);
    // Minimal: one unit less no longer delivers 937.
    expect(feesForSendingAmount(p.totalSendingAmount - 1n, { fixed: 50n, bps: 30 }, { fixed: 0n, bps: 100 }).net).toBeLessThan(937n);
  });

  it('without fees the amount passes through unchanged on either side', () => {
    expect(price({ lockedAmount: 12345n }).totalReceivingAmount).toBe(12345n);
    expect(price({ lockedSide: 'RECEIVING', lockedAmount: 12345n }).totalSendingAmount).toBe(12345n);
  });

  it('handles amounts up to 9e15 exactly', () => {
    const p = price({ lockedAmount: 9_000_000_000_000_000n, platformFee: { fixed: 1n, bps: 1 }, serviceFee: { fixed: 0n, bps: 3 } });
    // base 8 999 999 999 999 999; 1 bps = 899 999 999 999.9999 → 900 000 000 000; 3 bps → 2 700 000 000 000
    expect(p.platformFee).toBe(1n + 900_000_000_000n);
    expect(p.serviceFee).toBe(2_700_000_000_000n);
    expect(p.totalReceivingAmount).toBe(9_000_000_000_000_000n - p.feesIncluded);
  });
});

describe('cross currency with differing decimals', () => {
  const fees = { platformFee: { fixed: 50n, bps: 30 }, serviceFee: { fixed: 0n, bps: 100 } };

  it('USD (2) to JPY (0), sending locked: the recipient gets the converted net rounded down', () => {
    const p = price({ receivingCurrency: 'JPY', rate: '0.0067', lockedAmount: 10_000n, ...fees });
    // base 9950: platform 50 + 29.85→30, service 99.5→100; net 9820 cents = 98.20 USD = 14656.7 JPY
    expect(p).toMatchObject({ totalSendingAmount: 10_000n, platformFee: 80n, serviceFee: 100n, feesIncluded: 180n, netSendingAmount: 9820n, totalReceivingAmount: 14_656n, exchangeRate: '0.0067' });
  });

  it('USD (2) to JPY (0), receiving locked: the smallest sending amount whose net buys the locked amount', () => {
    const p = price({ receivingCurrency: 'JPY', rate: '0.0067', lockedSide: 'RECEIVING', lockedAmount: 14_656n, ...fees });
    // 14656 JPY × 0.0067 = 98.1952 USD → 9820 cents (up); base 9949 already nets 9820 (30 + 99 fees).
    expect(p).toMatchObject({ totalReceivingAmount: 14_656n, netSendingAmount: 9820n, platformFee: 80n, serviceFee: 99n, totalSendingAmount: 9999n });
  });

  it('USD (2) to KWD (3) on both sides', () => {
    const s = price({ receivingCurrency: 'KWD', rate: '3.25', lockedAmount: 10_000n });
    expect(s.totalReceivingAmount).toBe(30_769n); // 100 / 3.25 = 30.7692… KWD
    const r = price({ receivingCurrency: 'KWD', rate: '3.25', lockedSide: 'RECEIVING', lockedAmount: 30_769n });
    expect(r.totalSendingAmount).toBe(10_000n); // 30.769 × 3.25 = 99.99925 → 10000 cents (up)
    expect(r.totalReceivingAmount).toBe(30_769n);
  });

  it('USD (2) to BTC (8) on both sides', () => {
    const s = price({ receivingCurrency: 'BTC', rate: '100500', lockedAmount: 10_000n });
    expect(s.totalReceivingAmount).toBe(99_502n); // 100 / 100500 BTC = 99502.48… sats
    const r = price({ receivingCurrency: 'BTC', rate: '100500', lockedSide: 'RECEIVING', lockedAmount: 99_502n });
    expect(r.totalSendingAmount).toBe(10_000n); // 99502 sats × 100500 = 99.99951 USD → 10000 cents
  });

  it('JPY (0) to USD (2): a rate written in exponent form is used exactly', () => {
    const s = price({ sendingCurrency: 'JPY', receivingCurrency: 'USD', rate: '1.5e+2', lockedAmount: 10_000n });
    expect(s).toMatchObject({ totalReceivingAmount: 6666n, exchangeRate: '150' }); // 10000 / 150 = 66.666 USD
  });
});

describe('amounts the fees swallow', () => {
  it('is 400 INVALID_AMOUNT on lockedCurrencyAmount when nothing is left after fees', () => {
    for (const input of [
      { lockedAmount: 40n, platformFee: { fixed: 50n, bps: 0 } },
      { lockedAmount: 50n, platformFee: { fixed: 50n, bps: 0 } },
      { lockedAmount: 0n },
      { lockedAmount: 1n, sendingCurrency: 'BTC', receivingCurrency: 'USD', rate: '0.00001' }, // 1 sat = 0.001 USD → 0 cents
      { lockedSide: 'RECEIVING' as const, lockedAmount: 0n },
      { lockedSide: 'RECEIVING' as const, lockedAmount: 10n, platformFee: { fixed: 0n, bps: 6000 }, serviceFee: { fixed: 0n, bps: 4000 } },
    ]) {
      const e = failure(() => price(input));
      expect(e).toBeInstanceOf(BadRequestError);
      expect(e).toMatchObject({ status: 400, code: 'INVALID_AMOUNT' });
      expect((e.details as any).errors[0].field).toBe('lockedCurrencyAmount');
    }
    // One cent still buys something: 0.01 USD at 100000 USD/BTC is 10 sats.
    expect(price({ lockedAmount: 1n, receivingCurrency: 'BTC', rate: '100000' }).totalReceivingAmount).toBe(10n);
  });
});

// ------------------------------------------------------------------ properties

const CURRENCIES = ['USD', 'JPY', 'KWD', 'BTC', 'EUR', 'USDC'] as const;

/** A rate m × 10^e as a decimal string, with its exact parts for independent checks. */
const rateArb = fc.record({ mantissa: fc.bigInt({ min: 1n, max: 999_999_999n }), exponent: fc.integer({ min: -9, max: 4 }) });
const feesArb = fc
  .record({ pb: fc.integer({ min: 0, max: 9999 }), sb: fc.integer({ min: 0, max: 9999 }), pf: fc.bigInt({ min: 0n, max: 1_000_000n }), sf: fc.bigInt({ min: 0n, max: 1_000_000n }) })
  .filter((f) => f.pb + f.sb < 10_000);
const caseArb = fc.record({
  amount: fc.bigInt({ min: 1n, max: 1_000_000_000_000n }),
  side: fc.constantFrom('SENDING' as const, 'RECEIVING' as const),
  fees: feesArb,
  sending: fc.constantFrom(...CURRENCIES),
  receiving: fc.constantFrom(...CURRENCIES),
  rate: rateArb,
});

const rateString = (r: { mantissa: bigint; exponent: number }) => (r.exponent >= 0 ? (r.mantissa * 10n ** BigInt(r.exponent)).toString() : new Decimal(r.mantissa.toString()).div(new Decimal(10).pow(-r.exponent)).toFixed());
/** rate = num/den exactly, from its generated parts (independent of the code under test). */
const rateFraction = (r: { mantissa: bigint; exponent: number }) => (r.exponent >= 0 ? { num: r.mantissa * 10n ** BigInt(r.exponent), den: 1n } : { num: r.mantissa, den: 10n ** BigInt(-r.exponent) });
/** Half-up rounding of base × bps / 10^4, recomputed with decimal.js (independent of roundFee). */
const Wide = Decimal.clone({ precision: 50 });
const halfUpFee = (base: bigint, bps: number) => BigInt(new Wide(base.toString()).mul(bps).div(10_000).toDecimalPlaces(0, Decimal.ROUND_HALF_UP).toFixed(0));

describe('pricing properties', () => {
  it('S = net + fees; fees = platform + service; each variable fee is roundFee(base × bps / 10^4) of base = S − fixed fees', () => {
    fc.assert(
      fc.property(caseArb, (c) => {
        const same = c.sending === c.receiving;
        const { pb, sb, pf, sf } = c.fees;
        let p;
        try {
          p = priceQuote({ lockedSide: c.side, lockedAmount: c.amount, sendingCurrency: c.sending, receivingCurrency: c.receiving, rate: same ? '1' : rateString(c.rate), platformFee: { fixed: pf, bps: pb }, serviceFee: { fixed: sf, bps: sb } });
        } catch (e) {
          expect(e).toMatchObject({ code: 'INVALID_AMOUNT' });
          return;
        }
        expect(p.totalSendingAmount).toBe(p.netSendingAmount + p.feesIncluded);
        expect(p.feesIncluded).toBe(p.platformFee + p.serviceFee);
        const base = p.totalSendingAmount - pf - sf;
        expect(base).toBeGreaterThanOrEqual(0n);
        expect(p.platformFee).toBe(pf + halfUpFee(base, pb));
        expect(p.serviceFee).toBe(sf + halfUpFee(base, sb));
        expect(p.netSendingAmount).toBeGreaterThan(0n);
        expect(p.totalReceivingAmount).toBeGreaterThan(0n);
        if (same) expect(p.totalReceivingAmount).toBe(p.netSendingAmount);
      }),
      { numRuns: 500 },
    );
  });

  it('sending locked: S is the locked amount, R is the net converted rounded down, and R + 1 would cost more than the net', () => {
    fc.assert(
      fc.property(caseArb, (c) => {
        fc.pre(c.sending !== c.receiving);
        const { pb, sb, pf, sf } = c.fees;
        let p;
        try {
          p = priceQuote({ lockedSide: 'SENDING', lockedAmount: c.amount, sendingCurrency: c.sending, receivingCurrency: c.receiving, rate: rateString(c.rate), platformFee: { fixed: pf, bps: pb }, serviceFee: { fixed: sf, bps: sb } });
        } catch (e) {
          expect(e).toMatchObject({ code: 'INVALID_AMOUNT' });
          return;
        }
        expect(p.totalSendingAmount).toBe(c.amount);
        const { num, den } = rateFraction(c.rate);
        const ds = 10n ** BigInt(currencyOf(c.sending).decimals);
        const dr = 10n ** BigInt(currencyOf(c.receiving).decimals);
        // cost in sending minor units of x receiving minor units = x × rate × ds / dr; compare scaled by den × dr.
        const cost = (x: bigint) => x * num * ds;
        const paid = p.netSendingAmount * den * dr;
        expect(cost(p.totalReceivingAmount) <= paid).toBe(true);
        expect(cost(p.totalReceivingAmount + 1n) > paid).toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  it('receiving locked: R is the locked amount and the net is the least sufficient amount, reached by the smallest S', () => {
    fc.assert(
      fc.property(caseArb, (c) => {
        const same = c.sending === c.receiving;
        const { pb, sb, pf, sf } = c.fees;
        const platformFee = { fixed: pf, bps: pb };
        const serviceFee = { fixed: sf, bps: sb };
        const p = priceQuote({ lockedSide: 'RECEIVING', lockedAmount: c.amount, sendingCurrency: c.sending, receivingCurrency: c.receiving, rate: same ? '1' : rateString(c.rate), platformFee, serviceFee });
        expect(p.totalReceivingAmount).toBe(c.amount);
        const { num, den } = same ? { num: 1n, den: 1n } : rateFraction(c.rate);
        const ds = 10n ** BigInt(currencyOf(c.sending).decimals);
        const dr = 10n ** BigInt(currencyOf(c.receiving).decimals);
        const needed = c.amount * num * ds; // scaled by den × dr
        const sufficient = (net: bigint) => net * den * dr >= needed;
        expect(sufficient(p.netSendingAmount)).toBe(true);
        expect(sufficient(p.netSendingAmount - 1n)).toBe(false);
        if (same) expect(p.netSendingAmount).toBe(c.amount);
        // No smaller total delivers the locked amount.
        for (let s = p.totalSendingAmount - 1n; s >= 0n && s >= p.totalSendingAmount - 50n; s--) {
          expect(feesForSendingAmount(s, platformFee, serviceFee).net < p.netSendingAmount).toBe(true);
        }
      }),
      { numRuns: 500 },
    );
  });
});
