import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ctxFor } from '../../src/deps.js';
import { getPayableExternalAccount, getPayoutDestination } from '../../src/domains/external-accounts/index.js';
import { operatorTransition, sweepPendingChecks } from '../../src/domains/external-accounts/external-accounts.service.js';
import { DomainError } from '../../src/platform/errors.js';
import { createTestEnv, eventually, type TestEnv, type TestPlatform } from '../helpers/app.js';
import { Receiver } from '../helpers/receiver.js';
import { validateAgainstComponent } from '../helpers/openapi.js';
import { company, validExample } from '../unit/external-accounts/fixtures.js';
import { aCustomer, BASE, createAccount, errorOf, expectStatus } from './helpers.js';

/**
 * After creation: the queued beneficiary check (A11), EXTERNAL_ACCOUNT.STATUS_UPDATED to a receiver, the
 * payability check money movement relies on, soft delete, lists, and tenant isolation on every endpoint.
 */

let env: TestEnv;
let p: TestPlatform;
let receiver: Receiver;
let customerId: string;
let workers: ReturnType<TestEnv['startWorkers']>;

beforeAll(async () => {
  env = await createTestEnv();
  receiver = await new Receiver().start();
  p = await env.platform();
  customerId = await aCustomer(env, p, { fullName: 'Ada Lovelace' });
  await p.request({ method: 'PATCH', url: '/config', payload: { webhookEndpoint: receiver.url } });
  workers = env.startWorkers();
});
afterAll(async () => {
  await workers.close();
  await receiver.stop();
  await env.close();
});

const get = async (id: string) => (await p.request({ method: 'GET', url: `/customers/external-accounts/${id}` })).json();
const eventsFor = (id: string) => receiver.received.filter((r) => r.json?.type === 'EXTERNAL_ACCOUNT.STATUS_UPDATED' && r.json.data.id === id);

function withAccountNumber<T extends { accountInfo: Record<string, any> }>(example: T, field: string, value: string): T {
  example.accountInfo[field] = value;
  return example;
}

describe('beneficiary check and status (A11)', () => {
  it('moves a new account PENDING → ACTIVE and delivers EXTERNAL_ACCOUNT.STATUS_UPDATED with the full account', async () => {
    const created = (await createAccount(p, { ...validExample('GBP_ACCOUNT'), customerId })).json();
    expect(created.status).toBe('PENDING');
    const active = await eventually(async () => {
      const a = await get(created.id);
      return a.status === 'ACTIVE' && a;
    });
    expect(active).toMatchObject({ beneficiaryVerificationStatus: 'MATCHED', beneficiaryVerifiedData: { fullName: 'Ada Lovelace' } });
    const [event] = await eventually(async () => eventsFor(created.id).length > 0 && eventsFor(created.id));
    expect(event!.json.data).toEqual(active);
    expect(event!.headers['x-svc-signature']).toBeDefined();
    expect(validateAgainstComponent('ExternalAccountStatusUpdatedEnvelope', event!.json)).toEqual([]);
  });

  it('reports PARTIAL_MATCH and NOT_MATCHED by name, CHECKED_BY_RECEIVING_FI for US accounts, UNSUPPORTED for wallets', async () => {
    const partial = validExample('EUR_ACCOUNT');
    partial.accountInfo.beneficiary.fullName = 'Ada King Lovelace';
    const other = withAccountNumber(validExample('NGN_ACCOUNT'), 'accountNumber', '0123456780');
    other.accountInfo.beneficiary.fullName = 'Charles Babbage';
    const cases: Array<[Record<string, unknown>, string]> = [
      [partial, 'PARTIAL_MATCH'],
      [other, 'NOT_MATCHED'],
      [validExample('USD_ACCOUNT'), 'CHECKED_BY_RECEIVING_FI'],
      [validExample('SOLANA_WALLET'), 'UNSUPPORTED'],
      [validExample('CAD_ACCOUNT'), 'UNSUPPORTED'],
    ];
    for (const [example, expected] of cases) {
      const created = (await createAccount(p, { ...example, customerId })).json();
      const done = await eventually(async () => {
        const a = await get(created.id);
        return a.status === 'ACTIVE' && a;
      });
      expect(done.beneficiaryVerificationStatus, JSON.stringify(example)).toBe(expected);
    }
  });

  it('identifier suffix 008 sends the account UNDER_REVIEW; suffix 103 forces NOT_MATCHED', async () => {
    const review = (await createAccount(p, { ...withAccountNumber(validExample('ZAR_ACCOUNT'), 'accountNumber', '123456008'), customerId })).json();
    await eventually(async () => (await get(review.id)).status === 'UNDER_REVIEW');
    await eventually(async () => eventsFor(review.id).some((e) => e.json.data.status === 'UNDER_REVIEW'));
    const forced = (await createAccount(p, { ...withAccountNumber(validExample('GBP_ACCOUNT'), 'accountNumber', '12345103'), customerId })).json();
    await eventually(async () => (await get(forced.id)).beneficiaryVerificationStatus === 'NOT_MATCHED');
  });

  it('the operator moves: review approved → ACTIVE, deactivate → INACTIVE, each with an event', async () => {
    const review = (await createAccount(p, { ...withAccountNumber(validExample('ZAR_ACCOUNT'), 'accountNumber', '987654008'), customerId })).json();
    await eventually(async () => (await get(review.id)).status === 'UNDER_REVIEW');
    expect((await operatorTransition(env.deps, review.id, 'reviewApproved')).status).toBe('ACTIVE');
    expect((await operatorTransition(env.deps, review.id, 'deactivate')).status).toBe('INACTIVE');
    await expect(operatorTransition(env.deps, review.id, 'reviewApproved')).rejects.toMatchObject({ status: 409 });
    await eventually(async () => eventsFor(review.id).some((e) => e.json.data.status === 'INACTIVE'));
  });

  it('the sweep re-queues a check that was never queued', async () => {
    const created = (await createAccount(p, { ...validExample('THB_ACCOUNT'), customerId })).json();
    await eventually(async () => (await get(created.id)).status === 'ACTIVE');
    // Simulate a lost enqueue: back to PENDING with no job, as if Redis had been down at creation.
    await env.deps.prisma.externalAccount.updateMany({ where: { id: created.id }, data: { status: 'PENDING', beneficiaryVerificationStatus: 'PENDING', updatedAt: new Date(Date.now() - 3_600_000) } });
    expect(await sweepPendingChecks(env.deps)).toBeGreaterThanOrEqual(1);
    await eventually(async () => (await get(created.id)).status === 'ACTIVE');
  });
});

describe('getPayableExternalAccount (only ACTIVE accounts receive payments)', () => {
  it('returns what payments need for an ACTIVE account; 400 EXTERNAL_ACCOUNT_VERIFICATION_REQUIRED before; 404 when deleted', async () => {
    const ctx = ctxFor(env.deps, p.platformId);
    const created = (await createAccount(p, { ...withAccountNumber(validExample('USD_ACCOUNT'), 'accountNumber', '55555002'), customerId })).json();
    const early = await getPayableExternalAccount(ctx, created.id).catch((e: DomainError) => e);
    expect(early).toMatchObject({ status: 400, code: 'EXTERNAL_ACCOUNT_VERIFICATION_REQUIRED' });
    await eventually(async () => (await get(created.id)).status === 'ACTIVE');
    const payable = await getPayableExternalAccount(ctx, created.id);
    expect(payable).toEqual({
      id: created.id,
      customerId,
      currency: 'USD',
      accountType: 'USD_ACCOUNT',
      paymentRails: ['ACH', 'WIRE', 'RTP', 'FEDNOW'],
      status: 'ACTIVE',
      identifierLast3: '002',
      accountInfo: expect.objectContaining({ accountNumber: '55555002', routingNumber: '021000021' }),
      trusted: false,
    });
    await p.request({ method: 'DELETE', url: `/customers/external-accounts/${created.id}` });
    await expect(getPayableExternalAccount(ctx, created.id)).rejects.toMatchObject({ status: 404 });
    // A payment already under way still finds where it goes.
    expect(await getPayoutDestination(ctx, created.id)).toMatchObject({ id: created.id, isDeleted: true, accountInfo: expect.objectContaining({ accountNumber: '55555002' }) });
    const other = await env.platform();
    await expect(getPayableExternalAccount(ctxFor(env.deps, other.platformId), created.id)).rejects.toMatchObject({ status: 404 });
  });

  it('a wallet awaiting ownership proof is payable only when the caller allows it (below thresholds)', async () => {
    const cp = await env.platform({ counterpartyRules: true });
    const created = (await createAccount(cp, { ...validExample('SOLANA_WALLET'), ownershipType: 'FIRST_PARTY' }, 'platform')).json();
    const ctx = ctxFor(env.deps, cp.platformId);
    await expect(getPayableExternalAccount(ctx, created.id)).rejects.toMatchObject({ code: 'EXTERNAL_ACCOUNT_VERIFICATION_REQUIRED' });
    expect((await getPayableExternalAccount(ctx, created.id, { allowPendingOwnership: true })).status).toBe('PENDING_OWNERSHIP_VERIFICATION');
  });
});

describe('delete', () => {
  it('is 204 with no body; the account is then 404 and gone from lists', async () => {
    const owner = await aCustomer(env, p);
    const created = (await createAccount(p, { ...validExample('MYR_ACCOUNT'), customerId: owner })).json();
    const res = await p.request({ method: 'DELETE', url: `/customers/external-accounts/${created.id}` });
    expect(res.statusCode).toBe(204);
    expect(res.body).toBe('');
    expectStatus(res, 204, 'DELETE', `${BASE}/customers/external-accounts/{externalAccountId}`);
    errorOf(await p.request({ method: 'GET', url: `/customers/external-accounts/${created.id}` }), 404, 'NOT_FOUND');
    errorOf(await p.request({ method: 'DELETE', url: `/customers/external-accounts/${created.id}` }), 404, 'NOT_FOUND');
    expect((await p.request({ method: 'GET', url: `/customers/external-accounts?customerId=${owner}` })).json().data).toEqual([]);
  });

  it('platform accounts are deleted under /platform', async () => {
    const created = (await createAccount(p, validExample('IDR_ACCOUNT'), 'platform')).json();
    expect((await p.request({ method: 'DELETE', url: `/platform/external-accounts/${created.id}` })).statusCode).toBe(204);
    errorOf(await p.request({ method: 'GET', url: `/platform/external-accounts/${created.id}` }), 404, 'NOT_FOUND');
  });
});

describe('lists', () => {
  it('GET /customers/external-accounts filters by customer and currency and pages with a cursor', async () => {
    const owner = await aCustomer(env, p);
    const ids: string[] = [];
    for (const n of ['100000001', '100000002', '100000003']) ids.push((await createAccount(p, { ...withAccountNumber(validExample('USD_ACCOUNT'), 'accountNumber', n), customerId: owner })).json().id);
    ids.push((await createAccount(p, { ...validExample('GBP_ACCOUNT'), customerId: owner })).json().id);
    const first = expectStatus(await p.request({ method: 'GET', url: `/customers/external-accounts?customerId=${owner}&currency=USD&limit=2` }), 200, 'GET', `${BASE}/customers/external-accounts`);
    expect(first.data.map((a: any) => a.id)).toEqual([ids[2], ids[1]]);
    expect(first.hasMore).toBe(true);
    const second = (await p.request({ method: 'GET', url: `/customers/external-accounts?customerId=${owner}&currency=USD&limit=2&cursor=${first.nextCursor}` })).json();
    expect(second.data.map((a: any) => a.id)).toEqual([ids[0]]);
    expect(second).toMatchObject({ hasMore: false });
    expect(second.nextCursor).toBeUndefined();
    const all = (await p.request({ method: 'GET', url: `/customers/external-accounts?customerId=${owner}` })).json();
    expect(all.data).toHaveLength(4);
  });

  it('the customers list holds no platform accounts and the platform list no customer accounts', async () => {
    const q = await env.platform();
    const owner = await aCustomer(env, q);
    const mine = (await createAccount(q, { ...validExample('KES_ACCOUNT'), customerId: owner })).json();
    const platformOwned = (await createAccount(q, validExample('KES_ACCOUNT'), 'platform')).json();
    const customers = expectStatus(await q.request({ method: 'GET', url: '/customers/external-accounts' }), 200, 'GET', `${BASE}/customers/external-accounts`);
    expect(customers.data.map((a: any) => a.id)).toEqual([mine.id]);
    const platform = expectStatus(await q.request({ method: 'GET', url: '/platform/external-accounts?currency=KES' }), 200, 'GET', `${BASE}/platform/external-accounts`);
    expect(platform.data.map((a: any) => a.id)).toEqual([platformOwned.id]);
    expect((await q.request({ method: 'GET', url: '/platform/external-accounts?currency=EUR' })).json().data).toEqual([]);
  });

  it('bad query parameters are 400; an unknown customerId is 404 USER_NOT_FOUND', async () => {
    errorOf(await p.request({ method: 'GET', url: '/customers/external-accounts?limit=0' }), 400, 'INVALID_INPUT');
    errorOf(await p.request({ method: 'GET', url: '/customers/external-accounts?currency=XYZ1' }), 400, 'INVALID_INPUT');
    errorOf(await p.request({ method: 'GET', url: '/platform/external-accounts?cursor=nonsense' }), 400, 'INVALID_INPUT');
    errorOf(await p.request({ method: 'GET', url: '/customers/external-accounts?customerId=Customer:00000000-0000-7000-8000-000000000000' }), 404, 'USER_NOT_FOUND');
  });
});

describe('another platform\'s accounts are 404 on every endpoint', () => {
  it('customer and platform accounts alike', async () => {
    const cp = await env.platform({ counterpartyRules: true, scaRegion: true });
    const owner = await aCustomer(env, cp, { country: 'DE' });
    const customerAccount = (await createAccount(cp, { ...validExample('EUR_ACCOUNT'), customerId: owner })).json();
    const wallet = (await createAccount(cp, { ...validExample('BASE_WALLET'), ownershipType: 'FIRST_PARTY' }, 'platform')).json();
    const intruder = await env.platform();
    const calls: Array<[string, string, unknown?]> = [];
    for (const id of [customerAccount.id, wallet.id]) {
      for (const scope of ['customers', 'platform']) {
        calls.push(['GET', `/${scope}/external-accounts/${id}`], ['DELETE', `/${scope}/external-accounts/${id}`]);
        calls.push(['POST', `/${scope}/external-accounts/${id}/challenge`, { method: 'WALLET_SIGNATURE' }]);
        calls.push(['POST', `/${scope}/external-accounts/${id}/verify`, { signature: 'sandbox-valid-signature' }]);
      }
      for (const step of ['trust', 'untrust']) {
        calls.push(['POST', `/customers/external-accounts/${id}/${step}`], ['POST', `/customers/external-accounts/${id}/${step}/confirm`, { code: '123456' }]);
      }
    }
    for (const [method, url, payload] of calls) {
      const res = await intruder.request({ method: method as 'GET', url, ...(payload ? { payload: payload as object } : {}) });
      expect(res.statusCode, `${method} ${url}: ${res.body}`).toBe(404);
    }
    errorOf(await intruder.request({ method: 'GET', url: `/customers/external-accounts?customerId=${owner}` }), 404, 'USER_NOT_FOUND');
    expect((await intruder.request({ method: 'GET', url: '/customers/external-accounts' })).json().data).toEqual([]);
    expect((await intruder.request({ method: 'GET', url: '/platform/external-accounts' })).json().data).toEqual([]);
    // Still there for their owner.
    expect((await cp.request({ method: 'GET', url: `/customers/external-accounts/${customerAccount.id}` })).statusCode).toBe(200);
    expect((await cp.request({ method: 'GET', url: `/platform/external-accounts/${wallet.id}` })).statusCode).toBe(200);
  });
});

describe('a business customer\'s account', () => {
  it('matches the beneficiary legalName against the business name', async () => {
    const business = await aCustomer(env, p, { customerType: 'BUSINESS', legalName: 'Acme Ltd' });
    const example = validExample('EUR_ACCOUNT');
    example.accountInfo.iban = 'DE75512108001245126199';
    example.accountInfo.beneficiary = company();
    const created = (await createAccount(p, { ...example, customerId: business })).json();
    const done = await eventually(async () => {
      const a = await get(created.id);
      return a.status === 'ACTIVE' && a;
    });
    expect(done.beneficiaryVerificationStatus).toBe('MATCHED');
  });
});
