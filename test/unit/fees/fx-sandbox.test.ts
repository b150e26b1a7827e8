import { describe, expect, it } from 'vitest';
import { Decimal } from 'decimal.js';
import { sandboxFxProvider, SANDBOX_UNITS_PER_USD } from '../../../src/adapters/fx/sandbox/index.js';
import { FxRateUnavailableError } from '../../../src/adapters/fx/port.js';
import { ACCOUNT_TYPES, canonicalAccountType, currenciesFor } from '../../../src/domains/external-accounts/account-types.js';

const at = new Date('2026-01-01T00:00:00.000Z');
const clock = { now: () => at };

describe('sandbox FX provider', () => {
  it('quotes sending major units per receiving major unit, with the spread against the sender', async () => {
    const fx = sandboxFxProvider({ spreadBps: 50, clock });
    // 1 MXN = 1/18.5 USD; +0.5 %: 0.0543243243243…, 12 significant digits rounded up.
    expect(await fx.getRate('USD', 'MXN')).toEqual({ rate: '0.0543243243244', asOf: at });
    expect((await fx.getRate('USD', 'BTC')).rate).toBe('100500');
    expect((await fx.getRate('BTC', 'USD')).rate).toBe('0.00001005');
    expect((await fx.getRate('USD', 'USDC')).rate).toBe('1.005');
  });

  it('a round trip costs the sender twice the spread, never less', async () => {
    const fx = sandboxFxProvider({ spreadBps: 50, clock });
    const there = new Decimal((await fx.getRate('EUR', 'INR')).rate);
    const back = new Decimal((await fx.getRate('INR', 'EUR')).rate);
    expect(there.mul(back).toNumber()).toBeGreaterThanOrEqual(1.005 ** 2);
  });

  it('same currency is exactly 1; without spread the mid rate', async () => {
    const fx = sandboxFxProvider({ spreadBps: 0, clock });
    expect((await fx.getRate('EUR', 'EUR')).rate).toBe('1');
    expect((await fx.getRate('USD', 'USDT')).rate).toBe('1');
    expect((await fx.getRate('USD', 'GBP')).rate).toBe('1.33333333334');
  });

  it('has a rate for every account-type currency, the stablecoins and BTC', async () => {
    const fx = sandboxFxProvider({ spreadBps: 50, clock });
    const codes = new Set(['USDC', 'USDT', 'USDB', 'BTC']);
    for (const type of ACCOUNT_TYPES) for (const c of currenciesFor(canonicalAccountType(type)) ?? []) codes.add(c);
    for (const c of codes) {
      expect(SANDBOX_UNITS_PER_USD[c], c).toBeDefined();
      expect(Number((await fx.getRate('USD', c)).rate)).toBeGreaterThan(0);
    }
  });

  it('an unknown pair is a non-retryable FxRateUnavailableError', async () => {
    const fx = sandboxFxProvider({ spreadBps: 50, clock });
    const err = await fx.getRate('USD', 'JPY').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(FxRateUnavailableError);
    expect(err).toMatchObject({ providerId: 'sandbox', reason: 'PAIR_UNSUPPORTED', retryable: false });
  });
});
