import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UmaCounterpartyError, type UmaCounterpartyAdapter } from '../../src/adapters/uma/port.js';
import { settlesWithin } from './context.js';

/** What every UMA counterparty must do (docs/adapters.md, anchor 24b; src/adapters/uma/port.ts). */
export interface UmaContractHarness {
  adapter: UmaCounterpartyAdapter;
  /** A receiver it knows, taking `currency`, and one it does not. */
  receiver: string;
  unknown: string;
  currency: string;
  /** An amount (minor units of `currency`) within the receiver's limits. */
  amount: bigint;
  close?(): Promise<void>;
}

export function describeUmaContract(name: string, factory: () => Promise<UmaContractHarness>): void {
  describe(`uma adapter contract: ${name}`, () => {
    let h: UmaContractHarness;
    const sender = '$contract@sender.example';
    beforeAll(async () => {
      h = await factory();
    });
    afterAll(async () => {
      await h?.close?.();
    });

    it('looks a receiver up: its currencies with limits, the payer data it asks for', async () => {
      const r = await h.adapter.lookup({ receiverUmaAddress: h.receiver, senderUmaAddress: sender });
      expect(r.receiverUmaAddress).toBe(h.receiver);
      const c = r.currencies.find((x) => x.code === h.currency);
      expect(c, `the receiver takes ${h.currency}`).toBeDefined();
      expect(c!.min <= h.amount && h.amount <= c!.max).toBe(true);
      expect(c!.multiplier).toBeGreaterThan(0);
      for (const f of r.requiredPayerDataFields) expect(typeof f.mandatory).toBe('boolean');
    });

    it('an unknown receiver is a UmaCounterpartyError with a spec code and status', async () => {
      const err = await h.adapter.lookup({ receiverUmaAddress: h.unknown, senderUmaAddress: sender }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(UmaCounterpartyError);
      expect((err as UmaCounterpartyError).code).toMatch(/^[A-Z_]+$/);
      expect([400, 404, 412, 424]).toContain((err as UmaCounterpartyError).httpStatus);
    });

    it('a pay request for an exact amount answers an invoice and terms that expire later', async () => {
      const r = await h.adapter.lookup({ receiverUmaAddress: h.receiver, senderUmaAddress: sender });
      const terms = await h.adapter.payRequest({ idempotencyKey: `contract-${Date.now()}`, receiverUmaAddress: h.receiver, senderUmaAddress: sender, counterparty: r.counterparty, currency: h.currency, amount: h.amount, payerData: {} });
      expect(terms.invoice).toMatch(/^ln/);
      expect(terms.amountMsats > 0n).toBe(true);
      expect(terms.expiresAt.getTime()).toBeGreaterThan(Date.now());
    });

    it('an aborted signal is honoured', async () => {
      // Refusing at once or answering from memory are both fine; hanging past the abort is not.
      await expect(settlesWithin(2_000, h.adapter.lookup({ receiverUmaAddress: h.receiver, senderUmaAddress: sender }, { signal: AbortSignal.abort() }))).resolves.toBeDefined();
    });
  });
}
