import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASE, createTestEnv, type TestEnv, type TestPlatform } from '../helpers/app.js';
import { anActiveExternalAccount, anApprovedCustomer, balances, expectLedgerConsistent, fund, usdBankAccount } from '../helpers/builders.js';
import { call, startApi, type ServiceProcess } from '../helpers/processes.js';
import { ctxFor } from '../../src/deps.js';
import { finishOwedPulls, pullTransactionIdOf } from '../../src/domains/agent-actions/agent-actions.service.js';
import { convertForPolicy } from '../../src/domains/agents/agents.policy.js';

// Issue 26 (26c): agent-side money POSTs honour Idempotency-Key; a TRANSFER_IN approved by a process that died
// before its pull is finished once by the owed-pull sweep; a new spendingLimits.currency recasts limits and usage.

const PROCESS_TEST_TIMEOUT_MS = 300_000;
let env: TestEnv;
beforeAll(async () => {
  env = await createTestEnv({ SANDBOX_RAIL_DELAY_SCALE: '0.01', PAYMENT_POLL_MIN_MS: '20' });
  env.startWorkers();
});
afterAll(() => env.close());

const POLICY = {
  permissions: ['VIEW_TRANSACTIONS', 'CREATE_QUOTES', 'EXECUTE_QUOTES', 'CREATE_TRANSFERS', 'MANAGE_EXTERNAL_ACCOUNTS'],
  defaultExecutionMode: 'AUTO',
  spendingLimits: { currency: 'USD', perTransactionLimit: 100_000, dailyLimit: 500_000, dailyTransactionLimit: 20, monthlyLimit: 2_000_000 },
  approvalThresholds: { currency: 'USD', amount: 50_000 },
};

async function setup(p?: TestPlatform) {
  p ??= await env.platform();
  const c = await anApprovedCustomer(env, p, ['USD']);
  const dest = await anActiveExternalAccount(p, usdBankAccount('123456789'), c.customerId);
  const created = await p.request({ method: 'POST', url: '/agents', payload: { customerId: c.customerId, name: 'Treasury bot', policy: POLICY } });
  expect(created.statusCode, created.body).toBe(201);
  const { agent: a, deviceCode } = created.json();
  const token = (await env.app.inject({ method: 'POST', url: `${BASE}/agents/device-codes/${deviceCode.code}/redeem` })).json().accessToken as string;
  const agent = (method: 'GET' | 'POST' | 'PATCH', url: string, payload?: object, headers: Record<string, string> = {}) =>
    env.app.inject({ method, url: `${BASE}${url}`, payload, headers: { authorization: `Bearer ${token}`, ...headers } });
  return { p, customerId: c.customerId, usd: c.accounts.USD!, dest, agentId: a.id as string, token, agent };
}

const incoming = (p: TestPlatform) => env.deps.prisma.transaction.count({ where: { platformId: p.platformId, type: 'INCOMING' } });

describe('agent money POSTs and Idempotency-Key', () => {
  it('a repeated transfer-in with the same key answers the same action; the money came in once', async () => {
    const s = await setup();
    const body = { source: { accountId: s.dest }, destination: { accountId: s.usd }, amount: 1_500 };
    const headers = { 'idempotency-key': randomUUID() };
    const first = await s.agent('POST', '/agents/me/transfer-in', body, headers);
    expect(first.statusCode, first.body).toBe(201);
    expect(first.json()).toMatchObject({ type: 'TRANSFER_IN', status: 'APPROVED', transaction: { id: pullTransactionIdOf(first.json().id), type: 'INCOMING' } });
    const again = await s.agent('POST', '/agents/me/transfer-in', body, headers);
    expect(again.statusCode, again.body).toBe(201);
    expect(again.json()).toEqual(first.json());
    const other = await s.agent('POST', '/agents/me/transfer-in', { ...body, amount: 2_000 }, headers);
    expect(other.statusCode).toBe(422);
    expect(await incoming(s.p)).toBe(1);
    expect(await balances(env, s.usd)).toEqual({ available: 1_500n, held: 0n });
    expect(await env.deps.prisma.agentAction.count({ where: { agentId: s.agentId } })).toBe(1);
    await expectLedgerConsistent(env, s.p.platformId);
  }, 120_000);

  it('a repeated external-account creation with the same key answers the same account', async () => {
    const s = await setup();
    const headers = { 'idempotency-key': randomUUID() };
    const first = await s.agent('POST', '/agents/me/external-accounts', usdBankAccount('555666777'), headers);
    expect(first.statusCode, first.body).toBe(201);
    const again = await s.agent('POST', '/agents/me/external-accounts', usdBankAccount('555666777'), headers);
    expect(again.statusCode).toBe(201);
    expect(again.json().id).toBe(first.json().id);
    expect(await env.deps.prisma.externalAccount.count({ where: { customerId: s.customerId } })).toBe(2);
  }, 120_000);
});

describe('a process dies between a TRANSFER_IN approval and its pull', () => {
  let crashing: ServiceProcess | undefined;
  afterAll(async () => crashing?.kill(), PROCESS_TEST_TIMEOUT_MS);

  it('the retry answers the approved action; the owed-pull sweep pulls it exactly once, however often it runs', async () => {
    const s = await setup();
    crashing = await startApi(env, { FAULT_INJECTION: 'true' });
    const body = { source: { accountId: s.dest }, destination: { accountId: s.usd }, amount: 2_500 };
    const headers = { 'idempotency-key': `crash-${randomUUID()}` };
    const lost = await call(crashing.url, `Bearer ${s.token}`, 'POST', '/agents/me/transfer-in', body, { ...headers, 'x-fault-crash-after-commit': '1' }).catch((err) => err);
    expect(lost).toBeInstanceOf(Error);
    await crashing.waitForExit();
    const [action] = await env.deps.prisma.agentAction.findMany({ where: { agentId: s.agentId } });
    expect(action).toMatchObject({ type: 'TRANSFER_IN', status: 'APPROVED', transactionId: null });
    expect(await balances(env, s.usd)).toEqual({ available: 0n, held: 0n });

    const replay = await s.agent('POST', '/agents/me/transfer-in', body, headers);
    expect(replay.statusCode, replay.body).toBe(201);
    expect(replay.json()).toMatchObject({ id: action!.id, status: 'APPROVED' });

    env.clock.advance(env.config.AGENT_TRANSFER_IN_OWED_AFTER_MS + 1_000);
    await Promise.all([finishOwedPulls(env.deps), finishOwedPulls(env.deps)]);
    await finishOwedPulls(env.deps);
    expect(await incoming(s.p)).toBe(1);
    expect(await balances(env, s.usd)).toEqual({ available: 2_500n, held: 0n });
    // A repeat with the same key answers as the committed retry did (the idempotency record); the action itself now names its pull.
    const again = (await s.agent('POST', '/agents/me/transfer-in', body, headers)).json();
    expect(again).toMatchObject({ id: action!.id, status: 'APPROVED' });
    const done = (await s.agent('GET', `/agents/me/actions/${encodeURIComponent(action!.id)}`)).json();
    expect(done).toMatchObject({ id: action!.id, status: 'APPROVED', transaction: { id: pullTransactionIdOf(action!.id), status: 'COMPLETED' } });
    await expectLedgerConsistent(env, s.p.platformId);
  }, PROCESS_TEST_TIMEOUT_MS);
});

describe('spendingLimits.currency', () => {
  it('changing it recasts the limits the body does not set and the usage counters at today\'s rate; a given limit is taken as is', async () => {
    const s = await setup();
    await fund(s.p, s.usd, 100_000);
    const q = await s.agent('POST', '/agents/me/quotes', { source: { sourceType: 'ACCOUNT', accountId: s.usd }, destination: { destinationType: 'ACCOUNT', accountId: s.dest }, lockedCurrencySide: 'SENDING', lockedCurrencyAmount: 10_000 });
    expect(q.statusCode, q.body).toBe(201);
    expect((await s.agent('POST', `/agents/me/quotes/${q.json().id}/execute`)).json().status).toBe('APPROVED');
    expect((await s.agent('GET', '/agents/me')).json().usage).toMatchObject({ dailySpend: 10_000, monthlySpend: 10_000 });

    const patched = await s.p.request({ method: 'PATCH', url: `/agents/${s.agentId}/policy`, payload: { spendingLimits: { currency: 'EUR', dailyTransactionLimit: 15, monthlyLimit: 1_000_000 } } });
    expect(patched.statusCode, patched.body).toBe(200);
    const limits = patched.json().policy.spendingLimits;
    const ctx = ctxFor(env.deps, s.p.platformId);
    const inEur = async (usd: number) => Number(await convertForPolicy(ctx, BigInt(usd), 'USD', 'EUR'));
    // Recast rounds a limit down (never more than before) and spend up; the evaluation-time conversion rounds up.
    expect(limits.currency).toBe('EUR');
    expect(limits.perTransactionLimit).toBeGreaterThanOrEqual((await inEur(100_000)) - 1);
    expect(limits.perTransactionLimit).toBeLessThanOrEqual(await inEur(100_000));
    expect(limits.dailyLimit).toBeGreaterThanOrEqual((await inEur(500_000)) - 1);
    expect(limits.dailyLimit).toBeLessThanOrEqual(await inEur(500_000));
    expect(limits).toMatchObject({ dailyTransactionLimit: 15, monthlyLimit: 1_000_000 });
    expect(limits.perTransactionLimit).not.toBe(100_000);
    const usage = (await s.agent('GET', '/agents/me')).json().usage;
    expect(usage.dailySpend).toBe(await inEur(10_000));
    expect(usage.monthlySpend).toBe(await inEur(10_000));

    // The same currency again changes nothing.
    const same = await s.p.request({ method: 'PATCH', url: `/agents/${s.agentId}/policy`, payload: { spendingLimits: { currency: 'EUR' } } });
    expect(same.json().policy.spendingLimits).toEqual(limits);
    expect((await s.agent('GET', '/agents/me')).json().usage.dailySpend).toBe(usage.dailySpend);
  }, 120_000);
});
