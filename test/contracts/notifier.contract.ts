import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ContactCodeMessage, Notifier } from '../../src/adapters/notifier/port.js';
import { settlesWithin } from './context.js';

/** What every notifier must do (docs/adapters.md "Notifier"). */
export interface NotifierContractHarness {
  adapter: Notifier;
  /** Addresses it may send to in tests. */
  email?: string;
  phone?: string;
  close?(): Promise<void>;
}

export function describeNotifierContract(name: string, factory: () => Promise<NotifierContractHarness>): void {
  describe(`notifier adapter contract: ${name}`, () => {
    let h: NotifierContractHarness;
    beforeAll(async () => {
      h = await factory();
    });
    afterAll(async () => {
      await h?.close?.();
      await h?.adapter.close?.();
    });
    const message = (channel: 'email' | 'phone'): ContactCodeMessage => ({
      customerId: `Customer:${randomUUID()}`,
      channel,
      to: channel === 'email' ? (h.email ?? 'ada@example.com') : (h.phone ?? '+15555550100'),
      code: '123456',
      expiresAt: new Date(Date.now() + 600_000),
    });

    it('sends an email code and an SMS code', async () => {
      await expect(h.adapter.sendContactCode(message('email'))).resolves.toBeUndefined();
      await expect(h.adapter.sendContactCode(message('phone'))).resolves.toBeUndefined();
    });

    it('an aborted signal is honoured', async () => {
      expect((await settlesWithin(2_000, h.adapter.sendContactCode(message('email'), { signal: AbortSignal.abort() }))).ok).toBe(false);
    });
  });
}
