/**
 * Issue 29 (29e): a small loader for the Citus rehearsal's throughput figure, run only when asked
 * (TEST_THROUGHPUT_PAYMENTS=<n>): the same payments (`POST /quotes` with `immediatelyExecute`, through HTTP
 * in-process) against whatever DATABASE_URL points at — plain PostgreSQL or the Citus coordinator — so the
 * two are compared by alternating short runs in the same window (docs/decisions.md 29e gives the commands).
 * Each run uses platforms of its own (TEST_THROUGHPUT_PLATFORMS, default 4: on Citus they land on both
 * workers), TEST_THROUGHPUT_CONCURRENCY requests in flight (default 8), and prints payments per second of
 * wall time and the API process's CPU per payment (the machine is shared: compare runs of one window only).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TestEnv, type TestPlatform } from '../helpers/app.js';
import { anActiveExternalAccount, anApprovedCustomer, expectLedgerConsistent, fund, usdBankAccount } from '../helpers/builders.js';

const PAYMENTS = Number(process.env.TEST_THROUGHPUT_PAYMENTS ?? 0);
const PLATFORMS = Number(process.env.TEST_THROUGHPUT_PLATFORMS ?? 4);
const CONCURRENCY = Number(process.env.TEST_THROUGHPUT_CONCURRENCY ?? 8);

describe.skipIf(!PAYMENTS)('payments per second (rehearsal loader)', () => {
  let env: TestEnv;
  beforeAll(async () => {
    env = await createTestEnv({ SANDBOX_RAIL_DELAY_SCALE: '0' });
  }, 600_000);
  afterAll(async () => {
    await env?.close();
  });

  it(`starts ${PAYMENTS} payments over ${PLATFORMS} platforms, ${CONCURRENCY} at a time`, async () => {
    const senders: Array<{ p: TestPlatform; source: string; dest: string }> = [];
    // The workers approve the customers (KYC) during set-up; the measured window runs without them.
    const workers = env.startWorkers();
    for (let i = 0; i < PLATFORMS; i++) {
      const p = await env.platform();
      const c = await anApprovedCustomer(env, p, ['USD']);
      const dest = await anActiveExternalAccount(p, usdBankAccount(), c.customerId);
      await fund(p, c.accounts.USD!, 100_000_000);
      senders.push({ p, source: c.accounts.USD!, dest });
    }
    await workers.close();
    const pay = async (i: number) => {
      const s = senders[i % senders.length]!;
      const res = await s.p.request({
        method: 'POST',
        url: '/quotes',
        payload: { source: { sourceType: 'ACCOUNT', accountId: s.source }, destination: { destinationType: 'ACCOUNT', accountId: s.dest }, lockedCurrencySide: 'SENDING', lockedCurrencyAmount: 1000 + (i % 100), immediatelyExecute: true },
      });
      expect(res.statusCode, res.body).toBe(201);
    };
    // Warm-up: prepared statements and caches of every platform.
    for (let i = 0; i < senders.length * 2; i++) await pay(i);
    let next = 0;
    const cpu = process.cpuUsage();
    const started = process.hrtime.bigint();
    await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
      for (let i = next++; i < PAYMENTS; i = next++) await pay(i);
    }));
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    const used = process.cpuUsage(cpu);
    const target = process.env.TEST_CITUS_WORKERS ? 'citus' : 'postgres';
    console.log(`throughput ${target}: ${PAYMENTS} payments in ${seconds.toFixed(2)} s = ${(PAYMENTS / seconds).toFixed(1)}/s; API CPU ${((used.user + used.system) / 1000 / PAYMENTS).toFixed(2)} ms per payment`);
    for (const s of senders) await expectLedgerConsistent(env, s.p.platformId);
  }, 600_000);
});
