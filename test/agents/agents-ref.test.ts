import pino from 'pino';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASE, createTestEnv, eventually, type TestEnv, type TestPlatform } from '../helpers/app.js';
import { assertMatchesResponseSchema } from '../helpers/openapi.js';
import { anActiveExternalAccount, anApprovedCustomer, balances, expectLedgerConsistent, fund, usdBankAccount } from '../helpers/builders.js';
import { buildApp } from '../../src/app.js';
import { bullConnection, closeDeps, withAdapters } from '../../src/bootstrap.js';
import { createPrisma } from '../../src/platform/db.js';
import { createRedis } from '../../src/platform/redis.js';
import { createQueues } from '../../src/platform/queue.js';
import { loadSigner } from '../../src/platform/signing.js';
import { ALL_QUEUES } from '../../src/modules.js';
import type { AppDeps } from '../../src/deps.js';
import type { RunningWorkers } from '../../src/workers.js';
import { expireAgentActions } from '../../src/domains/agent-actions/agent-actions.service.js';

// Issue 26 item 2: agents in REF's shape, through HTTP against Postgres and Redis.
let env: TestEnv;
let workers: RunningWorkers;
/** A second API process on the same database and Redis. */
let other: { app: FastifyInstance; deps: AppDeps };

beforeAll(async () => {
  env = await createTestEnv({ SANDBOX_RAIL_DELAY_SCALE: '0.01', PAYMENT_POLL_MIN_MS: '20' });
  workers = env.startWorkers();
  const prisma = createPrisma(env.config.DATABASE_URL, 3);
  const redis = createRedis(env.config.REDIS_URL);
  const queues = createQueues(ALL_QUEUES, bullConnection(env.config), env.config.REDIS_PREFIX);
  const deps = await withAdapters({ config: env.config, prisma, redis, queues, clock: env.clock, signer: await loadSigner(prisma, undefined), logger: pino({ level: 'silent' }) });
  other = { app: await buildApp(deps), deps };
  await other.app.ready();
});
afterAll(async () => {
  await other.app.close();
  await closeDeps(other.deps);
  await workers.close();
  await env.close();
});

const REF_POLICY = {
  permissions: ['VIEW_TRANSACTIONS', 'CREATE_QUOTES', 'EXECUTE_QUOTES', 'CREATE_TRANSFERS', 'MANAGE_EXTERNAL_ACCOUNTS'],
  defaultExecutionMode: 'AUTO',
  spendingLimits: { currency: 'USD', perTransactionLimit: 100_000, dailyLimit: 500_000, dailyTransactionLimit: 20, monthlyLimit: 2_000_000 },
  approvalThresholds: { currency: 'USD', amount: 20_000 },
};

interface Setup {
  p: TestPlatform;
  customerId: string;
  usd: string;
  dest: string;
  agentId: string;
  token: string;
  agent: (o: { method: 'GET' | 'POST' | 'PATCH' | 'DELETE'; url: string; payload?: object; app?: FastifyInstance }) => ReturnType<TestPlatform['request']>;
}

async function setup(policy: object = REF_POLICY, p?: TestPlatform): Promise<Setup> {
  p ??= await env.platform();
  const c = await anApprovedCustomer(env, p, ['USD']);
  const dest = await anActiveExternalAccount(p, usdBankAccount('123456789'), c.customerId);
  const created = await p.request({ method: 'POST', url: '/agents', payload: { customerId: c.customerId, name: 'Payroll bot', policy } });
  expect(created.statusCode, created.body).toBe(201);
  assertMatchesResponseSchema('POST', `${BASE}/agents`, 201, created.json());
  const { agent: a, deviceCode } = created.json();
  const redeemed = await env.app.inject({ method: 'POST', url: `${BASE}/agents/device-codes/${deviceCode.code}/redeem` });
  expect(redeemed.statusCode, redeemed.body).toBe(200);
  const token = redeemed.json().accessToken;
  const agent: Setup['agent'] = (o) => (o.app ?? env.app).inject({ method: o.method, url: `${BASE}${o.url}`, payload: o.payload, headers: { authorization: `Bearer ${token}` } });
  return { p, customerId: c.customerId, usd: c.accounts.USD!, dest, agentId: a.id, token, agent };
}

const quoteBody = (s: Setup, amount: number) => ({ source: { sourceType: 'ACCOUNT', accountId: s.usd }, destination: { destinationType: 'ACCOUNT', accountId: s.dest }, lockedCurrencySide: 'SENDING', lockedCurrencyAmount: amount });

async function agentQuote(s: Setup, amount: number) {
  const res = await s.agent({ method: 'POST', url: '/agents/me/quotes', payload: quoteBody(s, amount) });
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
}

const transactionOf = (p: TestPlatform, id: string) => p.request({ method: 'GET', url: `/transactions/${id}` }).then((r) => r.json());

describe('an agent in REF shape', () => {
  it('is created with its device code, redeems it, and sees itself, its policy and usage', async () => {
    const s = await setup();
    const me = await s.agent({ method: 'GET', url: '/agents/me' });
    expect(me.statusCode, me.body).toBe(200);
    assertMatchesResponseSchema('GET', `${BASE}/agents/me`, 200, me.json());
    expect(me.json()).toMatchObject({
      id: s.agentId, customerId: s.customerId, isPaused: false, isConnected: true,
      policy: { permissions: REF_POLICY.permissions, defaultExecutionMode: 'AUTO', spendingLimits: REF_POLICY.spendingLimits, approvalThresholds: REF_POLICY.approvalThresholds, accountRestrictions: { allowedAccountIds: null, accountRules: [] } },
      usage: { dailyTransactionCount: 0, dailySpend: 0, monthlySpend: 0 },
    });
    // REF: a connected agent cannot be given a new device code.
    expect((await s.p.request({ method: 'POST', url: `/agents/${s.agentId}/device-codes` })).json().code).toBe('AGENT_ALREADY_CONNECTED');
    // Basic credentials on the agent's own endpoints are not an agent.
    expect((await s.p.request({ method: 'GET', url: '/agents/me' })).statusCode).toBe(401);
  });

  it('quotes and executes within policy: APPROVED with its transaction, counted in usage, money moves', async () => {
    const s = await setup();
    await fund(s.p, s.usd, 500_000);
    const q = await agentQuote(s, 10_000);
    expect((await s.agent({ method: 'GET', url: `/agents/me/quotes/${q.id}` })).json().id).toBe(q.id);
    const exec = await s.agent({ method: 'POST', url: `/agents/me/quotes/${q.id}/execute` });
    expect(exec.statusCode, exec.body).toBe(200);
    assertMatchesResponseSchema('POST', `${BASE}/agents/me/quotes/{quoteId}/execute`, 200, exec.json());
    expect(exec.json()).toMatchObject({ id: expect.stringMatching(/^AgentAction:/), agentId: s.agentId, customerId: s.customerId, type: 'EXECUTE_QUOTE', status: 'APPROVED', quote: { id: q.id }, transaction: { id: q.transactionId } });
    await eventually(async () => (await transactionOf(s.p, q.transactionId)).status === 'COMPLETED');
    expect(await balances(env, s.usd)).toEqual({ available: 490_000n, held: 0n });
    expect((await s.agent({ method: 'GET', url: '/agents/me' })).json().usage).toMatchObject({ dailyTransactionCount: 1, dailySpend: 10_000, monthlySpend: 10_000 });
    const own = (await s.agent({ method: 'GET', url: '/agents/me/actions' })).json();
    expect(own.data.map((a: any) => a.id)).toEqual([exec.json().id]);
    expect((await s.agent({ method: 'GET', url: `/agents/me/actions/${exec.json().id}` })).json().status).toBe('APPROVED');
    expect((await s.agent({ method: 'GET', url: '/agents/me/transactions' })).json().data.map((t: any) => t.id)).toEqual([q.transactionId]);
    expect((await s.agent({ method: 'GET', url: `/agents/me/transactions/${q.transactionId}` })).json().id).toBe(q.transactionId);
    expect((await s.agent({ method: 'GET', url: '/agents/me/internal-accounts' })).json().data.map((a: any) => a.id)).toEqual([s.usd]);
    await expectLedgerConsistent(env, s.p.platformId);
  });

  it('an execute retried with its Idempotency-Key answers the same action; the money moves once', async () => {
    const s = await setup();
    await fund(s.p, s.usd, 50_000);
    const q = await agentQuote(s, 4_000);
    const send = () => env.app.inject({ method: 'POST', url: `${BASE}/agents/me/quotes/${q.id}/execute`, headers: { authorization: `Bearer ${s.token}`, 'idempotency-key': 'exec-once-1' } });
    const first = await send();
    const again = await send();
    expect(first.statusCode, first.body).toBe(200);
    expect(again.statusCode, again.body).toBe(200);
    expect(again.json().id).toBe(first.json().id);
    expect(await env.deps.prisma.agentAction.count({ where: { agentId: s.agentId } })).toBe(1);
    await eventually(async () => (await transactionOf(s.p, q.transactionId)).status === 'COMPLETED');
    expect(await balances(env, s.usd)).toEqual({ available: 46_000n, held: 0n });
  });

  it('a transfer-out within policy is a TRANSFER_OUT action with its transfer details', async () => {
    const s = await setup();
    await fund(s.p, s.usd, 50_000);
    const res = await s.agent({ method: 'POST', url: '/agents/me/transfer-out', payload: { source: { accountId: s.usd }, destination: { accountId: s.dest }, amount: 5_000 } });
    expect(res.statusCode, res.body).toBe(201);
    assertMatchesResponseSchema('POST', `${BASE}/agents/me/transfer-out`, 201, res.json());
    expect(res.json()).toMatchObject({ type: 'TRANSFER_OUT', status: 'APPROVED', transferDetails: { amount: 5_000, currency: 'USD', sourceAccountId: s.usd, destinationAccountId: s.dest }, transaction: { type: 'OUTGOING' } });
    expect(res.json().quote).toBeUndefined();
  });
});

describe('approval by the platform', () => {
  it('over the threshold: waits (AGENT_ACTION.PENDING_APPROVAL), listed for the platform; approved, the money moves once', async () => {
    const s = await setup();
    await fund(s.p, s.usd, 500_000);
    const q = await agentQuote(s, 50_000);
    const exec = await s.agent({ method: 'POST', url: `/agents/me/quotes/${q.id}/execute` });
    expect(exec.statusCode, exec.body).toBe(200);
    const action = exec.json();
    expect(action).toMatchObject({ status: 'PENDING_APPROVAL', type: 'EXECUTE_QUOTE', quote: { id: q.id } });
    expect(action.transaction).toBeUndefined();
    expect(await balances(env, s.usd)).toEqual({ available: 500_000n, held: 0n });
    const events = await env.deps.prisma.webhookEvent.findMany({ where: { platformId: s.p.platformId, type: 'AGENT_ACTION.PENDING_APPROVAL' } });
    expect(events.map((e) => (e.data as any).id)).toEqual([action.id]);
    expect((events[0]!.data as any)).toMatchObject({ status: 'PENDING_APPROVAL', agentId: s.agentId, quote: { id: q.id } });
    const approvals = (await s.p.request({ method: 'GET', url: `/agents/approvals?agentId=${s.agentId}` })).json();
    assertMatchesResponseSchema('GET', `${BASE}/agents/approvals`, 200, approvals);
    expect(approvals.data.map((a: any) => a.id)).toEqual([action.id]);
    // The agent cannot approve its own action.
    expect((await s.agent({ method: 'POST', url: `/agents/${s.agentId}/actions/${action.id}/approve` })).statusCode).toBe(403);
    const [a1, a2] = await Promise.all([0, 1].map(() => s.p.request({ method: 'POST', url: `/agents/${s.agentId}/actions/${action.id}/approve` })));
    expect([a1!.statusCode, a2!.statusCode].sort()).toEqual([200, 409]);
    const won = a1!.statusCode === 200 ? a1! : a2!;
    expect(won.json()).toMatchObject({ id: action.id, status: 'APPROVED', transaction: { id: q.transactionId } });
    assertMatchesResponseSchema('POST', `${BASE}/agents/{agentId}/actions/{actionId}/approve`, 200, won.json());
    await eventually(async () => (await transactionOf(s.p, q.transactionId)).status === 'COMPLETED');
    expect(await balances(env, s.usd)).toEqual({ available: 450_000n, held: 0n });
    expect((await s.p.request({ method: 'GET', url: `/agents/approvals?agentId=${s.agentId}` })).json().data).toEqual([]);
    expect((await s.agent({ method: 'GET', url: '/agents/me' })).json().usage).toMatchObject({ dailyTransactionCount: 1, dailySpend: 50_000 });
    await expectLedgerConsistent(env, s.p.platformId);
  });

  it('rejected: REJECTED with its reason, nothing moves, the usage given back', async () => {
    const s = await setup({ ...REF_POLICY, defaultExecutionMode: 'APPROVAL_REQUIRED' });
    await fund(s.p, s.usd, 100_000);
    const q = await agentQuote(s, 1_000);
    const action = (await s.agent({ method: 'POST', url: `/agents/me/quotes/${q.id}/execute` })).json();
    expect(action.status).toBe('PENDING_APPROVAL');
    const res = await s.p.request({ method: 'POST', url: `/agents/${s.agentId}/actions/${action.id}/reject`, payload: { reason: 'Not this week' } });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ status: 'REJECTED', rejectionReason: 'Not this week' });
    expect(res.json().transaction).toBeUndefined();
    expect((await transactionOf(s.p, q.transactionId)).status).toBe('FAILED');
    expect(await balances(env, s.usd)).toEqual({ available: 100_000n, held: 0n });
    expect((await s.agent({ method: 'GET', url: '/agents/me' })).json().usage).toMatchObject({ dailyTransactionCount: 0, dailySpend: 0, monthlySpend: 0 });
    expect((await s.p.request({ method: 'POST', url: `/agents/${s.agentId}/actions/${action.id}/approve` })).json().code).toBe('AGENT_ACTION_NOT_PENDING');
  });

  it('is re-checked against the latest policy: a permission removed meanwhile fails the action, nothing moves', async () => {
    const s = await setup();
    await fund(s.p, s.usd, 100_000);
    const q = await agentQuote(s, 30_000);
    const action = (await s.agent({ method: 'POST', url: `/agents/me/quotes/${q.id}/execute` })).json();
    const patched = await s.p.request({ method: 'PATCH', url: `/agents/${s.agentId}/policy`, payload: { permissions: ['VIEW_TRANSACTIONS'] } });
    expect(patched.statusCode, patched.body).toBe(200);
    assertMatchesResponseSchema('PATCH', `${BASE}/agents/{agentId}/policy`, 200, patched.json());
    expect(patched.json().policy).toMatchObject({ permissions: ['VIEW_TRANSACTIONS'], spendingLimits: REF_POLICY.spendingLimits });
    const res = await s.p.request({ method: 'POST', url: `/agents/${s.agentId}/actions/${action.id}/approve` });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ status: 'FAILED', failureReason: 'FORBIDDEN' });
    expect((await transactionOf(s.p, q.transactionId)).status).toBe('FAILED');
    expect(await balances(env, s.usd)).toEqual({ available: 100_000n, held: 0n });
  });

  it('approved without the funds: FAILED (INSUFFICIENT_FUNDS), the payment failed, nothing held, usage given back', async () => {
    const s = await setup({ ...REF_POLICY, defaultExecutionMode: 'APPROVAL_REQUIRED' });
    await fund(s.p, s.usd, 5_000);
    const q = await agentQuote(s, 5_000);
    const action = (await s.agent({ method: 'POST', url: `/agents/me/quotes/${q.id}/execute` })).json();
    // The money leaves meanwhile (the platform's own payment).
    const drain = await s.p.request({ method: 'POST', url: '/quotes', payload: { ...quoteBody(s, 5_000), immediatelyExecute: true } });
    expect(drain.statusCode, drain.body).toBe(201);
    const res = await s.p.request({ method: 'POST', url: `/agents/${s.agentId}/actions/${action.id}/approve` });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ status: 'FAILED', failureReason: 'INSUFFICIENT_FUNDS' });
    expect((await transactionOf(s.p, q.transactionId)).status).toBe('FAILED');
    // Only the platform's own payment took the money.
    await eventually(async () => (await transactionOf(s.p, drain.json().transactionId)).status === 'COMPLETED');
    expect(await balances(env, s.usd)).toEqual({ available: 0n, held: 0n });
    expect((await s.agent({ method: 'GET', url: '/agents/me' })).json().usage).toMatchObject({ dailyTransactionCount: 0, dailySpend: 0 });
  });

  it('a transfer-in: at once within policy, else pulled only on approval', async () => {
    const s = await setup({ ...REF_POLICY, approvalThresholds: { currency: 'USD', amount: 5_000 } });
    const pull = (amount: number) => s.agent({ method: 'POST', url: '/agents/me/transfer-in', payload: { source: { accountId: s.dest }, destination: { accountId: s.usd }, amount } });
    const small = await pull(1_000);
    expect(small.statusCode, small.body).toBe(201);
    expect(small.json()).toMatchObject({ type: 'TRANSFER_IN', status: 'APPROVED', transferDetails: { amount: 1_000, sourceAccountId: s.dest, destinationAccountId: s.usd }, transaction: { type: 'INCOMING' } });
    expect((await balances(env, s.usd)).available).toBe(1_000n);
    const big = (await pull(8_000)).json();
    expect(big.status).toBe('PENDING_APPROVAL');
    expect((await balances(env, s.usd)).available).toBe(1_000n);
    const approved = await s.p.request({ method: 'POST', url: `/agents/${s.agentId}/actions/${big.id}/approve` });
    expect(approved.json()).toMatchObject({ status: 'APPROVED', transaction: { type: 'INCOMING' } });
    expect((await balances(env, s.usd)).available).toBe(9_000n);
    const rejected = (await pull(7_000)).json();
    expect((await s.p.request({ method: 'POST', url: `/agents/${s.agentId}/actions/${rejected.id}/reject` })).json().status).toBe('REJECTED');
    expect((await balances(env, s.usd)).available).toBe(9_000n);
    // Money comes in: no spending limit counts it.
    expect((await s.agent({ method: 'GET', url: '/agents/me' })).json().usage).toMatchObject({ dailyTransactionCount: 0, dailySpend: 0 });
  });

  it('an action whose quote expired becomes FAILED by the sweep', async () => {
    const s = await setup({ ...REF_POLICY, defaultExecutionMode: 'APPROVAL_REQUIRED' });
    await fund(s.p, s.usd, 10_000);
    const q = await agentQuote(s, 1_000);
    const action = (await s.agent({ method: 'POST', url: `/agents/me/quotes/${q.id}/execute` })).json();
    await env.deps.prisma.agentAction.updateMany({ where: { id: action.id }, data: { expiresAt: new Date(Date.now() - 1000) } });
    expect(await expireAgentActions(env.deps)).toBeGreaterThanOrEqual(1);
    expect((await s.agent({ method: 'GET', url: `/agents/me/actions/${action.id}` })).json()).toMatchObject({ status: 'FAILED', failureReason: 'QUOTE_EXPIRED' });
    expect((await s.p.request({ method: 'POST', url: `/agents/${s.agentId}/actions/${action.id}/approve` })).json().code).toBe('AGENT_ACTION_NOT_PENDING');
  });
});

describe('limits under concurrency', () => {
  it('a daily transaction count of 3: of 8 parallel executions exactly 3 pass', async () => {
    const s = await setup({ ...REF_POLICY, spendingLimits: { ...REF_POLICY.spendingLimits, dailyTransactionLimit: 3 } });
    await fund(s.p, s.usd, 1_000_000);
    const quotes = [];
    for (let i = 0; i < 8; i++) quotes.push(await agentQuote(s, 1_000));
    const results = await Promise.all(quotes.map((q) => s.agent({ method: 'POST', url: `/agents/me/quotes/${q.id}/execute` })));
    expect(results.filter((r) => r.statusCode === 200)).toHaveLength(3);
    const refused = results.filter((r) => r.statusCode !== 200);
    expect(refused.map((r) => [r.statusCode, r.json().code, r.json().details?.limit])).toEqual(Array(5).fill([403, 'VELOCITY_LIMIT_EXCEEDED', 'DAILY_COUNT']));
    expect((await s.agent({ method: 'GET', url: '/agents/me' })).json().usage).toMatchObject({ dailyTransactionCount: 3, dailySpend: 3_000 });
    expect(await env.deps.prisma.agentAction.count({ where: { agentId: s.agentId } })).toBe(3);
  });

  it('a daily amount of 25 000: of 6 parallel executions of 10 000 exactly 2 pass, on two processes', async () => {
    const s = await setup({ ...REF_POLICY, spendingLimits: { ...REF_POLICY.spendingLimits, dailyLimit: 25_000 } });
    await fund(s.p, s.usd, 1_000_000);
    const quotes = [];
    for (let i = 0; i < 6; i++) quotes.push(await agentQuote(s, 10_000));
    const results = await Promise.all(quotes.map((q, i) => s.agent({ method: 'POST', url: `/agents/me/quotes/${q.id}/execute`, app: i % 2 ? other.app : env.app })));
    expect(results.filter((r) => r.statusCode === 200)).toHaveLength(2);
    expect(results.filter((r) => r.statusCode === 403 && r.json().details?.limit === 'DAILY')).toHaveLength(4);
    expect((await s.agent({ method: 'GET', url: '/agents/me' })).json().usage.dailySpend).toBe(20_000);
  });
});

describe('the platform manages its agents', () => {
  it('DELETE ends access at once on every process', async () => {
    const s = await setup();
    expect((await s.agent({ method: 'GET', url: '/agents/me', app: other.app })).statusCode).toBe(200);
    expect((await s.p.request({ method: 'DELETE', url: `/agents/${s.agentId}` })).statusCode).toBe(204);
    expect((await s.agent({ method: 'GET', url: '/agents/me', app: other.app })).statusCode).toBe(401);
    expect((await s.agent({ method: 'GET', url: '/agents/me' })).statusCode).toBe(401);
    expect((await s.p.request({ method: 'GET', url: `/agents/${s.agentId}` })).statusCode).toBe(404);
    expect((await s.p.request({ method: 'DELETE', url: `/agents/${s.agentId}` })).statusCode).toBe(404);
  });

  it('PATCH pauses (reads still work, acting is refused) and renames', async () => {
    const s = await setup();
    await fund(s.p, s.usd, 10_000);
    const q = await agentQuote(s, 1_000);
    const paused = await s.p.request({ method: 'PATCH', url: `/agents/${s.agentId}`, payload: { isPaused: true, name: 'Renamed' } });
    expect(paused.statusCode, paused.body).toBe(200);
    expect(paused.json()).toMatchObject({ isPaused: true, name: 'Renamed' });
    expect((await s.agent({ method: 'GET', url: '/agents/me' })).json().isPaused).toBe(true);
    const refused = await s.agent({ method: 'POST', url: `/agents/me/quotes/${q.id}/execute` });
    expect([refused.statusCode, refused.json().code, refused.json().details.reason]).toEqual([403, 'FORBIDDEN', 'AGENT_PAUSED']);
    expect((await s.p.request({ method: 'GET', url: '/agents?isPaused=true' })).json().data.map((a: any) => a.id)).toContain(s.agentId);
    await s.p.request({ method: 'PATCH', url: `/agents/${s.agentId}`, payload: { isPaused: false } });
    expect((await s.agent({ method: 'POST', url: `/agents/me/quotes/${q.id}/execute` })).statusCode).toBe(200);
  });

  it('refuses what the policy does not grant, with the permission named', async () => {
    const s = await setup({ ...REF_POLICY, permissions: ['VIEW_TRANSACTIONS'] });
    for (const [method, url, permission] of [
      ['POST', '/agents/me/quotes', 'CREATE_QUOTES'],
      ['POST', '/agents/me/transfer-out', 'CREATE_TRANSFERS'],
      ['GET', '/agents/me/external-accounts', 'MANAGE_EXTERNAL_ACCOUNTS'],
    ] as const) {
      const res = await s.agent({ method, url, payload: method === 'POST' ? {} : undefined });
      expect([url, res.statusCode, res.json().code, res.json().details]).toEqual([url, 403, 'FORBIDDEN', { agentId: s.agentId, reason: 'PERMISSION_REQUIRED', permission }]);
    }
  });

  it('refuses an account outside accountRestrictions and honours an account rule', async () => {
    const p = await env.platform();
    const s = await setup({ ...REF_POLICY, accountRestrictions: { allowedAccountIds: ['InternalAccount:00000000-0000-7000-8000-000000000000'] } }, p);
    await fund(s.p, s.usd, 10_000);
    const res = await s.agent({ method: 'POST', url: '/agents/me/quotes', payload: quoteBody(s, 1_000) });
    expect([res.statusCode, res.json().details?.reason]).toEqual([403, 'ACCOUNT_NOT_ALLOWED']);
    const patched = await s.p.request({ method: 'PATCH', url: `/agents/${s.agentId}/policy`, payload: { accountRestrictions: { allowedAccountIds: null, accountRules: [{ accountId: s.usd, executionMode: 'APPROVAL_REQUIRED', perTransactionLimit: 2_000 }] } } });
    expect(patched.statusCode, patched.body).toBe(200);
    const big = await s.agent({ method: 'POST', url: '/agents/me/quotes', payload: quoteBody(s, 3_000) });
    expect([big.statusCode, big.json().code]).toEqual([400, 'TRANSACTION_SIZE_LIMIT_EXCEEDED']);
    const q = await agentQuote(s, 1_000);
    expect((await s.agent({ method: 'POST', url: `/agents/me/quotes/${q.id}/execute` })).json().status).toBe('PENDING_APPROVAL');
  });

  it('bad input: precise 400s with details.errors[], nothing written', async () => {
    const p = await env.platform();
    const c = await anApprovedCustomer(env, p, ['USD']);
    const bad = await p.request({ method: 'POST', url: '/agents', payload: { customerId: c.customerId, name: 'x', policy: { ...REF_POLICY, permissions: ['FLY'], spendingLimits: { currency: 'USD', perTransactionLimit: -1 } } } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().code).toBe('INVALID_INPUT');
    expect(bad.json().details.errors.map((e: any) => e.field)).toEqual(expect.arrayContaining(['policy.permissions[0]', 'policy.spendingLimits.perTransactionLimit']));
    expect(await env.deps.prisma.agent.count({ where: { platformId: p.platformId } })).toBe(0);
    const s = await setup(REF_POLICY, p);
    const before = await env.deps.prisma.agent.findFirstOrThrow({ where: { id: s.agentId } });
    const badPatch = await p.request({ method: 'PATCH', url: `/agents/${s.agentId}/policy`, payload: { spendingLimits: { dailyLimit: 'lots' }, approvalThresholds: { amount: 5 } } });
    expect(badPatch.statusCode).toBe(400);
    expect(badPatch.json().details.errors.map((e: any) => e.field)).toEqual(expect.arrayContaining(['spendingLimits.dailyLimit', 'approvalThresholds.currency']));
    expect((await env.deps.prisma.agent.findFirstOrThrow({ where: { id: s.agentId } })).policy).toEqual(before.policy);
    expect((await p.request({ method: 'PATCH', url: `/agents/${s.agentId}`, payload: {} })).statusCode).toBe(400);
    const badTransfer = await s.agent({ method: 'POST', url: '/agents/me/transfer-in', payload: { source: { accountId: s.dest }, destination: { accountId: s.usd } } });
    expect([badTransfer.statusCode, badTransfer.json().details.errors[0].field]).toEqual([400, 'amount']);
    expect(await env.deps.prisma.agentAction.count({ where: { agentId: s.agentId } })).toBe(0);
    expect((await p.request({ method: 'POST', url: `/agents/${s.agentId}/actions/AgentAction:nope/reject`, payload: { reason: 1 } })).statusCode).toBe(400);
  });

  it('another platform or another customer is not found', async () => {
    const s = await setup({ ...REF_POLICY, defaultExecutionMode: 'APPROVAL_REQUIRED' });
    await fund(s.p, s.usd, 10_000);
    const q = await agentQuote(s, 1_000);
    const action = (await s.agent({ method: 'POST', url: `/agents/me/quotes/${q.id}/execute` })).json();
    const stranger = await env.platform();
    expect((await stranger.request({ method: 'POST', url: `/agents/${s.agentId}/actions/${action.id}/approve` })).statusCode).toBe(404);
    expect((await stranger.request({ method: 'GET', url: `/agents/${s.agentId}` })).statusCode).toBe(404);
    expect((await stranger.request({ method: 'PATCH', url: `/agents/${s.agentId}/policy`, payload: { permissions: [] } })).statusCode).toBe(404);
    expect((await stranger.request({ method: 'GET', url: '/agents/approvals' })).json().data).toEqual([]);
    // A second agent of the same platform, for another customer.
    const t = await setup(REF_POLICY, s.p);
    expect((await t.agent({ method: 'GET', url: `/agents/me/actions/${action.id}` })).statusCode).toBe(404);
    expect((await t.agent({ method: 'GET', url: `/agents/me/quotes/${q.id}` })).statusCode).toBe(404);
    expect((await t.agent({ method: 'POST', url: `/agents/me/quotes/${q.id}/execute` })).statusCode).toBe(404);
    expect((await t.agent({ method: 'GET', url: `/agents/me/transactions/${q.transactionId}` })).statusCode).toBe(404);
    expect((await t.agent({ method: 'GET', url: `/agents/me/external-accounts/${s.dest}` })).statusCode).toBe(404);
    expect((await t.agent({ method: 'DELETE', url: `/agents/me/external-accounts/${s.dest}` })).statusCode).toBe(404);
    expect((await t.agent({ method: 'POST', url: '/agents/me/transfer-out', payload: { source: { accountId: s.usd }, destination: { accountId: t.dest }, amount: 100 } })).statusCode).toBe(404);
    // The wrong agent in the path of the right action.
    expect((await s.p.request({ method: 'POST', url: `/agents/${t.agentId}/actions/${action.id}/approve` })).statusCode).toBe(404);
    expect(await balances(env, s.usd)).toEqual({ available: 10_000n, held: 0n });
  });
});
