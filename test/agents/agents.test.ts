import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASE, createTestEnv, eventually, type TestEnv, type TestPlatform } from '../helpers/app.js';
import { assertMatchesResponseSchema } from '../helpers/openapi.js';
import { anActiveExternalAccount, anApprovedCustomer, balances, expectLedgerConsistent, fund, STARTED_STATUSES, usdBankAccount } from '../helpers/builders.js';
import type { RunningWorkers } from '../../src/workers.js';

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

interface Setup {
  p: TestPlatform;
  customerId: string;
  usd: string;
  dest: string;
  agentId: string;
  token: string;
  agent: (opts: { method: 'GET' | 'POST' | 'PATCH' | 'DELETE'; url: string; payload?: object }) => ReturnType<TestPlatform['request']>;
}

const POLICY = { currency: 'USD', maxTransactionAmount: 100_000, dailyLimit: 150_000, approvalThreshold: 20_000 };

async function setup(policy: object = POLICY, destAccount = '123456789'): Promise<Setup> {
  const p = await env.platform();
  const c = await anApprovedCustomer(env, p, ['USD']);
  const dest = await anActiveExternalAccount(p, usdBankAccount(destAccount), c.customerId);
  const created = await p.request({ method: 'POST', url: '/agents', payload: { customerId: c.customerId, name: 'Payroll bot', policy } });
  expect(created.statusCode, created.body).toBe(201);
  const agentId = created.json().id;
  const code = (await p.request({ method: 'POST', url: `/agents/${agentId}/device-codes` })).json().code;
  const redeemed = await env.app.inject({ method: 'POST', url: `${BASE}/agents/device-codes/${code}/redeem` });
  expect(redeemed.statusCode, redeemed.body).toBe(200);
  const token = redeemed.json().accessToken;
  const agent: Setup['agent'] = (o) => env.app.inject({ ...o, url: `${BASE}${o.url}`, headers: { authorization: `Bearer ${token}` } });
  return { p, customerId: c.customerId, usd: c.accounts.USD!, dest, agentId, token, agent };
}

const agentQuote = (s: Setup, amount: number, extra: object = {}) =>
  s.agent({ method: 'POST', url: '/quotes', payload: { source: { sourceType: 'ACCOUNT', accountId: s.usd }, destination: { destinationType: 'ACCOUNT', accountId: s.dest }, lockedCurrencySide: 'SENDING', lockedCurrencyAmount: amount, ...extra } });

async function waitStatus(p: TestPlatform, transactionId: string, status: string, refund?: string) {
  return eventually(async () => {
    const t = (await p.request({ method: 'GET', url: `/transactions/${transactionId}` })).json();
    return t.status === status && (!refund || t.refund?.status === refund) ? t : undefined;
  });
}

describe('agent credentials', () => {
  it('are obtained once through a device code; only a hash of the token is stored', async () => {
    const p = await env.platform();
    const c = await anApprovedCustomer(env, p, ['USD']);
    const a = (await p.request({ method: 'POST', url: '/agents', payload: { customerId: c.customerId, name: 'Bot', policy: POLICY } })).json();
    assertMatchesResponseSchema('POST', `${BASE}/agents`, 201, a);
    expect(a).toMatchObject({ id: expect.stringMatching(/^Agent:/), customerId: c.customerId, status: 'ACTIVE', policy: { ...POLICY, allowedActions: expect.arrayContaining(['CREATE_QUOTE', 'EXECUTE_QUOTE']) } });
    expect((await p.request({ method: 'GET', url: `/agents/${a.id}` })).json().id).toBe(a.id);
    expect((await p.request({ method: 'GET', url: `/agents?customerId=${c.customerId}` })).json().data.map((x: any) => x.id)).toEqual([a.id]);
    const dc = await p.request({ method: 'POST', url: `/agents/${a.id}/device-codes` });
    expect(dc.statusCode).toBe(201);
    assertMatchesResponseSchema('POST', `${BASE}/agents/{agentId}/device-codes`, 201, dc.json());
    const { code, expiresAt } = dc.json();
    expect(code).toMatch(/^[A-Z2-9]{4}-[A-Z2-9]{4}-[A-Z2-9]{4}$/);
    expect(new Date(expiresAt).getTime()).toBeGreaterThan(Date.now());
    expect((await p.request({ method: 'GET', url: `/agents/device-codes/${code}/status` })).json()).toMatchObject({ code, redeemed: false });
    const r = await env.app.inject({ method: 'POST', url: `${BASE}/agents/device-codes/${code}/redeem` });
    expect(r.statusCode).toBe(200);
    assertMatchesResponseSchema('POST', `${BASE}/agents/device-codes/{code}/redeem`, 200, r.json());
    expect(r.json()).toMatchObject({ agentId: a.id, agentName: 'Bot', accessToken: expect.stringMatching(/^agt_/), policy: { maxTransactionAmount: POLICY.maxTransactionAmount } });
    expect((await p.request({ method: 'GET', url: `/agents/device-codes/${code}/status` })).json().redeemed).toBe(true);
    expect((await env.app.inject({ method: 'POST', url: `${BASE}/agents/device-codes/${code}/redeem` })).json().code).toBe('TOKEN_NOT_FOUND');
    const stored = await env.deps.prisma.agentDeviceCode.findFirstOrThrow({ where: { agentId: a.id } });
    expect(JSON.stringify(stored)).not.toContain(r.json().accessToken);
    expect(JSON.stringify(stored)).not.toContain(code);
    expect((await env.app.inject({ method: 'GET', url: `${BASE}/transactions`, headers: { authorization: 'Bearer agt_wrongwrongwrongwrongwrongwrongwrongwrongwrong' } })).statusCode).toBe(401);
    expect((await p.request({ method: 'POST', url: '/agents', payload: { customerId: 'Customer:00000000-0000-7000-8000-000000000000', name: 'x', policy: POLICY } })).statusCode).toBe(404);
  });
});

describe('agent payments', () => {
  it('under the approval threshold: executed at once, agentId on the transaction', async () => {
    const s = await setup();
    await fund(s.p, s.usd, 500_000);
    const q = (await agentQuote(s, 10_000)).json();
    const exec = await s.agent({ method: 'POST', url: `/quotes/${q.id}/execute` });
    expect(exec.statusCode, exec.body).toBe(200);
    // Read back after the settlement job was queued: the worker may already have finished it.
    expect(STARTED_STATUSES).toContain(exec.json().status);
    const t = await waitStatus(s.p, q.transactionId, 'COMPLETED');
    expect(t).toMatchObject({ agentId: s.agentId });
    expect(t.pendingReason).toBeUndefined();
    expect((await s.agent({ method: 'GET', url: `/transactions/${q.transactionId}` })).json().agentId).toBe(s.agentId);
  });

  it('over the threshold: waits for the platform holding nothing; approve releases it', async () => {
    const s = await setup();
    await fund(s.p, s.usd, 500_000);
    const q = (await agentQuote(s, 50_000)).json();
    const exec = await s.agent({ method: 'POST', url: `/quotes/${q.id}/execute` });
    expect(exec.statusCode, exec.body).toBe(200);
    expect(exec.json().status).toBe('PENDING');
    const pending = (await s.p.request({ method: 'GET', url: `/transactions/${q.transactionId}` })).json();
    assertMatchesResponseSchema('GET', `${BASE}/transactions/{transactionId}`, 200, pending);
    expect(pending).toMatchObject({ status: 'PENDING', pendingReason: 'PLATFORM_APPROVAL', agentId: s.agentId });
    expect(await balances(env, s.usd)).toEqual({ available: 500_000n, held: 0n });
    expect((await s.agent({ method: 'POST', url: `/quotes/${q.id}/execute` })).statusCode).toBe(409);
    expect((await s.agent({ method: 'POST', url: `/transactions/${q.transactionId}/approve` })).statusCode).toBe(403);
    const approved = await s.p.request({ method: 'POST', url: `/transactions/${q.transactionId}/approve` });
    expect(approved.statusCode, approved.body).toBe(200);
    assertMatchesResponseSchema('POST', `${BASE}/transactions/{transactionId}/approve`, 200, approved.json());
    expect(approved.json().pendingReason).toBeUndefined();
    expect(STARTED_STATUSES).toContain(approved.json().status);
    await waitStatus(s.p, q.transactionId, 'COMPLETED');
    expect(await balances(env, s.usd)).toEqual({ available: 450_000n, held: 0n });
    expect((await s.p.request({ method: 'POST', url: `/transactions/${q.transactionId}/approve` })).json().code).toBe('TRANSACTION_NOT_PENDING_PLATFORM_APPROVAL');
    await expectLedgerConsistent(env, s.p.platformId);
  });

  it('over the threshold and rejected: FAILED, nothing moved, the daily limit given back', async () => {
    const s = await setup();
    await fund(s.p, s.usd, 500_000);
    const q = (await agentQuote(s, 90_000)).json();
    await s.agent({ method: 'POST', url: `/quotes/${q.id}/execute` });
    const rejected = await s.p.request({ method: 'POST', url: `/transactions/${q.transactionId}/reject`, payload: { reason: 'Not this week' } });
    expect(rejected.statusCode, rejected.body).toBe(200);
    assertMatchesResponseSchema('POST', `${BASE}/transactions/{transactionId}/reject`, 200, rejected.json());
    expect(rejected.json()).toMatchObject({ status: 'FAILED', failureReason: 'QUOTE_EXECUTION_FAILED', failureDetail: 'PLATFORM_REJECTED' });
    expect(rejected.json().pendingReason).toBeUndefined();
    expect(rejected.json().refund).toBeUndefined();
    expect(await balances(env, s.usd)).toEqual({ available: 500_000n, held: 0n });
    expect((await s.p.request({ method: 'POST', url: `/transactions/${q.transactionId}/reject` })).statusCode).toBe(409);
    expect((await s.p.request({ method: 'POST', url: `/transactions/${q.transactionId}/approve` })).statusCode).toBe(409);
    // 90 000 was given back: another 90 000 fits the 150 000 daily limit.
    const again = (await agentQuote(s, 90_000)).json();
    expect((await s.agent({ method: 'POST', url: `/quotes/${again.id}/execute` })).statusCode).toBe(200);
    const events = await env.deps.prisma.webhookEvent.findMany({ where: { platformId: s.p.platformId, type: 'OUTGOING_PAYMENT.FAILED' } });
    expect(events).toHaveLength(1);
  });

  it('enforces the per-transaction maximum and the daily limit (counted in Postgres)', async () => {
    const s = await setup({ ...POLICY, approvalThreshold: 100_000 });
    await fund(s.p, s.usd, 1_000_000);
    const tooBig = await agentQuote(s, 100_001);
    expect([tooBig.statusCode, tooBig.json().code]).toEqual([400, 'TRANSACTION_SIZE_LIMIT_EXCEEDED']);
    const first = (await agentQuote(s, 100_000)).json();
    expect((await s.agent({ method: 'POST', url: `/quotes/${first.id}/execute` })).statusCode).toBe(200);
    const second = (await agentQuote(s, 60_000)).json();
    const refused = await s.agent({ method: 'POST', url: `/quotes/${second.id}/execute` });
    expect([refused.statusCode, refused.json().code]).toEqual([403, 'VELOCITY_LIMIT_EXCEEDED']);
    const usage = await env.deps.prisma.agentDailyUsage.findMany({ where: { agentId: s.agentId } });
    expect(usage.map((u) => u.used)).toEqual([100_000n]);
    // The platform itself is not bound by the agent's policy.
    expect((await s.p.request({ method: 'POST', url: `/quotes/${second.id}/execute` })).statusCode).toBe(200);
  });
});

describe('agent real-time funded quotes', () => {
  it('above the threshold, the deposit is credited and the payment waits for approval; approving executes it', async () => {
    const s = await setup();
    const res = await s.agent({ method: 'POST', url: '/quotes', payload: { source: { sourceType: 'REALTIME_FUNDING', currency: 'USD' }, destination: { destinationType: 'ACCOUNT', accountId: s.dest }, lockedCurrencySide: 'SENDING', lockedCurrencyAmount: 30_000 } });
    expect(res.statusCode, res.body).toBe(201);
    const q = res.json();
    expect(q.source).toMatchObject({ sourceType: 'REALTIME_FUNDING', customerId: s.customerId });
    const reference = q.paymentInstructions[0].accountOrWalletInfo.reference;
    const d = await s.p.request({ method: 'POST', url: '/sandbox/deposits', payload: { reference, amount: q.totalSendingAmount, currency: 'USD' } });
    expect(d.json().outcome).toBe('AWAITING_APPROVAL');
    expect(await balances(env, s.usd)).toEqual({ available: BigInt(q.totalSendingAmount), held: 0n });
    expect((await s.p.request({ method: 'GET', url: `/transactions/${q.transactionId}` })).json()).toMatchObject({ status: 'PENDING', pendingReason: 'PLATFORM_APPROVAL' });
    expect((await s.p.request({ method: 'POST', url: `/transactions/${q.transactionId}/approve` })).statusCode).toBe(200);
    await waitStatus(s.p, q.transactionId, 'COMPLETED');
    expect(await balances(env, s.usd)).toEqual({ available: 0n, held: 0n });
    await expectLedgerConsistent(env, s.p.platformId);
  });
});

describe('an agent acts only for its customer', () => {
  it("gets 404 for another customer's data and 403 on platform-only endpoints", async () => {
    const s = await setup();
    const other = await anApprovedCustomer(env, s.p, ['USD']);
    await fund(s.p, other.accounts.USD!, 10_000);
    const otherDest = await anActiveExternalAccount(s.p, usdBankAccount('222333444'), other.customerId);
    const otherQuote = (await s.p.request({ method: 'POST', url: '/quotes', payload: { source: { sourceType: 'ACCOUNT', accountId: other.accounts.USD }, destination: { destinationType: 'ACCOUNT', accountId: otherDest }, lockedCurrencySide: 'SENDING', lockedCurrencyAmount: 1_000 } })).json();
    for (const url of [`/internal-accounts/${other.accounts.USD}`, `/transactions/${otherQuote.transactionId}`, `/quotes/${otherQuote.id}`, `/customers/external-accounts/${otherDest}`, `/customers/external-accounts?customerId=${other.customerId}`]) {
      const res = await s.agent({ method: 'GET', url });
      expect([url, res.statusCode]).toEqual([url, 404]);
    }
    expect((await s.agent({ method: 'POST', url: `/quotes/${otherQuote.id}/execute` })).statusCode).toBe(404);
    expect((await s.agent({ method: 'POST', url: `/transactions/${otherQuote.transactionId}/cancel` })).statusCode).toBe(404);
    expect((await s.agent({ method: 'GET', url: `/transactions?customerId=${other.customerId}` })).json().data).toEqual([]);
    expect((await s.agent({ method: 'GET', url: '/transactions' })).json().data).toEqual([]);
    expect((await s.agent({ method: 'GET', url: `/customers/internal-accounts?customerId=${other.customerId}` })).json().data).toEqual([]);
    expect((await s.agent({ method: 'GET', url: '/customers/internal-accounts' })).json().data.map((a: any) => a.id)).toEqual([s.usd]);
    expect((await s.agent({ method: 'GET', url: '/customers/external-accounts' })).json().data.map((a: any) => a.id)).toEqual([s.dest]);
    const steal = await s.agent({ method: 'POST', url: '/quotes', payload: { source: { sourceType: 'ACCOUNT', accountId: other.accounts.USD }, destination: { destinationType: 'ACCOUNT', accountId: s.dest }, lockedCurrencySide: 'SENDING', lockedCurrencyAmount: 1_000 } });
    expect(steal.statusCode).toBe(404);
    const payOther = await s.agent({ method: 'POST', url: '/quotes', payload: { source: { sourceType: 'ACCOUNT', accountId: s.usd }, destination: { destinationType: 'ACCOUNT', accountId: otherDest }, lockedCurrencySide: 'SENDING', lockedCurrencyAmount: 1_000 } });
    expect(payOther.statusCode).toBe(404);
    const created = await s.agent({ method: 'POST', url: '/customers/external-accounts', payload: { ...usdBankAccount('777888999') } });
    expect(created.statusCode, created.body).toBe(201);
    expect(created.json().customerId).toBe(s.customerId);
    expect((await s.agent({ method: 'POST', url: '/customers/external-accounts', payload: { ...usdBankAccount('777888990'), customerId: other.customerId } })).statusCode).toBe(404);
    for (const [method, url] of [
      ['GET', '/config'],
      ['GET', '/customers'],
      ['GET', `/customers/${s.customerId}`],
      ['POST', '/agents'],
      ['GET', '/agents'],
      ['GET', '/platform/internal-accounts'],
      ['GET', '/platform/external-accounts'],
      ['POST', `/transactions/${otherQuote.transactionId}/approve`],
      ['POST', `/sandbox/internal-accounts/${s.usd}/fund`],
      ['GET', '/webhook-events'],
    ] as const) {
      const res = await s.agent({ method, url, payload: method === 'POST' ? {} : undefined });
      expect([method, url, res.statusCode, res.json().code]).toEqual([method, url, 403, 'FORBIDDEN']);
    }
  });

  it("is refused actions its policy does not allow", async () => {
    const s = await setup({ ...POLICY, allowedActions: ['CREATE_QUOTE', 'VIEW_TRANSACTIONS'] });
    await fund(s.p, s.usd, 50_000);
    const q = (await agentQuote(s, 1_000)).json();
    expect((await s.agent({ method: 'POST', url: `/quotes/${q.id}/execute` })).statusCode).toBe(403);
    // REF's shape (issue 26): VIEW_TRANSACTIONS covers "transactions and account balances" — the spec's VIEW_ACCOUNTS maps onto it.
    expect((await s.agent({ method: 'GET', url: '/customers/internal-accounts' })).statusCode).toBe(200);
    expect((await s.agent({ method: 'GET', url: '/customers/external-accounts' })).statusCode).toBe(200);
    expect((await s.agent({ method: 'POST', url: '/customers/external-accounts', payload: usdBankAccount('777888111') })).json()).toMatchObject({ code: 'FORBIDDEN', details: { reason: 'PERMISSION_REQUIRED', permission: 'MANAGE_EXTERNAL_ACCOUNTS' } });
    expect((await s.agent({ method: 'GET', url: '/transactions' })).statusCode).toBe(200);
  });
});

describe('cancel', () => {
  it('stops a PENDING or PROCESSING payment (refund USER_CANCELLATION) and refuses a settled one', async () => {
    const s = await setup(POLICY, '123456003');
    await fund(s.p, s.usd, 100_000);
    const q1 = (await agentQuote(s, 5_000)).json();
    const c1 = await s.agent({ method: 'POST', url: `/transactions/${q1.transactionId}/cancel`, payload: { reason: 'changed my mind' } });
    expect(c1.statusCode, c1.body).toBe(200);
    expect(c1.json()).toMatchObject({ status: 'FAILED', failureReason: 'QUOTE_EXECUTION_FAILED', failureDetail: 'USER_CANCELLATION' });
    expect(c1.json().refund).toBeUndefined();
    expect((await s.p.request({ method: 'POST', url: `/quotes/${q1.id}/execute` })).statusCode).toBe(409);

    // Account ending 003: the sandbox rail is slow, so the payment stays PROCESSING.
    const q2 = (await agentQuote(s, 7_000)).json();
    await s.agent({ method: 'POST', url: `/quotes/${q2.id}/execute` });
    expect((await balances(env, s.usd)).held).toBe(7_000n);
    // Cancel once the rail has the payout (while it is being handed over, cancel answers 409).
    await eventually(async () => (await env.deps.prisma.transaction.findFirst({ where: { id: q2.transactionId } }))?.railReference);
    const c2 = await s.p.request({ method: 'POST', url: `/transactions/${q2.transactionId}/cancel` });
    expect(c2.statusCode, c2.body).toBe(200);
    assertMatchesResponseSchema('POST', `${BASE}/transactions/{transactionId}/cancel`, 200, c2.json());
    const t2 = await waitStatus(s.p, q2.transactionId, 'FAILED', 'COMPLETED');
    expect(t2).toMatchObject({ failureReason: 'QUOTE_EXECUTION_FAILED', failureDetail: 'USER_CANCELLATION', refund: { reason: 'USER_CANCELLATION', status: 'COMPLETED' } });
    expect(await balances(env, s.usd)).toEqual({ available: 100_000n, held: 0n });
    expect((await s.p.request({ method: 'POST', url: `/transactions/${q2.transactionId}/cancel` })).json().code).toBe('TRANSACTION_NOT_CANCELLABLE');
    await expectLedgerConsistent(env, s.p.platformId);
  });

  it('is refused once the payment completed', async () => {
    const s = await setup();
    await fund(s.p, s.usd, 100_000);
    const q = (await agentQuote(s, 1_000, { immediatelyExecute: true })).json();
    await waitStatus(s.p, q.transactionId, 'COMPLETED');
    const res = await s.p.request({ method: 'POST', url: `/transactions/${q.transactionId}/cancel` });
    expect([res.statusCode, res.json().code]).toEqual([409, 'TRANSACTION_NOT_CANCELLABLE']);
  });
});
