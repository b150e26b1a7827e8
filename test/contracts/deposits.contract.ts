import { describe, expect, it } from 'vitest';
import { FUNDING_NETWORKS, type DepositDetector } from '../../src/adapters/deposits/port.js';

/** What every deposit detector must do (docs/adapters.md, anchor 24b; src/adapters/deposits/port.ts). */
export interface DepositsContractHarness {
  adapter: DepositDetector;
  /** Funding currencies it serves; default every one of FUNDING_NETWORKS. */
  currencies?: string[];
}

/** What a deposit arriving at this instruction reports: its reference, invoice, or address on its network. */
function depositAt(accountOrWalletInfo: Record<string, unknown>, network: string): { reference?: string; invoice?: string; address?: string; network?: string } {
  if (typeof accountOrWalletInfo.reference === 'string') return { reference: accountOrWalletInfo.reference };
  if (typeof accountOrWalletInfo.invoice === 'string') return { invoice: accountOrWalletInfo.invoice };
  return { address: String(accountOrWalletInfo.address), network };
}

export function describeDepositsContract(name: string, factory: () => Promise<DepositsContractHarness>): void {
  describe(`deposits adapter contract: ${name}`, () => {
    const request = (quoteId: string, currency: string) => {
      const createdAt = new Date();
      return { quoteId, currency, amount: 12_345n, networks: FUNDING_NETWORKS[currency]!, createdAt, expiresAt: new Date(createdAt.getTime() + 900_000), isPlatformAccount: false };
    };

    it('gives instructions on the networks asked, each matched back by the deposit it describes', async () => {
      const h = await factory();
      for (const currency of h.currencies ?? Object.keys(FUNDING_NETWORKS)) {
        const out = h.adapter.instructionsFor(request('Quote:contract-1', currency));
        expect(out.length, currency).toBeGreaterThan(0);
        const covered = out.flatMap((i) => i.network.split(','));
        expect([...covered].sort(), currency).toEqual([...FUNDING_NETWORKS[currency]!].sort());
        for (const i of out) {
          expect(i.asset).toBe(currency);
          expect(i.matchKey.length).toBeGreaterThan(0);
          expect(h.adapter.matchKeyOf(depositAt(i.wire.accountOrWalletInfo, i.network.split(',')[0]!))).toBe(i.matchKey);
        }
      }
    });

    it("two quotes' instructions never share a match key", async () => {
      const h = await factory();
      const currency = (h.currencies ?? Object.keys(FUNDING_NETWORKS))[0]!;
      const a = h.adapter.instructionsFor(request('Quote:contract-a', currency)).map((i) => i.matchKey);
      const b = h.adapter.instructionsFor(request('Quote:contract-b', currency)).map((i) => i.matchKey);
      expect(a.filter((k) => b.includes(k))).toEqual([]);
    });

    it('a deposit that names nothing matches nothing', async () => {
      const h = await factory();
      expect(h.adapter.matchKeyOf({})).toBeUndefined();
    });
  });
}
