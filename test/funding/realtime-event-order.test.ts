import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, eventually, type TestEnv } from '../helpers/app.js';
import { anActiveExternalAccount, anApprovedCustomer, usdBankAccount } from '../helpers/builders.js';
import { Receiver } from '../helpers/receiver.js';
import type { RunningWorkers } from '../../src/workers.js';

/**
 * Issue 25 part B: the spec's real-time-funding order. The deposit's INTERNAL_ACCOUNT.BALANCE_UPDATED precedes the
 * payment's OUTGOING_PAYMENT.* events by timestamp and by the order the service hands them to delivery (one delivery
 * at a time here, so the receiver sees that order).
 */
let env: TestEnv;
let workers: RunningWorkers;
let receiver: Receiver;
beforeAll(async () => {
  env = await createTestEnv({ SANDBOX_RAIL_DELAY_SCALE: '0.01', PAYMENT_POLL_MIN_MS: '20', WEBHOOK_CONCURRENCY: '1' });
  workers = env.startWorkers();
  receiver = await new Receiver().start();
});
afterAll(async () => {
  await workers.close();
  await receiver.stop();
  await env.close();
});

describe('real-time funding event order', () => {
  it('the deposit\'s balance event comes before OUTGOING_PAYMENT.PROCESSING, by timestamp and by delivery order', async () => {
    const p = await env.platform();
    expect((await p.request({ method: 'PATCH', url: '/config', payload: { webhookEndpoint: receiver.url } })).statusCode).toBe(200);
    const c = await anApprovedCustomer(env, p, ['USD', 'USDC']);
    const dest = await anActiveExternalAccount(p, usdBankAccount(), c.customerId);
    for (let round = 0; round < 3; round++) {
      const q = await p.request({ method: 'POST', url: '/quotes', payload: { source: { sourceType: 'REALTIME_FUNDING', currency: 'USDC', customerId: c.customerId }, destination: { destinationType: 'ACCOUNT', accountId: dest }, lockedCurrencySide: 'SENDING', lockedCurrencyAmount: 5_000_000 } });
      expect(q.statusCode, q.body).toBe(201);
      const paid = await p.request({ method: 'POST', url: '/sandbox/send', payload: { quoteId: q.json().id, currencyCode: 'USDC' } });
      expect(paid.statusCode, paid.body).toBe(200);
      const transactionId = q.json().transactionId;
      const mine = (r: { json: any }) =>
        (r.json?.type === 'INTERNAL_ACCOUNT.BALANCE_UPDATED' && r.json.data.id === c.accounts.USDC) || (r.json?.type?.startsWith('OUTGOING_PAYMENT.') && r.json.data.id === transactionId);
      const seen = await eventually(async () => {
        const got = receiver.received.filter(mine).map((r) => r.json);
        return got.some((e) => e.type === 'OUTGOING_PAYMENT.PROCESSING') && got.filter((e) => e.type === 'INTERNAL_ACCOUNT.BALANCE_UPDATED').length >= 2 ? got : undefined;
      }, 30_000);
      receiver.received.length = 0;
      // The credit: the deposit lands available; the hold then moves it to held.
      const credit = seen.findIndex((e) => e.type === 'INTERNAL_ACCOUNT.BALANCE_UPDATED' && e.data.balance.amount === 5_000_000);
      const processing = seen.findIndex((e) => e.type === 'OUTGOING_PAYMENT.PROCESSING');
      expect(credit, JSON.stringify(seen.map((e) => [e.type, e.timestamp]))).toBeGreaterThanOrEqual(0);
      expect(credit).toBeLessThan(processing);
      // Stamped when recorded (milliseconds): never after the payment's; an equal stamp is ordered by id, as delivered.
      expect(Date.parse(seen[credit].timestamp)).toBeLessThanOrEqual(Date.parse(seen[processing].timestamp));
      expect(seen[credit].id < seen[processing].id).toBe(true);
      // Every event of the execution is stamped after the credit.
      for (const e of seen.slice(credit + 1)) expect(Date.parse(e.timestamp)).toBeGreaterThanOrEqual(Date.parse(seen[credit].timestamp));
    }
  }, 120_000);
});
