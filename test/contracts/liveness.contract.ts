import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LivenessAdapter } from '../../src/adapters/liveness/port.js';
import { settlesWithin } from './context.js';

/** What every liveness provider must do (docs/adapters.md "Liveness"). */
export interface LivenessContractHarness {
  adapter: LivenessAdapter;
  close?(): Promise<void>;
}

export function describeLivenessContract(name: string, factory: () => Promise<LivenessContractHarness>): void {
  describe(`liveness adapter contract: ${name}`, () => {
    let h: LivenessContractHarness;
    beforeAll(async () => {
      h = await factory();
    });
    afterAll(async () => {
      await h?.close?.();
      await h?.adapter.close?.();
    });
    const session = () => ({ reference: randomUUID(), token: randomBytes(32).toString('base64url'), expiresAt: new Date(Date.now() + 900_000) });

    it('starts a session with a link the end user can open', async () => {
      const s = await h.adapter.startSession(session());
      expect(new URL(s.verificationLink).protocol).toMatch(/^https?:$/);
    });

    it('an aborted signal is honoured', async () => {
      expect((await settlesWithin(2_000, h.adapter.startSession(session(), { signal: AbortSignal.abort() }))).ok).toBe(false);
    });
  });
}
