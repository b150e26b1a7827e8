import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, eventually, type TestEnv, type TestPlatform } from '../helpers/app.js';
import { anActiveExternalAccount, anApprovedCustomer, balances, expectLedgerConsistent, fund, usdBankAccount } from '../helpers/builders.js';
import { operatorSetInternalAccountStatus } from '../../src/domains/ledger/index.js';
import type { RunningWorkers } from '../../src/workers.js';
import { resourceKey } from '../../src/platform/ids.js';

/**
 * Issue 25 (anchor 25c): REF's incoming-payment approval handshake, date-only list bounds and REF's beneficiary
 * rules — through HTTP against Postgres and Redis, the workers running.
 */

/** The platform's webhook endpoint: answers INCOMING_PAYMENT.PENDING as scripted (status, JSON body); 200 {} otherwise. */
class Platform {
  readonly got: any[] = [];
  script: Array<[number, unknown]> = [];
  url = '';
  private server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const event = JSON.parse(body);
      this.got.push(event);
      // Only the in-flow question takes a scripted answer; the relay's other deliveries get 200.
      const [status, answer] = (event.type === 'INCOMING_PAYMENT.PENDING' ? this.script.shift() : undefined) ?? [200, {}];
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
    });
  });
  async start() {
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hooks`;
    return this;
  }
  async stop() {
    this.server.closeAllConnections();
    await new Promise<void>((r) => this.server.close(() => r()));
  }
}

let env: TestEnv;
let workers: RunningWorkers;
let hooks: Platform;
const WINDOW_MS = 60_000;

beforeAll(async () => {
  hooks = await new Platform().start();
  env = await createTestEnv({ INCOMING_APPROVAL_WINDOW_MS: String(WINDOW_MS) });
  workers = env.startWorkers();
});
afterAll(async () => {
  await workers.close();
  await env.close();
  await hooks.stop();
});

async function anApprovingPlatform(): Promise<TestPlatform> {
  const p = await env.platform();
  const res = await p.request({ method: 'PATCH', url: '/config', payload: { webhookEndpoint: hooks.url, incomingPaymentApproval: true } });
  expect(res.statusCode, res.body).toBe(200);
  expect(res.json().incomingPaymentApproval).toBe(true);
  return p;
}

async function receive(p: TestPlatform, customerId: string, amount = 2500) {
  const res = await p.request({ method: 'POST', url: '/sandbox/uma/receive', payload: { senderUmaAddress: '$sender@other.example', receivingCurrencyCode: 'USD', receivingCurrencyAmount: amount, customerId } });
  expect(res.statusCode, res.body).toBeLessThan(300);
  return res.json();
}

const statusOf = async (p: TestPlatform, id: string) => (await p.request({ method: 'GET', url: `/transactions/${id}` })).json();
const waitStatus = (p: TestPlatform, id: string, status: string) => eventually(async () => ((await statusOf(p, id)).status === status ? statusOf(p, id) : undefined), 20_000);
const eventsOf = (platformId: string, id: string) =>
  env.deps.prisma.webhookEvent.findMany({ where: { platformId, data: { path: ['id'], equals: id } }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] });

describe('incoming-payment approval handshake (REF)', () => {
  it('is off by default (the spec): an incoming payment completes without asking the platform', async () => {
    const p = await env.platform();
    await p.request({ method: 'PATCH', url: '/config', payload: { webhookEndpoint: hooks.url } });
    const c = await anApprovedCustomer(env, p, ['USD']);
    const t = await receive(p, c.customerId);
    expect(t.status).toBe('COMPLETED');
    expect((await p.request({ method: 'GET', url: '/config' })).json().incomingPaymentApproval).toBe(false);
  });

  it('a 200 answer approves: CREATED → PENDING (asked once, in the flow) → the customer is credited', async () => {
    const p = await anApprovingPlatform();
    const c = await anApprovedCustomer(env, p, ['USD']);
    const before = hooks.got.length;
    hooks.script.push([200, { receiverCustomerInfo: { FULL_NAME: 'Ada Lovelace' } }]);
    const t = await receive(p, c.customerId, 2500);
    const asked = hooks.got.slice(before).filter((e) => e.type === 'INCOMING_PAYMENT.PENDING');
    expect(asked).toHaveLength(1);
    expect(asked[0].data).toMatchObject({ id: t.id, status: 'PENDING', pendingReason: 'PLATFORM_APPROVAL', type: 'INCOMING', requestedReceiverCustomerInfoFields: [] });
    await waitStatus(p, t.id, 'COMPLETED');
    expect((await balances(env, c.accounts.USD!)).available).toBe(2500n);
    const moves = await env.deps.prisma.statusChange.findMany({ where: { resourceId: resourceKey(t.id), machine: 'transaction' }, orderBy: { createdAt: 'asc' } });
    expect(moves.map((m) => `${m.fromStatus}>${m.toStatus}`)).toEqual(['CREATED>PENDING', 'PENDING>PROCESSING', 'PROCESSING>COMPLETED']);
    // The in-flow event is never handed to the relay as well: one delivery attempt, recorded.
    const pendingEvents = (await eventsOf(p.platformId, t.id)).filter((e) => e.type === 'INCOMING_PAYMENT.PENDING');
    expect(pendingEvents).toHaveLength(1);
    expect(pendingEvents[0]!.deliveryStatus).toBe('DELIVERED');
    await expectLedgerConsistent(env, p.platformId);
  });

  it('a 403 answer rejects: REJECTED, INCOMING_PAYMENT.REJECTED, nothing credited, listed under status=REJECTED', async () => {
    const p = await anApprovingPlatform();
    const c = await anApprovedCustomer(env, p, ['USD']);
    hooks.script.push([403, { code: 'payment_rejected', message: 'no', details: { reason: 'failed_counterparty_check', rejectionReason: 'restricted jurisdiction' } }]);
    const t = await receive(p, c.customerId);
    expect(t.status).toBe('REJECTED');
    expect(t.pendingReason).toBeUndefined();
    expect((await balances(env, c.accounts.USD!)).available).toBe(0n);
    await eventually(async () => (await eventsOf(p.platformId, t.id)).some((e) => e.type === 'INCOMING_PAYMENT.REJECTED'));
    const history = await env.deps.prisma.statusChange.findFirst({ where: { resourceId: resourceKey(t.id), toStatus: 'REJECTED' } });
    expect(history?.reason).toBe('restricted jurisdiction');
    const list = (await p.request({ method: 'GET', url: '/transactions?status=REJECTED' })).json();
    expect(list.data.map((x: { id: string }) => x.id)).toEqual([t.id]);
  });

  it('no usable answer (500) rejects with PAYMENT_APPROVAL_WEBHOOK_ERROR', async () => {
    const p = await anApprovingPlatform();
    const c = await anApprovedCustomer(env, p, ['USD']);
    hooks.script.push([500, {}]);
    const t = await receive(p, c.customerId);
    expect(t).toMatchObject({ status: 'REJECTED', failureReason: 'PAYMENT_APPROVAL_WEBHOOK_ERROR' });
  });

  it('202 then POST /transactions/{id}/approve: credited once; a second decision is 409', async () => {
    const p = await anApprovingPlatform();
    const c = await anApprovedCustomer(env, p, ['USD']);
    hooks.script.push([202, {}]);
    const t = await receive(p, c.customerId, 700);
    expect(t).toMatchObject({ status: 'PENDING', pendingReason: 'PLATFORM_APPROVAL' });
    const approved = await p.request({ method: 'POST', url: `/transactions/${t.id}/approve`, payload: { receiverCustomerInfo: { FULL_NAME: 'Ada Lovelace', COUNTRY_OF_RESIDENCE: 'US' } } });
    expect(approved.statusCode, approved.body).toBe(200);
    expect(['PROCESSING', 'COMPLETED']).toContain(approved.json().status);
    await waitStatus(p, t.id, 'COMPLETED');
    expect((await balances(env, c.accounts.USD!)).available).toBe(700n);
    for (const op of ['approve', 'reject']) {
      const again = await p.request({ method: 'POST', url: `/transactions/${t.id}/${op}`, payload: {} });
      expect(again.statusCode).toBe(409);
      expect(again.json().code).toBe('TRANSACTION_NOT_PENDING_PLATFORM_APPROVAL');
    }
  });

  it('202 then POST /transactions/{id}/reject: REJECTED with the reason, nothing credited', async () => {
    const p = await anApprovingPlatform();
    const c = await anApprovedCustomer(env, p, ['USD']);
    hooks.script.push([202, {}]);
    const t = await receive(p, c.customerId);
    const rejected = await p.request({ method: 'POST', url: `/transactions/${t.id}/reject`, payload: { reason: 'RESTRICTED_JURISDICTION' } });
    expect(rejected.statusCode, rejected.body).toBe(200);
    expect(rejected.json().status).toBe('REJECTED');
    expect((await balances(env, c.accounts.USD!)).available).toBe(0n);
  });

  it('concurrent approve and reject: exactly one decides, the money moves at most once', async () => {
    const p = await anApprovingPlatform();
    const c = await anApprovedCustomer(env, p, ['USD']);
    hooks.script.push([202, {}]);
    const t = await receive(p, c.customerId, 900);
    const answers = await Promise.all([
      p.request({ method: 'POST', url: `/transactions/${t.id}/approve`, payload: {} }),
      p.request({ method: 'POST', url: `/transactions/${t.id}/reject`, payload: {} }),
      p.request({ method: 'POST', url: `/transactions/${t.id}/approve`, payload: {} }),
    ]);
    expect(answers.filter((a) => a.statusCode === 200)).toHaveLength(1);
    expect(answers.filter((a) => a.statusCode === 409)).toHaveLength(2);
    const final = await eventually(async () => {
      const s = await statusOf(p, t.id);
      return ['COMPLETED', 'REJECTED'].includes(s.status) ? s : undefined;
    }, 20_000);
    expect((await balances(env, c.accounts.USD!)).available).toBe(final.status === 'COMPLETED' ? 900n : 0n);
    await expectLedgerConsistent(env, p.platformId);
  });

  it('approved to a FROZEN account: the payment cannot complete and is REFUNDED', async () => {
    const p = await anApprovingPlatform();
    const c = await anApprovedCustomer(env, p, ['USD']);
    hooks.script.push([202, {}]);
    const t = await receive(p, c.customerId);
    await operatorSetInternalAccountStatus(env.deps, c.accounts.USD!, 'FROZEN', 'test');
    const approved = await p.request({ method: 'POST', url: `/transactions/${t.id}/approve`, payload: {} });
    expect(approved.statusCode, approved.body).toBe(200);
    expect(approved.json().status).toBe('REFUNDED');
    expect((await balances(env, c.accounts.USD!)).available).toBe(0n);
    const list = (await p.request({ method: 'GET', url: '/transactions?status=REFUNDED' })).json();
    expect(list.data.map((x: { id: string }) => x.id)).toEqual([t.id]);
  });
});

describe('GET /transactions with date-only startDate/endDate (REF\'s client)', () => {
  it('a date is its whole UTC day; a malformed one is 400 on the field', async () => {
    const p = await env.platform();
    const c = await anApprovedCustomer(env, p, ['USD']);
    const t = await receive(p, c.customerId);
    const day = t.createdAt.slice(0, 10);
    const prev = new Date(Date.parse(`${day}T00:00:00Z`) - 86_400_000).toISOString().slice(0, 10);
    const same = (await p.request({ method: 'GET', url: `/transactions?startDate=${day}&endDate=${day}` })).json();
    expect(same.data.map((x: { id: string }) => x.id)).toContain(t.id);
    const before = (await p.request({ method: 'GET', url: `/transactions?startDate=${prev}&endDate=${prev}` })).json();
    expect(before.data).toHaveLength(0);
    const bad = await p.request({ method: 'GET', url: '/transactions?startDate=2024-13-01' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().details.errors[0].field).toBe('startDate');
  });
});

describe('beneficiary rules: the spec by default, REF per platform', () => {
  let n = 100000;
  const usd = (beneficiary: object) => ({ currency: 'USD', accountInfo: { accountType: 'USD_ACCOUNT', accountNumber: String(++n), routingNumber: '021000021', beneficiary } });
  const eur = (beneficiary: object) => ({ currency: 'EUR', accountInfo: { accountType: 'EUR_ACCOUNT', iban: 'DE89370400440532013000', beneficiary } });

  it('address-less USD and EUR beneficiaries: 400 under the spec, accepted under REF (EUR needs countryOfResidence)', async () => {
    const p = await env.platform();
    const c = await anApprovedCustomer(env, p, ['USD']);
    const create = (body: object) => p.request({ method: 'POST', url: '/customers/external-accounts', payload: { customerId: c.customerId, ...body } });
    const spec = await create(usd({ beneficiaryType: 'INDIVIDUAL', fullName: 'John Doe' }));
    expect(spec.statusCode).toBe(400);
    expect(spec.json().details.errors.map((e: { field: string }) => e.field)).toContain('accountInfo.beneficiary.address');

    const patched = await p.request({ method: 'PATCH', url: '/config', payload: { beneficiaryRules: 'REF' } });
    expect(patched.json().beneficiaryRules).toBe('REF');
    expect((await create(usd({ beneficiaryType: 'INDIVIDUAL', fullName: 'John Doe' }))).statusCode).toBe(201);
    expect((await create(usd({ beneficiaryType: 'BUSINESS', legalName: 'Acme Inc' }))).statusCode).toBe(201);
    const eurNoCountry = await create(eur({ beneficiaryType: 'INDIVIDUAL', fullName: 'Hans Mueller' }));
    expect(eurNoCountry.statusCode).toBe(400);
    expect(eurNoCountry.json().details.errors.map((e: { field: string }) => e.field)).toEqual(['accountInfo.beneficiary.countryOfResidence']);
    expect((await create(eur({ beneficiaryType: 'INDIVIDUAL', fullName: 'Hans Mueller', countryOfResidence: 'DE' }))).statusCode).toBe(201);

    await p.request({ method: 'PATCH', url: '/config', payload: { beneficiaryRules: null } });
    expect((await p.request({ method: 'GET', url: '/config' })).json().beneficiaryRules).toBe('SPEC');
    expect((await create(usd({ beneficiaryType: 'INDIVIDUAL', fullName: 'Jane Doe' }))).statusCode).toBe(400);
  });
});

describe('POST /quotes from the platform\'s account on behalf of a customer (REF\'s FBO funding)', () => {
  it('the quote and payment are the customer\'s, the money leaves the platform\'s account; a customer\'s own account names only its owner', async () => {
    const p = await env.platform();
    const c = await anApprovedCustomer(env, p, ['USD']);
    const other = await anApprovedCustomer(env, p, ['USD']);
    const platformUsd = (await env.deps.prisma.internalAccount.findFirstOrThrow({ where: { platformId: p.platformId, customerId: null, currency: 'USD' } })).id;
    await fund(p, platformUsd, 50_000);
    const ext = await anActiveExternalAccount(p, usdBankAccount('555000111'), c.customerId);
    const quote = (source: object) => p.request({ method: 'POST', url: '/quotes', payload: { source, destination: { destinationType: 'ACCOUNT', accountId: ext }, lockedCurrencySide: 'SENDING', lockedCurrencyAmount: 1000, immediatelyExecute: true } });
    const res = await quote({ sourceType: 'ACCOUNT', accountId: platformUsd, customerId: c.customerId });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toMatchObject({ status: 'PROCESSING', source: { accountId: platformUsd, customerId: c.customerId } });
    const tx = await eventually(async () => (await p.request({ method: 'GET', url: `/transactions?customerId=${encodeURIComponent(c.customerId)}&type=OUTGOING` })).json().data[0]);
    expect(tx.customerId).toBe(c.customerId);
    await eventually(async () => (await balances(env, platformUsd)).available + (await balances(env, platformUsd)).held < 50_000n);
    const mismatch = await quote({ sourceType: 'ACCOUNT', accountId: platformUsd, customerId: other.customerId });
    expect(mismatch.statusCode).toBe(400);
    const notOwner = await quote({ sourceType: 'ACCOUNT', accountId: c.accounts.USD!, customerId: other.customerId });
    expect(notOwner.statusCode).toBe(400);
    expect(notOwner.json().details.errors[0].field).toBe('source.customerId');
  });
});

describe('approval window', () => {
  it('a platform that answered 202 and never decided: REJECTED with PAYMENT_APPROVAL_TIMED_OUT once the window passed', async () => {
    const p = await anApprovingPlatform();
    const c = await anApprovedCustomer(env, p, ['USD']);
    hooks.script.push([202, {}]);
    const t = await receive(p, c.customerId);
    env.clock.advance(WINDOW_MS + 1000);
    const late = await p.request({ method: 'POST', url: `/transactions/${t.id}/approve`, payload: {} });
    expect(late.statusCode).toBe(409);
    const done = await waitStatus(p, t.id, 'REJECTED');
    expect(done.failureReason).toBe('PAYMENT_APPROVAL_TIMED_OUT');
    expect((await balances(env, c.accounts.USD!)).available).toBe(0n);
  });
});
