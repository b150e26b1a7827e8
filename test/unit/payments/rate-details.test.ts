import fc from 'fast-check';
import { Decimal } from 'decimal.js';
import { describe, expect, it } from 'vitest';
import { priceQuote, priceQuoteForWire } from '../../../src/domains/fees/pricing.js';
import { feeSplitColumns, rateDetailsOf, rateDetailsResource, storedFeeSplit, type StoredFeeSplit } from '../../../src/domains/payments/rate-details.js';

/**
 * REF's OutgoingRateDetails (REF OpenAPI `OutgoingRateDetails`): all six fields required; fixed fees
 * and the variable fee amount are integers in minor units; the variable rate a fraction (0.003 = 30
 * bps); multipliers positive. The grid-API fee parts add up to the quote's feesIncluded.
 */
const REF_FIELDS = ['counterpartyMultiplier', 'counterpartyFixedFee', 'gridApiMultiplier', 'gridApiFixedFee', 'gridApiVariableFeeRate', 'gridApiVariableFeeAmount'];

describe('rateDetails (REF OutgoingRateDetails)', () => {
  it('the spec\'s worked example: 1000 USD cents, platform 50 + 30 bps, service 100 bps → fixed 50, variable 13 at 0.013, fees 63', () => {
    const p = priceQuote({ lockedSide: 'SENDING', lockedAmount: 1000n, sendingCurrency: 'USD', receivingCurrency: 'USD', rate: '1', platformFee: { fixed: 50n, bps: 30 }, serviceFee: { fixed: 0n, bps: 100 } });
    const r = rateDetailsOf(feeSplitColumns(p, 'USD', 'USD'))!;
    expect(Object.keys(r).sort()).toEqual([...REF_FIELDS].sort());
    expect(r).toMatchObject({ gridApiFixedFee: 50, gridApiVariableFeeAmount: 13, gridApiVariableFeeRate: 0.013, counterpartyFixedFee: 0, counterpartyMultiplier: 1 });
    // Same currency: what is left after variable fees, per unit converted: 937 / 950.
    expect(r.gridApiMultiplier).toBeCloseTo(937 / 950, 15);
    expect(r.gridApiFixedFee + r.gridApiVariableFeeAmount).toBe(Number(p.feesIncluded));
  });

  it('USD → EUR at 1.08 USD per EUR with 50 bps: the multiplier is cents of EUR per cent of USD after the fee', () => {
    const p = priceQuote({ lockedSide: 'SENDING', lockedAmount: 10_000n, sendingCurrency: 'USD', receivingCurrency: 'EUR', rate: '1.08', platformFee: { fixed: 0n, bps: 0 }, serviceFee: { fixed: 25n, bps: 50 } });
    const r = rateDetailsOf(feeSplitColumns(p, 'USD', 'EUR'))!;
    expect(r.gridApiVariableFeeRate).toBe(0.005);
    expect(r.gridApiFixedFee).toBe(25);
    // base 10000 − 25 = 9975; its 50 bps is 49.875, rounded to 50: 9925 of 9975 are converted at 1/1.08.
    expect(r.gridApiVariableFeeAmount).toBe(50);
    expect(r.gridApiMultiplier).toBeCloseTo(9925 / 9975 / 1.08, 14);
    // 9189.81… EUR cents, rounded down to what the recipient gets.
    expect(Math.floor((10_000 - r.gridApiFixedFee) * r.gridApiMultiplier * r.counterpartyMultiplier - r.counterpartyFixedFee)).toBe(Number(p.totalReceivingAmount));
  });

  it('a UMA payment goes through millisatoshis: gridApiMultiplier is msats per sending unit, counterpartyMultiplier receiving units per msat', () => {
    const p = priceQuote({ lockedSide: 'RECEIVING', lockedAmount: 5_000n, sendingCurrency: 'USD', receivingCurrency: 'MXN', rate: '0.05', platformFee: { fixed: 0n, bps: 0 }, serviceFee: { fixed: 0n, bps: 50 } });
    const msatsPerCentavo = 5_400;
    const r = rateDetailsOf(feeSplitColumns(p, 'USD', 'MXN', msatsPerCentavo))!;
    expect(r.counterpartyMultiplier).toBeCloseTo(1 / msatsPerCentavo, 15);
    const msats = (Number(p.totalSendingAmount) - r.gridApiFixedFee) * r.gridApiMultiplier;
    expect(msats / msatsPerCentavo).toBeCloseTo(5_000, 0);
  });

  it('for any priced quote the breakdown adds up to feesIncluded and re-derives the receiving amount (sending locked: within one unit below; receiving locked: at least it)', () => {
    const currencies = ['USD', 'EUR', 'JPY', 'BTC', 'USDC'] as const;
    fc.assert(
      fc.property(
        fc.record({
          amount: fc.bigInt({ min: 1n, max: 10_000_000_000n }),
          side: fc.constantFrom('SENDING' as const, 'RECEIVING' as const),
          pb: fc.integer({ min: 0, max: 3000 }),
          sb: fc.integer({ min: 0, max: 3000 }),
          pf: fc.bigInt({ min: 0n, max: 10_000n }),
          sf: fc.bigInt({ min: 0n, max: 10_000n }),
          sending: fc.constantFrom(...currencies),
          receiving: fc.constantFrom(...currencies),
          rate: fc.integer({ min: 1, max: 10_000_000 }),
        }),
        (c) => {
          const same = c.sending === c.receiving;
          const rate = same ? '1' : new Decimal(c.rate).div(1000).toFixed();
          let p;
          try {
            p = priceQuoteForWire({ lockedSide: c.side, lockedAmount: c.amount, sendingCurrency: c.sending, receivingCurrency: c.receiving, rate, platformFee: { fixed: c.pf, bps: c.pb }, serviceFee: { fixed: c.sf, bps: c.sb } });
          } catch {
            return; // the fees swallow the amount, or it passes the wire range: nothing is priced
          }
          const cols = feeSplitColumns(p, c.sending, c.receiving);
          expect(cols.platformFixedFee + cols.platformVariableFee).toBe(p.platformFee);
          expect(cols.serviceFixedFee + cols.serviceVariableFee).toBe(p.serviceFee);
          const r = rateDetailsOf(cols)!;
          expect(r.gridApiFixedFee + r.gridApiVariableFeeAmount).toBe(Number(p.feesIncluded));
          expect(r.gridApiVariableFeeRate).toBe((c.pb + c.sb) / 10_000);
          expect(r.gridApiMultiplier).toBeGreaterThan(0);
          // With the stored decimals: (S − fixed) × multipliers is what S buys at the quoted rate.
          // Sending locked, R is that rounded down; receiving locked, S was rounded up to cover R.
          const exact = new Decimal((p.totalSendingAmount - cols.platformFixedFee - cols.serviceFixedFee).toString()).mul(cols.sendingMultiplier).mul(cols.counterpartyMultiplier);
          const received = new Decimal(p.totalReceivingAmount.toString());
          const slack = received.mul('1e-15');
          expect(exact.greaterThanOrEqualTo(received.minus(slack)), `${exact} vs ${received}`).toBe(true);
          if (c.side === 'SENDING') expect(exact.lessThan(received.plus(1).plus(slack)), `${exact} vs ${received}`).toBe(true);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('a row priced before the split was kept has no rateDetails; the served form repeats the values under the svcApi names', () => {
    const none: StoredFeeSplit = storedFeeSplit({ platformFixedFee: null, platformVariableFeeBps: null, platformVariableFee: null, serviceFixedFee: null, serviceVariableFeeBps: null, serviceVariableFee: null, counterpartyFixedFee: null, counterpartyMultiplier: null, sendingMultiplier: null });
    expect(rateDetailsOf(none)).toBeUndefined();
    expect(rateDetailsResource(none)).toBeUndefined();
    const p = priceQuote({ lockedSide: 'SENDING', lockedAmount: 1000n, sendingCurrency: 'USD', receivingCurrency: 'USD', rate: '1', platformFee: { fixed: 0n, bps: 0 }, serviceFee: { fixed: 25n, bps: 0 } });
    // A whole row carries other columns, some null: only the split decides.
    const served = rateDetailsResource({ ...feeSplitColumns(p, 'USD', 'USD'), description: null } as StoredFeeSplit)!;
    expect(served).toMatchObject({ gridApiFixedFee: 25, svcApiFixedFee: 25, svcApiMultiplier: served.gridApiMultiplier, svcApiVariableFeeRate: 0, svcApiVariableFeeAmount: 0 });
  });
});
