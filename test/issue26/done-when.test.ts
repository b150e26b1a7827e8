import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASE, createTestEnv, type TestEnv, type TestPlatform } from '../helpers/app.js';
import { anActiveExternalAccount, anApprovedCustomer, balances, expectLedgerConsistent, fund, STARTED_STATUSES, usdBankAccount } from '../helpers/builders.js';
import { sparkAddress } from '../unit/external-accounts/fixtures.js';
import { sweepCoordinates } from '../../src/domains/collection/coordinates.service.js';
import { reconcileOperations } from '../../src/domains/stablecoin/issuance.jobs.js';
import { operatorSetTokenStatus } from '../../src/domains/stablecoin/stablecoins.service.js';

/*
 * Issue 26 "Done when", walked through HTTP on one fresh server (Postgres, Redis, the sandbox adapters):
 * pay-in coordinates and a simulated credit arriving once with its events; an agent redeeming a device code,
 * quoting and executing within policy through /agents/me/*, an over-threshold action waiting for the platform's
 * approval and executing once approved; a token registered, minted and burned — the internal-account variants
 * included. (That every REF operation is served is checked by the openapi route tests and the coverage script.)
 */

let env: TestEnv;
let p: TestPlatform;
beforeAll(async () => {
  env = await createTestEnv({ COLLECTION_PROVIDER: 'sandbox', STABLECOIN_RECONCILE_INTERVAL_MS: '50', SANDBOX_RAIL_DELAY_SCALE: '0.01', PAYMENT_POLL_MIN_MS: '20' });
  env.startWorkers();
  p = await env.platform();
}, 120_000);
afterAll(() => env.close());

const key = () => ({ 'idempotency-key': randomUUID() });
const events = (type: string) => env.deps.prisma.webhookEvent.findMany({ where: { platformId: p.platformId, type }, orderBy: { id: 'asc' } }).then((rows) => rows.map((r) => r.data as any));
const req = async (method: 'GET' | 'POST' | 'PATCH', url: string, payload?: object, headers: Record<string, string> = {}) => p.request({ method, url, payload, headers });

describe('issue 26: done when', { timeout: 240_000 }, () => {
  it('an internal account shows pay-in coordinates and a simulated credit arrives once, with its events', async () => {
    const c = await anApprovedCustomer(env, p, ['USD']);
    const id = c.accounts.USD!;
    for (let i = 0; i < 20 && (await sweepCoordinates(env.deps)) > 0; i++);
    const account = (await req('GET', `/internal-accounts/${id}`)).json();
    expect(account.fundingPaymentInstructions.length).toBeGreaterThan(0);
    expect((await events('INTERNAL_ACCOUNT.FUNDING_INSTRUCTIONS_UPDATED')).map((e) => e.id)).toContain(id);
    const credit = { amount: 4_200, rail: 'WIRE', creditId: `wire-${randomUUID()}`, sender: { name: 'Acme Corp' } };
    const first = await req('POST', `/sandbox/internal-accounts/${id}/credits`, credit);
    expect(first.json()).toMatchObject({ status: 'APPLIED' });
    const again = await req('POST', `/sandbox/internal-accounts/${id}/credits`, credit);
    expect(again.json()).toMatchObject({ status: 'APPLIED', transactionId: first.json().transactionId });
    expect(await balances(env, id)).toEqual({ available: 4_200n, held: 0n });
    expect((await events('INCOMING_PAYMENT.COMPLETED')).map((e) => e.id)).toEqual([first.json().transactionId]);
    expect((await events('INTERNAL_ACCOUNT.BALANCE_UPDATED')).filter((e) => e.id === id)).toHaveLength(1);
  });

  it('an agent redeems a device code, quotes and executes within policy, and an over-threshold action waits for approval', async () => {
    const c = await anApprovedCustomer(env, p, ['USD']);
    await fund(p, c.accounts.USD!, 100_000);
    const dest = await anActiveExternalAccount(p, usdBankAccount('123456789'), c.customerId);
    const policy = {
      permissions: ['VIEW_TRANSACTIONS', 'CREATE_QUOTES', 'EXECUTE_QUOTES'], defaultExecutionMode: 'AUTO',
      spendingLimits: { currency: 'USD', perTransactionLimit: 50_000, dailyLimit: 100_000 }, approvalThresholds: { currency: 'USD', amount: 5_000 },
    };
    const created = await req('POST', '/agents', { customerId: c.customerId, name: 'Ops agent', policy });
    expect(created.statusCode, created.body).toBe(201);
    const { agent, deviceCode } = created.json();
    const redeemed = await env.app.inject({ method: 'POST', url: `${BASE}/agents/device-codes/${deviceCode.code}/redeem` });
    expect(redeemed.statusCode, redeemed.body).toBe(200);
    const token = redeemed.json().accessToken;
    const me = (method: 'GET' | 'POST', url: string, payload?: object) => env.app.inject({ method, url: `${BASE}${url}`, payload, headers: { authorization: `Bearer ${token}`, ...key() } });
    const quote = async (amount: number) => {
      const q = await me('POST', '/agents/me/quotes', { source: { sourceType: 'ACCOUNT', accountId: c.accounts.USD }, destination: { destinationType: 'ACCOUNT', accountId: dest }, lockedCurrencySide: 'SENDING', lockedCurrencyAmount: amount });
      expect(q.statusCode, q.body).toBe(201);
      return q.json().id as string;
    };
    const within = await me('POST', `/agents/me/quotes/${await quote(1_000)}/execute`);
    expect(within.json()).toMatchObject({ status: 'APPROVED', type: 'EXECUTE_QUOTE' });
    expect(STARTED_STATUSES).toContain(within.json().transaction.status);

    const over = (await me('POST', `/agents/me/quotes/${await quote(8_000)}/execute`)).json();
    expect(over.status).toBe('PENDING_APPROVAL');
    expect((await events('AGENT_ACTION.PENDING_APPROVAL')).map((e) => e.id)).toContain(over.id);
    expect((await req('GET', '/agents/approvals')).json().data.map((a: { id: string }) => a.id)).toContain(over.id);
    const approved = await req('POST', `/agents/${agent.id}/actions/${over.id}/approve`);
    expect(approved.json()).toMatchObject({ id: over.id, status: 'APPROVED' });
    expect(STARTED_STATUSES).toContain(approved.json().transaction.status);
    expect((await me('GET', '/agents/me')).json().usage).toMatchObject({ dailyTransactionCount: 2, dailySpend: 9_000 });
  });

  it('a token is registered, minted and burned in the sandbox, the internal-account variants included', async () => {
    expect((await req('POST', '/stablecoin-provider-accounts', { provider: 'BRALE', apiClientId: `client-${randomUUID().slice(0, 8)}`, apiClientSecret: 'sandbox-secret-1' }, key())).statusCode).toBe(201);
    const token = (await req('POST', '/stablecoins', { providerTokenIdentifier: 'USDB', networkTokenIdentifier: `btkn1${randomUUID().replace(/-/g, '')}`, network: 'SPARK' }, key())).json();
    expect(token).toMatchObject({ symbol: 'USDB', issuanceStatus: 'PROVISIONED', gridOperationsStatus: 'NOT_ENABLED' });
    await operatorSetTokenStatus(env.deps, p.platformId, token.id, 'PENDING_APPROVAL');
    await operatorSetTokenStatus(env.deps, p.platformId, token.id, 'ENABLED');
    const c = await anApprovedCustomer(env, p, ['USD', 'USDB']);
    await fund(p, c.accounts.USD!, 10_000);
    const wallet = await anActiveExternalAccount(p, { currency: 'BTC', accountInfo: { accountType: 'SPARK_WALLET', address: sparkAddress } });
    const bank = await anActiveExternalAccount(p, usdBankAccount('123456789'));
    const walk = async (id: string) => {
      for (let i = 0; i < 3; i++) {
        env.clock.advance(1_100);
        await reconcileOperations(env.deps);
      }
      return (await req('GET', `/stablecoin-operations/${id}`)).json().status;
    };

    const wire = (await req('POST', `/stablecoins/${token.id}/mints`, { amount: '1000000', fundingSource: { type: 'WIRE' }, destination: { accountId: wallet } }, key())).json();
    expect(wire.status).toBe('PENDING_FUNDING');
    // Funded: the provider takes it on (the sandbox's steps are scaled by SANDBOX_RAIL_DELAY_SCALE, so it may be further on already).
    expect(['PENDING_PROVIDER', 'PROCESSING', 'COMPLETED']).toContain((await req('POST', `/sandbox/stablecoin-operations/${wire.id}/fund`, {})).json().status);
    expect(await walk(wire.id)).toBe('COMPLETED');

    const internalMint = (await req('POST', `/stablecoins/${token.id}/mints`, { amount: '30000000', fundingSource: { type: 'GRID_INTERNAL_ACCOUNT', accountId: c.accounts.USD }, destination: { accountId: c.accounts.USDB } }, key())).json();
    expect(await walk(internalMint.id)).toBe('COMPLETED');
    expect(await balances(env, c.accounts.USD!)).toEqual({ available: 7_000n, held: 0n });
    expect(await balances(env, c.accounts.USDB!)).toEqual({ available: 30_000_000n, held: 0n });

    const burn = (await req('POST', `/stablecoins/${token.id}/burns`, { amount: '10000000', source: { type: 'GRID_INTERNAL_ACCOUNT', accountId: c.accounts.USDB }, destination: { type: 'EXTERNAL_ACCOUNT', externalAccountId: bank, rail: 'WIRE' } }, key())).json();
    expect(await walk(burn.id)).toBe('COMPLETED');
    expect(await balances(env, c.accounts.USDB!)).toEqual({ available: 20_000_000n, held: 0n });
    const ops = (await req('GET', `/stablecoins/${token.id}/operations`)).json();
    expect(ops.data.map((o: { status: string }) => o.status)).toEqual(['COMPLETED', 'COMPLETED', 'COMPLETED']);
    await expectLedgerConsistent(env, p.platformId);
  });
});
