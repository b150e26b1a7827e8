import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BENEFICIARY_VERIFICATION_STATUSES, type BeneficiaryCheckAdapter, type BeneficiaryCheckRequest } from '../../src/adapters/beneficiary-check/port.js';
import { settlesWithin } from './context.js';

/** What every beneficiary-name check must do (docs/adapters.md "Beneficiary-name check"). */
export interface BeneficiaryCheckContractHarness {
  adapter: BeneficiaryCheckAdapter;
  /** An account it can check; default a GBP account. */
  request?: Omit<BeneficiaryCheckRequest, 'reference'>;
  close?(): Promise<void>;
}

export function describeBeneficiaryCheckContract(name: string, factory: () => Promise<BeneficiaryCheckContractHarness>): void {
  describe(`beneficiary-check adapter contract: ${name}`, () => {
    let h: BeneficiaryCheckContractHarness;
    beforeAll(async () => {
      h = await factory();
    });
    afterAll(async () => {
      await h?.close?.();
      await h?.adapter.close?.();
    });
    const req = (): BeneficiaryCheckRequest => ({
      reference: `ExternalAccount:${randomUUID()}`,
      ...(h.request ?? {
        accountType: 'GBP_ACCOUNT',
        currency: 'GBP',
        accountInfo: { accountType: 'GBP_ACCOUNT', sortCode: '040004', accountNumber: '12345678' },
        beneficiaryName: 'Ada Lovelace',
        customerName: 'Ada Lovelace',
        ownershipType: 'FIRST_PARTY',
        identifierLast3: '678',
      }),
    });

    it('answers in our vocabulary, with requiresReview', async () => {
      const r = await h.adapter.check(req());
      expect(BENEFICIARY_VERIFICATION_STATUSES).toContain(r.status);
      expect(typeof r.requiresReview).toBe('boolean');
      if (r.holderName !== undefined) expect(typeof r.holderName).toBe('string');
    });

    it('an aborted signal is honoured', async () => {
      expect((await settlesWithin(2_000, h.adapter.check(req(), { signal: AbortSignal.abort() }))).ok).toBe(false);
    });
  });
}
