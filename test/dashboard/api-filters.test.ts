import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASE, createTestEnv, eventually, type TestEnv, type TestPlatform } from '../helpers/app.js';
import { anActiveExternalAccount, anApprovedCustomer, fund, usdBankAccount } from '../helpers/builders.js';
import { aBusiness, createCustomer } from '../customers/helpers.js';
import { assertMatchesResponseSchema } from '../helpers/openapi.js';
import type { RunningWorkers } from '../../src/workers.js';

// List filters the dashboard needs (issue 15): customers `search`, transactions `currency`,
// webhook events `resourceId`.
let env: TestEnv;
let workers: RunningWorkers;
let p: TestPlatform;

beforeAll(async () => {
  env = await createTestEnv();
  workers = env.startWorkers();
  p = await env.platform();
});
afterAll(async () => {
  await workers.close();
  await env.close();
});

async function get(url: string) {
  const res = await p.request({ method: 'GET', url });
  if (res.statusCode === 200) assertMatchesResponseSchema('GET', `${BASE}${url.split('?')[0]}`, 200, res.json());
  return res;
}

describe('GET /customers?search=', () => {
  it('matches name, legal name, email and platformCustomerId, case-insensitively, and nothing else', async () => {
    const grace = await anApprovedCustomer(env, p, ['USD'], 'APPROVED', { fullName: 'Grace Hopper', email: 'grace@navy.example', platformCustomerId: 'user-0042' });
    const acme = await createCustomer(p, aBusiness({ platformCustomerId: 'biz-7' }, { legalName: 'Acme Rockets Inc' }));
    await anApprovedCustomer(env, p, ['USD'], 'APPROVED', { fullName: 'Alan Turing', email: 'alan@example.org', platformCustomerId: 'user-0043' });
    const ids = async (q: string) => (await get(`/customers?${q}`)).json().data.map((c: any) => c.id);
    expect(await ids('search=hopper')).toEqual([grace.customerId]);
    expect(await ids('search=NAVY.EXAMPLE')).toEqual([grace.customerId]);
    expect(await ids('search=0042')).toEqual([grace.customerId]);
    expect(await ids('search=rockets')).toEqual([acme.id]);
    expect(await ids('search=rockets&customerType=INDIVIDUAL')).toEqual([]);
    expect(await ids('search=nobody-matches')).toEqual([]);
    const empty = await p.request({ method: 'GET', url: '/customers?search=' });
    expect(empty.statusCode).toBe(400);
    expect(empty.json().details.errors[0].field).toBe('search');
  });
});

describe('GET /transactions?currency= and GET /webhook-events?resourceId=', () => {
  it('filter by currency sent or received, and list the events a transaction produced', async () => {
    const c = await anApprovedCustomer(env, p, ['USD']);
    await fund(p, c.accounts.USD!, 100_000);
    const dest = await anActiveExternalAccount(p, usdBankAccount());
    const q = await p.request({ method: 'POST', url: '/quotes', payload: { source: { sourceType: 'ACCOUNT', accountId: c.accounts.USD }, destination: { destinationType: 'ACCOUNT', accountId: dest }, lockedCurrencySide: 'SENDING', lockedCurrencyAmount: 1_000 } });
    expect(q.statusCode, q.body).toBe(201);
    const txId = q.json().transactionId as string;
    expect((await get('/transactions?currency=USD')).json().data.map((t: any) => t.id)).toContain(txId);
    expect((await get('/transactions?currency=EUR')).json().data).toEqual([]);
    expect((await p.request({ method: 'GET', url: '/transactions?currency=usd' })).statusCode).toBe(400);

    const events = await eventually(async () => {
      const list = (await get(`/webhook-events?resourceId=${encodeURIComponent(txId)}`)).json().data;
      return list.length ? list : undefined;
    });
    expect(events.every((e: any) => e.data.id === txId)).toBe(true);
    expect(events.map((e: any) => e.type)).toContain('OUTGOING_PAYMENT.PENDING');
    expect((await get('/webhook-events?resourceId=Transaction:none')).json().data).toEqual([]);
  });
});
