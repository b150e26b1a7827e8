import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DocumentStorage } from '../../src/adapters/storage/port.js';
import { settlesWithin } from './context.js';

/** What every document storage must do (docs/adapters.md "Document storage"). */
export interface StorageContractHarness {
  adapter: DocumentStorage;
  close?(): Promise<void>;
}

export function describeStorageContract(name: string, factory: () => Promise<StorageContractHarness>): void {
  describe(`storage adapter contract: ${name}`, () => {
    let h: StorageContractHarness;
    beforeAll(async () => {
      h = await factory();
    });
    afterAll(async () => {
      await h?.close?.();
      await h?.adapter.close?.();
    });
    const key = () => `Platform_${randomUUID()}/Document_${randomUUID()}`;

    it('returns the bytes it was given, unchanged; a second put overwrites', async () => {
      const k = key();
      const bytes = randomBytes(4096);
      await h.adapter.put(k, bytes, 'application/pdf');
      expect(Buffer.compare((await h.adapter.get(k))!, bytes)).toBe(0);
      const other = randomBytes(10);
      await h.adapter.put(k, other, 'image/png');
      expect(Buffer.compare((await h.adapter.get(k))!, other)).toBe(0);
    });

    it('a missing object reads as undefined, and deleting one is not an error', async () => {
      const k = key();
      expect(await h.adapter.get(k)).toBeUndefined();
      await expect(h.adapter.delete(k)).resolves.toBeUndefined();
      await h.adapter.put(k, Buffer.from('x'), 'text/plain');
      await h.adapter.delete(k);
      expect(await h.adapter.get(k)).toBeUndefined();
    });

    it('an aborted signal is honoured', async () => {
      expect((await settlesWithin(2_000, h.adapter.put(key(), Buffer.from('x'), 'text/plain', { signal: AbortSignal.abort() }))).ok).toBe(false);
      expect((await settlesWithin(2_000, h.adapter.get(key(), { signal: AbortSignal.abort() }))).ok).toBe(false);
    });
  });
}
