import { spawn, type ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, eventually, type TestEnv } from '../helpers/app.js';
import { anActiveExternalAccount, anApprovedCustomer, balances, expectLedgerConsistent, fund, usdBankAccount } from '../helpers/builders.js';

let env: TestEnv;
const overrides = { SANDBOX_RAIL_DELAY_SCALE: '0.05', PAYMENT_STALE_MS: '500', QUOTE_EXPIRY_SWEEP_INTERVAL_MS: '200', PAYMENT_RECONCILE_INTERVAL_MS: '200', PAYMENT_RECONCILE_GRACE_MS: '500', PAYMENT_POLL_MIN_MS: '50' };

beforeAll(async () => {
  env = await createTestEnv(overrides);
});
afterAll(() => env.close());

/** The real worker process (src/worker.ts), on this test's database and Redis prefix. */
function startWorkerProcess(): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', 'src/worker.ts'], {
    env: {
      ...process.env,
      ...overrides,
      DATABASE_URL: env.config.DATABASE_URL,
      REDIS_URL: env.config.REDIS_URL,
      REDIS_PREFIX: env.config.REDIS_PREFIX,
      LOG_LEVEL: 'warn',
      OUTBOX_RELAY_INTERVAL_MS: '100',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}

describe('a worker killed during settlement', () => {
  it('leaves every payment to be finished exactly once by the next worker', async () => {
    const p = await env.platform();
    // The external account's beneficiary check runs in the worker too.
    let worker = startWorkerProcess();
    const dest = await anActiveExternalAccount(p, usdBankAccount('555666777'));
    const c = await anApprovedCustomer(env, p, ['USD']);
    await fund(p, c.accounts.USD!, 1_000_000);
    const transactionIds: string[] = [];
    const pay = async (i: number) => {
      const q = (await p.request({ method: 'POST', url: '/quotes', payload: { source: { sourceType: 'ACCOUNT', accountId: c.accounts.USD }, destination: { destinationType: 'ACCOUNT', accountId: dest }, lockedCurrencySide: 'SENDING', lockedCurrencyAmount: 1_000 + i } })).json();
      expect((await p.request({ method: 'POST', url: `/quotes/${q.id}/execute` })).statusCode).toBe(200);
      transactionIds.push(q.transactionId);
    };
    for (let i = 0; i < 8; i++) await pay(i);
    const completed = () => env.deps.prisma.transaction.count({ where: { platformId: p.platformId, status: 'COMPLETED' } });
    // Kill it hard once some payments settled (how many, and whether one is mid-settlement, is up to
    // the worker's speed: the test asserts nothing about it).
    await eventually(async () => (await completed()) >= 1, 20_000, 10);
    worker.kill('SIGKILL');
    await new Promise((r) => worker.once('exit', r));
    // Payments executed while no worker runs: these, at least, are certainly left for the next worker.
    for (let i = 8; i < 12; i++) await pay(i);
    expect(await completed()).toBeLessThanOrEqual(8);

    worker = startWorkerProcess();
    try {
      await eventually(async () => (await completed()) === 12, 30_000);
    } finally {
      worker.kill('SIGTERM');
      await new Promise((r) => worker.once('exit', r));
    }
    const settles = await env.deps.prisma.ledgerJournal.groupBy({ by: ['referenceId'], where: { platformId: p.platformId, kind: 'PAYMENT_SETTLE' }, _count: true });
    expect(settles).toHaveLength(12);
    expect(settles.every((s) => s._count === 1)).toBe(true);
    const sent = (await env.deps.prisma.transaction.findMany({ where: { id: { in: transactionIds } } })).reduce((sum, t) => sum + t.sentAmount, 0n);
    expect(await balances(env, c.accounts.USD!)).toEqual({ available: 1_000_000n - sent, held: 0n });
    await expectLedgerConsistent(env, p.platformId);
    // Two real worker processes start here (each several seconds on a loaded machine): bounded by the waits above, not by the default 30 s.
  }, 90_000);
});
