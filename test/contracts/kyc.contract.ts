import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KycCase, KycProvider } from '../../src/adapters/kyc/port.js';
import { settlesWithin } from './context.js';

/** What every KYC/KYB provider must do (docs/adapters.md "KYC/KYB provider"). */
export interface KycContractHarness {
  adapter: KycProvider;
  close?(): Promise<void>;
}

const OUTCOMES = ['APPROVED', 'REJECTED', 'HOLD', 'MANUAL_REVIEW', 'PENDING'];

export function describeKycContract(name: string, factory: () => Promise<KycContractHarness>): void {
  describe(`kyc adapter contract: ${name}`, () => {
    let h: KycContractHarness;
    beforeAll(async () => {
      h = await factory();
    });
    afterAll(async () => {
      await h?.close?.();
      await h?.adapter.close?.();
    });
    const aCase = (): KycCase => ({ caseId: `Verification:${randomUUID()}`, customerId: `Customer:${randomUUID()}`, customerType: 'INDIVIDUAL', name: 'Ada Lovelace', owners: [], reviewed: false, previousHolds: 0 });

    it('names itself (id, provider) and makes hosted links', async () => {
      expect(h.adapter.id).toBeTruthy();
      expect(typeof h.adapter.provider).toBe('string');
      const link = await h.adapter.createHostedLink({ linkId: `KycLink:${randomUUID()}`, customerId: `Customer:${randomUUID()}`, token: randomUUID(), expiresAt: new Date(Date.now() + 3_600_000) });
      expect(() => new URL(link.kycUrl)).not.toThrow();
    });

    it('decides in our vocabulary (anything it cannot map is PENDING)', async () => {
      const outcome = await h.adapter.decide(aCase());
      expect(OUTCOMES).toContain(outcome.status);
      if (outcome.status === 'REJECTED' || outcome.status === 'HOLD') expect(typeof outcome.reason).toBe('string');
    });

    it('an aborted signal is honoured', async () => {
      expect((await settlesWithin(2_000, h.adapter.decide(aCase(), { signal: AbortSignal.abort() }))).ok).toBe(false);
    });
  });
}
