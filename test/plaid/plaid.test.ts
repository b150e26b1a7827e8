import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASE, createTestEnv, eventually, type TestEnv, type TestPlatform } from '../helpers/app.js';
import { anApprovedCustomer } from '../helpers/builders.js';
import type { RunningWorkers } from '../../src/workers.js';

let env: TestEnv;
let workers: RunningWorkers;
beforeAll(async () => {
  env = await createTestEnv();
  workers = env.startWorkers();
});
afterAll(async () => {
  await workers.close();
  await env.close();
});

const ADDRESS = { line1: '1 Main St', city: 'New York', postalCode: '10001', country: 'US' };

async function customer(p: TestPlatform, fields: Record<string, unknown> = { address: ADDRESS }) {
  return (await anApprovedCustomer(env, p, ['USD'], 'APPROVED', fields)).customerId;
}

const linkToken = (p: TestPlatform, customerId: string) => p.request({ method: 'POST', url: '/plaid/link-tokens', payload: { customerId } });

/** What the customer does on the sandbox link page. */
async function choose(linkUrl: string, accountId = 'sandbox-checking') {
  const path = new URL(linkUrl).pathname;
  const page = await env.app.inject({ method: 'GET', url: path });
  expect(page.statusCode).toBe(200);
  expect(page.headers['content-type']).toContain('text/html');
  expect(page.body).toContain(accountId);
  const form = await env.app.inject({ method: 'POST', url: path, payload: `accountId=${accountId}`, headers: { 'content-type': 'application/x-www-form-urlencoded' } });
  expect(form.statusCode).toBe(200);
  const json = await env.app.inject({ method: 'POST', url: path, payload: { accountId } });
  expect(form.body).toContain(json.json().publicToken);
  return json.json() as { publicToken: string; accountId: string };
}

describe('plaid.createLinkToken and plaid.submitPublicToken (sandbox bank link)', () => {
  it('links a bank account end to end: link token, link page, public token, ACTIVE external account', async () => {
    const p = await env.platform();
    const customerId = await customer(p);
    const res = await linkToken(p, customerId);
    expect(res.statusCode, res.body).toBe(201);
    const t = res.json();
    expect(t).toMatchObject({ linkToken: expect.stringMatching(/^link-sandbox-/), expiration: expect.any(String), callbackUrl: expect.stringContaining(`${BASE}/plaid/callback/${t.linkToken}`), linkUrl: expect.any(String) });
    expect(new Date(t.expiration).getTime()).toBeGreaterThan(Date.now());
    const chosen = await choose(t.linkUrl, 'sandbox-savings');
    const sub = await p.request({ method: 'POST', url: `/plaid/callback/${t.linkToken}`, payload: chosen });
    expect(sub.statusCode, sub.body).toBe(200);
    const account = sub.json();
    expect(account).toMatchObject({ id: expect.stringMatching(/^ExternalAccount:/), customerId, currency: 'USD', accountInfo: { accountType: 'USD_ACCOUNT', routingNumber: '011401533', bankAccountType: 'SAVINGS', bankName: 'Sandbox Bank', beneficiary: { beneficiaryType: 'INDIVIDUAL', fullName: 'Ada Lovelace' } } });
    await eventually(async () => (await p.request({ method: 'GET', url: `/customers/external-accounts/${account.id}` })).json().status === 'ACTIVE');
    // Submitting again answers the same account; the link page is gone once used.
    const again = await p.request({ method: 'POST', url: `/plaid/callback/${t.linkToken}`, payload: chosen });
    expect(again.json().id).toBe(account.id);
    expect((await env.app.inject({ method: 'GET', url: new URL(t.linkUrl).pathname })).statusCode).toBe(404);
    expect(await env.deps.prisma.externalAccount.count({ where: { platformId: p.platformId } })).toBe(1);
  });

  it('refuses a forged public token, an unknown account, and an unknown or other platform\'s link token', async () => {
    const p = await env.platform();
    const other = await env.platform();
    const t = (await linkToken(p, await customer(p))).json();
    const forged = await p.request({ method: 'POST', url: `/plaid/callback/${t.linkToken}`, payload: { publicToken: 'public-sandbox-forged' } });
    expect(forged.statusCode).toBe(400);
    expect(forged.json().details.errors[0].field).toBe('publicToken');
    const badAccount = await p.request({ method: 'POST', url: `/plaid/callback/${t.linkToken}`, payload: { publicToken: 'public-sandbox-x', accountId: 'no-such' } });
    expect(badAccount.json().details.errors[0].field).toBe('accountId');
    const chosen = await choose(t.linkUrl);
    expect((await other.request({ method: 'POST', url: `/plaid/callback/${t.linkToken}`, payload: chosen })).statusCode).toBe(404);
    expect((await p.request({ method: 'POST', url: '/plaid/callback/link-sandbox-unknown', payload: chosen })).statusCode).toBe(404);
    const missing = await p.request({ method: 'POST', url: `/plaid/callback/${t.linkToken}`, payload: {} });
    expect(missing.json().details.errors[0].field).toBe('publicToken');
    expect(await env.deps.prisma.externalAccount.count({ where: { platformId: p.platformId } })).toBe(0);
  });

  it('an expired link token is 400 LINK_TOKEN_EXPIRED; an unknown customer is 404', async () => {
    const p = await env.platform();
    const t = (await linkToken(p, await customer(p))).json();
    const chosen = await choose(t.linkUrl);
    env.clock.advance(5 * 3600_000);
    try {
      const res = await p.request({ method: 'POST', url: `/plaid/callback/${t.linkToken}`, payload: chosen });
      expect(res.statusCode).toBe(400);
      expect(res.json().code).toBe('LINK_TOKEN_EXPIRED');
    } finally {
      env.clock.advance(-5 * 3600_000);
    }
    const unknown = await linkToken(p, 'Customer:0190d2c5-0000-7000-8000-000000000000');
    expect(unknown.statusCode).toBe(404);
    expect((await p.request({ method: 'POST', url: '/plaid/link-tokens', payload: {} })).json().details.errors[0].field).toBe('customerId');
  });

  it('a customer without the address a US account\'s beneficiary needs is told so, and nothing is created', async () => {
    const p = await env.platform();
    const t = (await linkToken(p, await customer(p, {}))).json();
    const res = await p.request({ method: 'POST', url: `/plaid/callback/${t.linkToken}`, payload: await choose(t.linkUrl) });
    expect(res.statusCode).toBe(400);
    expect(res.json().details.errors.map((e: any) => e.field)).toContain('accountInfo.beneficiary.address');
    expect(await env.deps.prisma.externalAccount.count({ where: { platformId: p.platformId } })).toBe(0);
  });
});

describe('without a bank-link provider', () => {
  it('POST /plaid/link-tokens is 501 NOT_IMPLEMENTED', async () => {
    const none = await createTestEnv({ BANK_LINK_PROVIDER: 'none' });
    try {
      const p = await none.platform();
      const c = await anApprovedCustomer(none, p, ['USD']);
      const res = await p.request({ method: 'POST', url: '/plaid/link-tokens', payload: { customerId: c.customerId } });
      expect(res.statusCode).toBe(501);
    } finally {
      await none.close();
    }
  });
});
