import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, eventually, type TestEnv } from '../helpers/app.js';
import { balances, expectLedgerConsistent } from '../helpers/builders.js';
import type { RunningWorkers } from '../../src/workers.js';
import { aFundedPayer, aUsdDestination, pay, settleCount, waitFor } from '../adapters/helpers.js';

/**
 * Issue 11, item 3: a payment its rail does not know is never left PROCESSING silently. The sandbox bank
 * "forgets" a payout (its Postgres row is deleted); after PAYMENT_UNKNOWN_AFTER_MS the payment is reported
 * — pendingReason RAIL_PAYOUT_UNKNOWN on the transaction, the payments_rail_unknown gauge, a warn log —
 * and its money stays held (unknown is pending, never a guess). When the bank knows it again, the reason
 * clears and the payment settles, once.
 */
let env: TestEnv;
let workers: RunningWorkers;
const logs: Array<Record<string, unknown>> = [];

const OPERATOR_AUTH = `Basic ${Buffer.from('ops:ops-password-0123456789').toString('base64')}`;

beforeAll(async () => {
  env = await createTestEnv(
    {
      LOG_LEVEL: 'warn',
      SANDBOX_RAIL_DELAY_SCALE: '0.02',
      SANDBOX_SLOW_MS: '600000',
      PAYMENT_POLL_MIN_MS: '50',
      PAYMENT_POLL_MAX_MS: '200',
      PAYMENT_RECONCILE_INTERVAL_MS: '100',
      PAYMENT_RECONCILE_GRACE_MS: '200',
      PAYMENT_RECONCILE_RETRY_MS: '200',
      PAYMENT_UNKNOWN_AFTER_MS: '300',
      OPERATOR_USER: 'ops',
      OPERATOR_PASSWORD: 'ops-password-0123456789',
    },
    { logStream: { write: (line: string) => logs.push(JSON.parse(line)) } },
  );
  workers = env.startWorkers();
});
afterAll(async () => {
  await workers.close();
  await env.close();
});

describe('a payment the rail does not know', () => {
  it('is reported (status reason, metric, warn log) with its money held, and settles once the rail knows it again', async () => {
    const payer = await aFundedPayer(env, 100_000);
    const dest = await aUsdDestination(payer, '223456003'); // 003: slow, so it stays PROCESSING
    const id = await pay(payer, dest, 10_000);
    const t = await eventually(async () => {
      const row = await env.deps.prisma.transaction.findFirstOrThrow({ where: { id } });
      return row.railReference ? row : undefined;
    });
    const record = await env.deps.prisma.sandboxBankPayout.findUniqueOrThrow({ where: { reference: t.railReference! } });
    await env.deps.prisma.sandboxBankPayout.delete({ where: { reference: t.railReference! } });

    const reported = await eventually(async () => {
      const body = (await payer.p.request({ method: 'GET', url: `/transactions/${id}` })).json();
      return body.pendingReason === 'RAIL_PAYOUT_UNKNOWN' ? body : undefined;
    });
    expect(reported.status).toBe('PROCESSING');
    expect(await balances(env, payer.usd)).toEqual({ available: 90_000n, held: 10_000n });
    const metrics = await env.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: OPERATOR_AUTH } });
    expect(metrics.body).toMatch(/^payments_rail_unknown 1$/m);
    expect(logs.some((l) => l.level === 40 && l.transactionId === id && String(l.msg).includes('does not know'))).toBe(true);

    // The bank finds it again (as submitted, with an ordinary outcome): the reason clears and it settles once.
    await env.deps.prisma.sandboxBankPayout.create({ data: { ...record, scenario: 'OK', submittedAt: new Date(Date.now() - 60_000) } });
    const done = await waitFor(payer, id, 'COMPLETED');
    expect(done.pendingReason).toBeUndefined();
    expect(await settleCount(env, id)).toBe(1);
    expect(await balances(env, payer.usd)).toEqual({ available: 90_000n, held: 0n });
    expect((await env.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: OPERATOR_AUTH } })).body).toMatch(/^payments_rail_unknown 0$/m);
    await expectLedgerConsistent(env, payer.p.platformId);
  });
});
