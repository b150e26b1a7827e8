import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BankLinkError, type BankLinkAdapter } from '../../src/adapters/bank-link/port.js';
import { isValidAbaRouting } from '../../src/domains/external-accounts/account-info.checksums.js';

/** What every bank-link adapter must do (docs/adapters.md "Bank linking"). */
export interface BankLinkContractHarness {
  adapter: BankLinkAdapter;
  /** What the customer's trip through the provider's link UI yields for this link token. */
  completeLink(linkToken: string): Promise<{ publicToken: string; accountId?: string }>;
  close?(): Promise<void>;
}

export function describeBankLinkContract(name: string, factory: () => Promise<BankLinkContractHarness>): void {
  describe(`bank-link adapter contract: ${name}`, () => {
    let h: BankLinkContractHarness;
    beforeAll(async () => {
      h = await factory();
    });
    afterAll(async () => {
      await h?.close?.();
      await h?.adapter.close?.();
    });
    const request = () => ({ reference: `BankLink:${randomUUID()}`, customerId: `Customer:${randomUUID()}`, customerName: 'Ada Lovelace' });

    it('issues a link token that expires in the future', async () => {
      const t = await h.adapter.createLinkToken(request());
      expect(typeof t.linkToken).toBe('string');
      expect(t.linkToken.length).toBeGreaterThan(8);
      expect(t.expiresAt.getTime()).toBeGreaterThan(Date.now());
    });

    it('exchanges the public token of a completed link for verified US account numbers', async () => {
      const t = await h.adapter.createLinkToken(request());
      const done = await h.completeLink(t.linkToken);
      const a = await h.adapter.exchangePublicToken({ linkToken: t.linkToken, ...done });
      expect(a.currency).toBe('USD');
      expect(a.accountNumber).toMatch(/^\d{4,17}$/);
      expect(isValidAbaRouting(a.routingNumber)).toBe(true);
      expect(['CHECKING', 'SAVINGS']).toContain(a.bankAccountType);
      expect(typeof a.providerAccountId).toBe('string');
    });

    it('refuses a public token it did not issue, as a non-retryable INVALID_PUBLIC_TOKEN', async () => {
      const t = await h.adapter.createLinkToken(request());
      const err = await h.adapter.exchangePublicToken({ linkToken: t.linkToken, publicToken: 'public-sandbox-forged' }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(BankLinkError);
      expect((err as BankLinkError).code).toBe('INVALID_PUBLIC_TOKEN');
      expect((err as BankLinkError).retryable).toBe(false);
    });
  });
}
