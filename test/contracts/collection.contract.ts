import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { InboundWebhookAnswer } from '../../src/adapters/common.js';
import type { CollectionAdapter, CollectionAdapterContext, CollectionCredit } from '../../src/adapters/collection/port.js';
import type { CollectionMessage } from '../../src/adapters/collection/protocol.js';
import { guardCollection } from '../../src/adapters/collection/guard.js';
import { contractContext, settlesWithin } from './context.js';

/** The service's side as the harness records it: every credit reported, in order. */
export function collectionContext(adapterId: string): CollectionAdapterContext & { reported: CollectionCredit[] } {
  const reported: CollectionCredit[] = [];
  return { ...contractContext('collection', adapterId), reported, reportCredit: async (c) => (reported.push(c), 'APPLIED') } as CollectionAdapterContext & { reported: CollectionCredit[] };
}

/** What every collection adapter must do (docs/adapters.md "Collection"). */
export interface CollectionContractHarness {
  adapter: CollectionAdapter;
  reported: CollectionCredit[];
  /** A currency the provider collects in, and a rail it does not serve for it (if there is one). */
  currency: string;
  unservedRail?: string;
  /** Money arrives at the provider on coordinates with `reference` (no push): what listCredits must answer. */
  deliver(credit: Omit<CollectionCredit, 'receivedAt'>): Promise<void>;
  /** The provider pushes this message, signed as it signs, to the adapter's webhook; and with a signature that does not verify. */
  push(message: CollectionMessage): Promise<InboundWebhookAnswer>;
  pushForged(message: CollectionMessage): Promise<InboundWebhookAnswer>;
  close?(): Promise<void>;
}

export function describeCollectionContract(name: string, factory: () => Promise<CollectionContractHarness>): void {
  describe(`collection adapter contract: ${name}`, () => {
    let h: CollectionContractHarness;
    let adapter: CollectionAdapter;
    beforeAll(async () => {
      h = await factory();
      adapter = guardCollection(h.adapter, 5_000, { debug() {}, info() {}, warn() {}, error() {} });
    });
    afterAll(async () => {
      await h?.close?.();
    });
    const request = (rail: string, internalAccountId = `InternalAccount:${randomUUID()}`) => ({
      coordinatesId: `CollectionCoordinates:${randomUUID()}`, internalAccountId, customerId: `Customer:${randomUUID()}`, accountHolderName: 'Ada Lovelace',
      currency: h.currency, rail, isPlatformAccount: false,
    });

    it('names the rails it collects on per currency, none for a currency it does not serve', () => {
      expect(adapter.railsFor(h.currency).length).toBeGreaterThan(0);
      expect(adapter.railsFor('ZZZ')).toEqual([]);
    });

    it('opening is idempotent per coordinates id: OPEN with a reference and REF-shaped instructions; another account gets other coordinates', async () => {
      for (const rail of adapter.railsFor(h.currency)) {
        const req = request(rail);
        const a = await adapter.openCoordinates(req);
        const b = await adapter.openCoordinates(req);
        expect(a.status).toBe('OPEN');
        expect(b).toEqual(a);
        expect(a.reference).toEqual(expect.any(String));
        expect(a.instructions).toMatchObject({ isPlatformAccount: false, accountOrWalletInfo: { accountType: expect.any(String) } });
        const other = await adapter.openCoordinates(request(rail));
        expect(other.reference).not.toBe(a.reference);
      }
    });

    it('a rail it does not serve is REJECTED, never OPEN; closing is accepted and repeatable', async () => {
      if (h.unservedRail) expect((await adapter.openCoordinates(request(h.unservedRail))).status).toBe('REJECTED');
      const rail = adapter.railsFor(h.currency)[0]!;
      const req = request(rail);
      const opened = await adapter.openCoordinates(req);
      await adapter.closeCoordinates({ coordinatesId: req.coordinatesId, reference: opened.reference!, rail });
      await adapter.closeCoordinates({ coordinatesId: req.coordinatesId, reference: opened.reference!, rail });
    });

    it('the poll answers each credit once from a cursor, oldest first, within the limit', async () => {
      const rail = adapter.railsFor(h.currency)[0]!;
      const { reference } = await adapter.openCoordinates(request(rail));
      // Start from the provider's present: read everything there is.
      let cursor: string | undefined;
      for (let page = await adapter.listCredits({ limit: 100 }); ; page = await adapter.listCredits({ cursor, limit: 100 })) {
        cursor = page.nextCursor;
        if (page.credits.length === 0) break;
      }
      const ids = [`c1-${randomUUID()}`, `c2-${randomUUID()}`, `c3-${randomUUID()}`];
      for (const [i, creditId] of ids.entries()) await h.deliver({ creditId, reference: reference!, rail, amount: BigInt(100 + i), currency: h.currency });
      const first = await adapter.listCredits({ cursor, limit: 2 });
      expect(first.credits.map((c) => c.creditId)).toEqual(ids.slice(0, 2));
      expect(first.credits[0]).toMatchObject({ reference, rail, amount: 100n, currency: h.currency });
      expect(first.credits[0]!.receivedAt).toBeInstanceOf(Date);
      const second = await adapter.listCredits({ cursor: first.nextCursor, limit: 2 });
      expect(second.credits.map((c) => c.creditId)).toEqual(ids.slice(2));
      const third = await adapter.listCredits({ cursor: second.nextCursor, limit: 2 });
      expect(third.credits).toEqual([]);
      expect(third.nextCursor).toBe(second.nextCursor);
    });

    it('a signed push is reported with its credit id and exact amount; a forged one is refused (401) and reported never', async () => {
      const creditId = `push-${randomUUID()}`;
      const message: CollectionMessage = { kind: 'CREDIT', creditId, reference: 'ACH:880000000001', rail: 'ACH', amount: '9007199254740993', currency: h.currency, receivedAt: new Date().toISOString() };
      const ok = await h.push(message);
      expect(ok.status).toBe(200);
      expect(h.reported.filter((c) => c.creditId === creditId)).toEqual([expect.objectContaining({ amount: 9007199254740993n, reference: 'ACH:880000000001' })]);
      const forged = await h.pushForged({ ...message, creditId: `${creditId}-forged` });
      expect(forged.status).toBe(401);
      expect(h.reported.some((c) => c.creditId === `${creditId}-forged`)).toBe(false);
      expect((await h.push({ ...message, amount: 0 } as CollectionMessage)).status).toBe(400);
    });

    it('an aborted signal is honoured', async () => {
      const rail = adapter.railsFor(h.currency)[0]!;
      expect((await settlesWithin(2_000, adapter.openCoordinates(request(rail), { signal: AbortSignal.abort() }))).ok).toBe(false);
    });
  });
}
