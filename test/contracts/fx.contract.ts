import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FxRateProvider } from '../../src/adapters/fx/port.js';
import { settlesWithin } from './context.js';

/** What every FX rate provider must do (docs/adapters.md "Exchange rates"). */
export interface FxContractHarness {
  adapter: FxRateProvider;
  /** A pair it quotes; default USD → EUR. */
  pair?: [string, string];
  close?(): Promise<void>;
}

export function describeFxContract(name: string, factory: () => Promise<FxContractHarness>): void {
  describe(`fx adapter contract: ${name}`, () => {
    let h: FxContractHarness;
    beforeAll(async () => {
      h = await factory();
    });
    afterAll(async () => {
      await h?.close?.();
      await h?.adapter.close?.();
    });

    it('quotes a pair as a positive decimal string with the time it was quoted', async () => {
      const [s, r] = h.pair ?? ['USD', 'EUR'];
      const rate = await h.adapter.getRate(s, r);
      expect(rate.rate).toMatch(/^\d+(\.\d+)?$/);
      expect(Number(rate.rate)).toBeGreaterThan(0);
      expect(rate.asOf).toBeInstanceOf(Date);
      expect(Number.isNaN(rate.asOf.getTime())).toBe(false);
    });

    it('a pair it cannot quote is an error that says it is not retryable', async () => {
      await expect(h.adapter.getRate('USD', 'XXX')).rejects.toMatchObject({ retryable: false });
    });

    it('an aborted signal is honoured', async () => {
      const [s, r] = h.pair ?? ['USD', 'EUR'];
      const res = await settlesWithin(2_000, h.adapter.getRate(s, r, { signal: AbortSignal.abort() }));
      expect(res.ok).toBe(false);
    });
  });
}
