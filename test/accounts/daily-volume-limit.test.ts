import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TestEnv, type TestPlatform } from '../helpers/app.js';
import { anActiveExternalAccount, anApprovedCustomer, balances, expectLedgerConsistent, fund, usdBankAccount } from '../helpers/builders.js';
import { setDailyVolumeLimit } from '../../src/domains/limits/index.js';
import type { RunningWorkers } from '../../src/workers.js';
import { runCli } from '../helpers/cli.js';

/** Issue 25 part B: REF's 429 DAILY_VOLUME_LIMIT_EXCEEDED, a per-platform, per-corridor daily volume counted exactly. */
let env: TestEnv;
let workers: RunningWorkers;
beforeAll(async () => {
  env = await createTestEnv({ SANDBOX_RAIL_DELAY_SCALE: '0.01', PAYMENT_POLL_MIN_MS: '20' });
  workers = env.startWorkers();
});
afterAll(async () => {
  await workers.close();
  await env.close();
});

const quoteBody = (from: string, to: string, amount: number, immediatelyExecute = false) => ({
  source: { sourceType: 'ACCOUNT', accountId: from },
  destination: { destinationType: 'ACCOUNT', accountId: to },
  lockedCurrencySide: 'SENDING',
  lockedCurrencyAmount: amount,
  ...(immediatelyExecute ? { immediatelyExecute: true } : {}),
});

async function setup(limit: number | null, fundAmount = 100_000) {
  const p = await env.platform();
  const a = await anApprovedCustomer(env, p);
  const b = await anApprovedCustomer(env, p);
  await fund(p, a.accounts.USD!, fundAmount);
  if (limit !== null) await setDailyVolumeLimit(env.deps, p.platformId, 'USD', 'USD', BigInt(limit));
  return { p, from: a.accounts.USD!, to: b.accounts.USD!, customerId: a.customerId };
}

const count = (codes: number[], code: number) => codes.filter((c) => c === code).length;

describe('daily volume limit', () => {
  it('parallel executes: exactly the limit passes, the rest answer 429 DAILY_VOLUME_LIMIT_EXCEEDED with Retry-After, and only what passed moved', async () => {
    const { p, from } = await setup(5_000);
    const to = (await anApprovedCustomer(env, p)).accounts.USD!;
    const quotes = await Promise.all(Array.from({ length: 12 }, async () => (await p.request({ method: 'POST', url: '/quotes', payload: quoteBody(from, to, 1_000) })).json()));
    expect(quotes.every((q) => q.status === 'PENDING')).toBe(true);
    const res = await Promise.all(quotes.map((q) => p.request({ method: 'POST', url: `/quotes/${q.id}/execute` })));
    const codes = res.map((r) => r.statusCode);
    expect(count(codes, 200)).toBe(5);
    expect(count(codes, 429)).toBe(7);
    const refused = res.find((r) => r.statusCode === 429)!;
    expect(refused.json()).toMatchObject({ code: 'DAILY_VOLUME_LIMIT_EXCEEDED', details: { sendingCurrency: 'USD', receivingCurrency: 'USD', limit: 5_000, requested: 1_000 } });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    const b = await balances(env, from);
    expect(b.available).toBe(95_000n);
    // A refused quote stays PENDING: it can be executed another day (or after the limit is raised).
    const refusedQuote = quotes[res.indexOf(refused)];
    expect((await p.request({ method: 'GET', url: `/quotes/${refusedQuote.id}` })).json().status).toBe('PENDING');
    await setDailyVolumeLimit(env.deps, p.platformId, 'USD', 'USD', 6_000n);
    expect((await p.request({ method: 'POST', url: `/quotes/${refusedQuote.id}/execute` })).statusCode).toBe(200);
    await expectLedgerConsistent(env, p.platformId);
  });

  it('parallel immediate payments (the one-statement path): exactly the limit passes', async () => {
    const { p, from, to } = await setup(3_000);
    const res = await Promise.all(Array.from({ length: 8 }, () => p.request({ method: 'POST', url: '/quotes', payload: quoteBody(from, to, 1_000, true) })));
    const codes = res.map((r) => r.statusCode);
    expect(count(codes, 201) + count(codes, 200)).toBe(3);
    expect(count(codes, 429)).toBe(5);
    const b = await balances(env, from);
    expect(b.available).toBe(97_000n);
  });

  it('a quote without immediatelyExecute is not counted; a failed execution gives its share back; other corridors and platforms are unaffected', async () => {
    const { p, from, to } = await setup(2_000, 1_500);
    expect((await p.request({ method: 'POST', url: '/quotes', payload: quoteBody(from, to, 2_000) })).statusCode).toBe(201);
    // 1 800 fits the limit but not the balance: INSUFFICIENT_FUNDS, and the 1 800 is not kept against the day.
    const poor = await p.request({ method: 'POST', url: '/quotes', payload: quoteBody(from, to, 1_800, true) });
    expect(poor.statusCode).toBe(400);
    expect(poor.json().code).toBe('INSUFFICIENT_FUNDS');
    expect((await p.request({ method: 'POST', url: '/quotes', payload: quoteBody(from, to, 1_500, true) })).statusCode).toBe(201);
    await fund(p, from, 10_000);
    const over = await p.request({ method: 'POST', url: '/quotes', payload: quoteBody(from, to, 501, true) });
    expect(over.statusCode).toBe(429);
    expect(over.json().details).toMatchObject({ used: 1_500, remaining: 500 });
    expect((await p.request({ method: 'POST', url: '/quotes', payload: quoteBody(from, to, 500, true) })).statusCode).toBe(201);
    // Another platform's same corridor has its own (no) limit.
    const other = await setup(null);
    expect((await other.p.request({ method: 'POST', url: '/quotes', payload: quoteBody(other.from, other.to, 5_000, true) })).statusCode).toBe(201);
  });

  it('POST /transfer-out counts in its withdrawal currency and answers 429 over the limit', async () => {
    const { p, from, customerId } = await setup(10_000);
    const ext = await anActiveExternalAccount(p, usdBankAccount(), customerId);
    const out = (amount: number) => p.request({ method: 'POST', url: '/transfer-out', payload: { source: { accountId: from }, destination: { accountId: ext }, amount } });
    const first = await out(8_000);
    expect(first.statusCode, first.body).toBe(201);
    const second = await out(3_000);
    expect(second.statusCode).toBe(429);
    expect(second.json().code).toBe('DAILY_VOLUME_LIMIT_EXCEEDED');
    expect((await out(2_000)).statusCode).toBe(201);
  });

  it('the operator CLI sets and clears a corridor\'s limit; a malformed corridor exits non-zero', async () => {
    const { p, from, to } = await setup(null);
    const run = (...args: string[]) => runCli('daily-volume-limit', args, { DATABASE_URL: env.databaseUrl, REDIS_URL: env.config.REDIS_URL, REDIS_PREFIX: env.config.REDIS_PREFIX });
    expect((await run('--platform', p.platformId, '--corridor', 'usd:usd', '--limit', '1000')).stdout).toContain('USD:USD limit 1000, used today 0');
    expect((await p.request({ method: 'POST', url: '/quotes', payload: quoteBody(from, to, 1_001, true) })).statusCode).toBe(429);
    await run('--platform', p.platformId, '--corridor', 'USD:USD', '--clear');
    expect((await p.request({ method: 'POST', url: '/quotes', payload: quoteBody(from, to, 1_001, true) })).statusCode).toBe(201);
    await expect(run('--platform', p.platformId, '--corridor', 'USD')).rejects.toMatchObject({ code: 1, stderr: expect.stringContaining('--corridor') });
    await expect(setDailyVolumeLimit(env.deps, p.platformId, 'USD', 'XXX', 1n)).rejects.toMatchObject({ status: 400, code: 'INVALID_INPUT' });
  }, 120_000);
});
