import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ISSUER_OPERATION_STATUSES, IssuerError, type IssuerAccount, type IssuerBankAccount, type IssuerCredentials, type IssuerOperationRequest, type StablecoinIssuer, type TokenQuery,
} from '../../src/adapters/stablecoin-issuer/port.js';

/** What every stablecoin-issuer adapter must do (docs/adapters.md "Stablecoin issuer"). */
export interface IssuerContractHarness {
  adapter: StablecoinIssuer;
  /** Credentials and an account they reach. */
  account: IssuerAccount;
  /** Credentials the provider refuses. */
  refused: IssuerCredentials;
  /** A token the account issues, and one it does not. */
  token: TokenQuery;
  unknownToken: TokenQuery;
  /** A Spark address and a bank account for mints and burns. */
  wallet: string;
  bank: IssuerBankAccount;
  /** Makes the issuer's funds arrive for an operation waiting for them (the sandbox's simulation). */
  fund?(reference: string): Promise<void>;
  /** Lets provider time pass (the sandbox's clock); absent: real time. */
  advance?(ms: number): void;
  /** How long after funding an operation should be final. */
  settleWithinMs?: number;
  close?(): Promise<void>;
}

const mint = (h: IssuerContractHarness, rail: 'WIRE' | 'ACH_DEBIT', key = `StablecoinOperation:${randomUUID()}`): IssuerOperationRequest => ({
  idempotencyKey: key,
  operationType: 'MINT',
  providerTokenIdentifier: h.token.providerTokenIdentifier,
  networkTokenIdentifier: h.token.networkTokenIdentifier,
  amount: 10_000_000n,
  fiatAmount: 1000n,
  baseCurrency: 'USD',
  funding: { rail, ...(rail === 'ACH_DEBIT' ? { fundedBy: h.bank } : {}) },
  mintTo: { address: h.wallet },
});

export function describeIssuerContract(name: string, factory: () => Promise<IssuerContractHarness>): void {
  describe(`stablecoin-issuer adapter contract: ${name}`, () => {
    let h: IssuerContractHarness;
    beforeAll(async () => {
      h = await factory();
    });
    afterAll(async () => {
      await h?.close?.();
      await h?.adapter.close?.();
    });

    it("names REF's provider", () => {
      expect(h.adapter.provider).toBe('BRALE');
      expect(typeof h.adapter.id).toBe('string');
    });

    it('verifies good credentials (listing the account) and refuses bad ones without throwing', async () => {
      const ok = await h.adapter.verifyCredentials(h.account);
      expect(ok.status).toBe('VALID');
      expect(ok.status === 'VALID' && ok.accounts).toContain(h.account.providerAccountId);
      expect(['INVALID', 'REVOKED']).toContain((await h.adapter.verifyCredentials(h.refused)).status);
    });

    it('resolves a token it issues, and answers undefined for one it does not', async () => {
      const t = await h.adapter.resolveToken(h.account, h.token);
      expect(t).toBeDefined();
      expect(t!.baseCurrency).toMatch(/^[A-Z]{3}$/);
      expect(Number.isInteger(t!.decimals) && t!.decimals >= 2).toBe(true);
      expect(['PENDING_REVIEW', 'PROVISIONING', 'PROVISIONED', 'REJECTED', 'FAILED']).toContain(t!.issuanceStatus);
      expect(typeof t!.networkTokenIdentifier).toBe('string');
      expect(await h.adapter.resolveToken(h.account, h.unknownToken)).toBeUndefined();
    });

    it('creates one operation per idempotency key, however often it is asked', async () => {
      const req = mint(h, 'ACH_DEBIT');
      const [a, b] = await Promise.all([h.adapter.createOperation(h.account, req), h.adapter.createOperation(h.account, req)]);
      const c = await h.adapter.createOperation(h.account, req);
      expect(a.reference).toBe(b.reference);
      expect(c.reference).toBe(a.reference);
      expect(ISSUER_OPERATION_STATUSES).toContain(a.status);
      expect(a.status).not.toBe('AWAITING_FUNDS');
    });

    it('a WIRE mint waits for funds and says where to send them', async () => {
      const r = await h.adapter.createOperation(h.account, mint(h, 'WIRE'));
      expect(r.status).toBe('AWAITING_FUNDS');
      expect(r.fundingInstructions).toMatchObject({ rail: 'WIRE' });
    });

    it('an external-wallet burn names a deposit address', async () => {
      const r = await h.adapter.createOperation(h.account, {
        ...mint(h, 'WIRE'), operationType: 'BURN', funding: undefined, mintTo: undefined, burnSource: 'EXTERNAL_ACCOUNT', payout: { rail: 'ACH_CREDIT', to: h.bank },
      } as IssuerOperationRequest);
      expect(r.status).toBe('AWAITING_FUNDS');
      expect(typeof r.fundingInstructions?.address).toBe('string');
    });

    it('reads an operation back by reference, and an unknown reference as PENDING with notFound (never failed)', async () => {
      const created = await h.adapter.createOperation(h.account, mint(h, 'ACH_DEBIT'));
      const read = await h.adapter.getOperation(h.account, created.reference);
      expect(read.reference).toBe(created.reference);
      expect(ISSUER_OPERATION_STATUSES).toContain(read.status);
      const unknown = await h.adapter.getOperation(h.account, `never-issued-${randomUUID()}`);
      expect(unknown).toMatchObject({ status: 'PENDING', notFound: true });
    });

    it('a funded operation becomes COMPLETED', async () => {
      const created = await h.adapter.createOperation(h.account, mint(h, 'WIRE'));
      if (h.fund) await h.fund(created.reference);
      const deadline = Date.now() + (h.settleWithinMs ?? 10_000);
      let status = created.status;
      while (status !== 'COMPLETED' && Date.now() < deadline) {
        h.advance?.(1000);
        status = (await h.adapter.getOperation(h.account, created.reference)).status;
        if (status !== 'COMPLETED') await new Promise((r) => setTimeout(r, 20));
      }
      expect(status).toBe('COMPLETED');
    });

    it('refuses refused credentials with a non-retryable IssuerError naming them', async () => {
      const err = await h.adapter.createOperation({ ...h.refused, providerAccountId: h.account.providerAccountId }, mint(h, 'ACH_DEBIT')).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(IssuerError);
      expect((err as IssuerError).retryable).toBe(false);
      expect(['CREDENTIALS_INVALID', 'CREDENTIALS_REVOKED']).toContain((err as IssuerError).code);
    });
  });
}
