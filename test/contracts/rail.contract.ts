import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PAYOUT_STATUSES, type PayoutRequest, type PayoutResult, type RailAdapter } from '../../src/adapters/rails/port.js';
import { settlesWithin, sleep, type ContractContext } from './context.js';

/**
 * What every payment rail adapter must do (docs/adapters.md "Payment rail"). An implementation
 * passes it with `npm run adapter:test -- rail <module>`; CI runs it against every built-in.
 */
export interface RailContractHarness {
  adapter: RailAdapter;
  /** The context the adapter was created with (its recorded reports count as answers too). */
  context?: ContractContext;
  rail: string;
  currency: string;
  /** Minor units; default 1000. */
  amount?: bigint;
  /** A destination whose payout ends COMPLETED. */
  completes: PayoutRequest['destination'];
  /** A destination whose payout ends FAILED (skipped when absent). */
  fails?: PayoutRequest['destination'];
  /** How long a payout may take to reach a final status; default 10 s. */
  settleWithinMs?: number;
  /** How many payouts the provider really made for a key (skipped when absent). */
  payoutCount?(idempotencyKey: string): Promise<number>;
  close?(): Promise<void>;
}

const newKey = () => `Transaction:${randomUUID()}`;

function expectValidResult(r: PayoutResult): void {
  expect(PAYOUT_STATUSES, `status ${String(r.status)}`).toContain(r.status);
  expect(typeof r.reference, 'reference').toBe('string');
  expect(r.reference.length, 'reference').toBeGreaterThan(0);
  if (r.pollAfterMs !== undefined) expect(r.pollAfterMs).toBeGreaterThanOrEqual(0);
  if (r.status === 'FAILED' || r.status === 'RETURNED') {
    expect(typeof r.failureReason, 'failureReason of a failure').toBe('string');
    expect(typeof r.retryable, 'retryable of a failure').toBe('boolean');
  }
}

export function describeRailContract(name: string, factory: () => Promise<RailContractHarness>): void {
  describe(`rail adapter contract: ${name}`, () => {
    let h: RailContractHarness;
    beforeAll(async () => {
      h = await factory();
    });
    afterAll(async () => {
      await h?.close?.();
      await h?.adapter.close?.();
    });

    const request = (idempotencyKey: string, destination = h.completes): PayoutRequest => ({
      idempotencyKey,
      rail: h.rail,
      amount: h.amount ?? 1000n,
      currency: h.currency,
      destination,
      remittanceInformation: 'contract test',
      purposeOfPayment: null,
    });

    /** Polls (and reads pushed reports) until the payout leaves PENDING. */
    async function finalStatus(reference: string, idempotencyKey: string): Promise<PayoutResult> {
      const deadline = Date.now() + (h.settleWithinMs ?? 10_000);
      for (;;) {
        const pushed = h.context?.reported.payouts.find((r) => (r.reference === reference || r.idempotencyKey === idempotencyKey) && r.status !== 'PENDING');
        if (pushed) return pushed;
        const r = await h.adapter.getPayoutStatus(reference, { idempotencyKey });
        expectValidResult(r);
        if (r.status !== 'PENDING') return r;
        if (Date.now() > deadline) throw new Error(`payout ${reference} still PENDING after ${h.settleWithinMs ?? 10_000} ms`);
        await sleep(Math.min(Math.max(r.pollAfterMs ?? 50, 10), 250));
      }
    }

    it('has an id and the three calls', () => {
      expect(typeof h.adapter.id).toBe('string');
      expect(h.adapter.id.length).toBeGreaterThan(0);
      for (const m of ['submitPayout', 'getPayoutStatus', 'refundPayout'] as const) expect(typeof h.adapter[m], m).toBe('function');
      if (h.adapter.rails) expect(h.adapter.rails).toContain(h.rail);
    });

    it('submitting twice with the same idempotency key returns the same reference and pays once', async () => {
      const key = newKey();
      const first = await h.adapter.submitPayout(request(key));
      expectValidResult(first);
      const again = await h.adapter.submitPayout(request(key));
      expect(again.reference).toBe(first.reference);
      if (h.payoutCount) expect(await h.payoutCount(key)).toBe(1);
    });

    it('concurrent submits of one key pay once', async () => {
      const key = newKey();
      const results = await Promise.all([1, 2, 3].map(() => h.adapter.submitPayout(request(key))));
      expect(new Set(results.map((r) => r.reference)).size).toBe(1);
      if (h.payoutCount) expect(await h.payoutCount(key)).toBe(1);
    });

    it('different idempotency keys are different payouts', async () => {
      const [a, b] = await Promise.all([h.adapter.submitPayout(request(newKey())), h.adapter.submitPayout(request(newKey()))]);
      expect(a.reference).not.toBe(b.reference);
    });

    it('a completing payout reaches COMPLETED, and its status keeps its reference', async () => {
      const key = newKey();
      const submitted = await h.adapter.submitPayout(request(key));
      expect(['PENDING', 'COMPLETED']).toContain(submitted.status);
      const final = await finalStatus(submitted.reference, key);
      expect(final.status).toBe('COMPLETED');
      expect(final.reference).toBe(submitted.reference);
    });

    it('a reference the provider never issued reads as PENDING, never as an outcome', async () => {
      const r = await h.adapter.getPayoutStatus(`unknown-${randomUUID()}`, { idempotencyKey: newKey() });
      expect(r.status).toBe('PENDING');
    });

    it('a failing payout ends FAILED with a failure reason and says whether it is retryable', async (ctx) => {
      if (!h.fails) return ctx.skip();
      const key = newKey();
      let final: PayoutResult;
      try {
        const submitted = await h.adapter.submitPayout(request(key, h.fails));
        final = submitted.status === 'PENDING' ? await finalStatus(submitted.reference, key) : submitted;
      } catch (err) {
        // Refusing at submission is allowed: then the error must say it is final.
        expect((err as { retryable?: unknown }).retryable, 'a refusal at submission carries retryable').toBe(false);
        return;
      }
      expectValidResult(final);
      expect(final.status).toBe('FAILED');
      expect(typeof final.retryable).toBe('boolean');
      expect(final.failureReason).toMatch(/^[A-Z_]+$/);
    });

    it('refunds are idempotent per key and answer a known status', async () => {
      const key = newKey();
      const submitted = await h.adapter.submitPayout(request(key, h.fails ?? h.completes));
      const refund = { idempotencyKey: `${key}:refund`, reference: submitted.reference, amount: h.amount ?? 1000n, currency: h.currency };
      const a = await h.adapter.refundPayout(refund);
      const b = await h.adapter.refundPayout(refund);
      expect(['COMPLETED', 'FAILED', 'PENDING']).toContain(a.status);
      expect(b.reference).toBe(a.reference);
    });

    it('an aborted signal is honoured: the call rejects promptly, and the same key then pays once', async () => {
      const key = newKey();
      const aborted = AbortSignal.abort();
      const submit = await settlesWithin(2_000, h.adapter.submitPayout(request(key), { signal: aborted }));
      expect(submit.ok, 'submitPayout with an aborted signal must reject').toBe(false);
      const status = await settlesWithin(2_000, h.adapter.getPayoutStatus('any', { signal: aborted }));
      expect(status.ok, 'getPayoutStatus with an aborted signal must reject').toBe(false);
      const refund = await settlesWithin(2_000, h.adapter.refundPayout({ idempotencyKey: `${key}:refund`, reference: 'any', amount: 1n, currency: h.currency }, { signal: aborted }));
      expect(refund.ok, 'refundPayout with an aborted signal must reject').toBe(false);
      const retried = await h.adapter.submitPayout(request(key));
      expectValidResult(retried);
      if (h.payoutCount) expect(await h.payoutCount(key)).toBe(1);
    });

    it('a signal aborted during the call stops it within a second', async () => {
      const controller = new AbortController();
      const call = h.adapter.submitPayout(request(newKey()), { signal: controller.signal });
      controller.abort();
      // Resolving is fine if the answer was already there; hanging is not.
      await settlesWithin(1_000, call);
    });
  });
}
