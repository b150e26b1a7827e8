import { existsSync } from 'node:fs';
import { createPublicKey, verify } from 'node:crypto';
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { BASE, createTestEnv, eventually, type TestEnv, type TestPlatform } from '../helpers/app.js';
import { assertMatchesResponseSchema } from '../helpers/openapi.js';
import { Receiver } from '../helpers/receiver.js';
import type { RunningWorkers } from '../../src/workers.js';
import { aBusiness, anIndividual, createCustomer } from './helpers.js';

const CHROMIUM = '/usr/bin/chromium';
const HAS_CHROMIUM = existsSync(CHROMIUM);
if (!HAS_CHROMIUM) console.warn(`hosted-kyc browser tests skipped: ${CHROMIUM} is missing (apt-get install -y chromium)`);

let env: TestEnv;
let p: TestPlatform;
let workers: RunningWorkers;
let receiver: Receiver;
let browser: Browser | undefined;

async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as { port: number }).port;
  await new Promise((r) => srv.close(r));
  return port;
}

beforeAll(async () => {
  const port = await freePort();
  env = await createTestEnv({ PUBLIC_BASE_URL: `http://127.0.0.1:${port}`, KYC_LINK_TTL_SECONDS: '600' });
  await env.app.listen({ port, host: '127.0.0.1' });
  workers = env.startWorkers();
  receiver = await new Receiver().start();
  p = await env.platform();
  await env.deps.prisma.platform.update({ where: { id: p.platformId }, data: { webhookEndpoint: receiver.url } });
  if (HAS_CHROMIUM) {
    const { chromium } = await import('playwright-core');
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
  }
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await workers.close();
  await receiver.stop();
  await env.close();
});

const kycLink = (customerId: string, payload: unknown = {}, headers: Record<string, string> = {}) =>
  p.request({ method: 'POST', url: `/customers/${customerId}/kyc-link`, payload: payload as object, headers });

describe.skipIf(!HAS_CHROMIUM)('hosted KYC in a browser (spec payment flow 4)', () => {
  it('individual: create → kyc-link → complete the page in Chromium → PENDING → APPROVED, events received and signed', async () => {
    const c = await createCustomer(p, anIndividual({ fullName: 'Hosted Person003', birthDate: undefined, nationality: undefined, address: undefined, idType: undefined, identifier: undefined }));
    expect(c.kycStatus).toBe('UNVERIFIED');
    const res = await kycLink(c.id, { redirectUri: undefined });
    expect(res.statusCode).toBe(201);
    const link = res.json();
    assertMatchesResponseSchema('POST', `${BASE}/customers/{customerId}/kyc-link`, 201, link);
    expect(link).toMatchObject({ provider: 'SANDBOX', kycUrl: expect.stringContaining(`${BASE}/hosted/kyc/`) });
    expect(new Date(link.expiresAt).getTime()).toBeGreaterThan(Date.now());

    const page = await browser!.newPage();
    try {
      await page.goto(link.kycUrl);
      expect(await page.locator('h1').textContent()).toBe('Verify your identity');
      expect(await page.inputValue('#fullName')).toBe('Hosted Person003');
      // A missing confirmation shows the form again with the problem.
      await page.fill('#birthDate', '1985-04-12');
      await page.fill('#nationality', 'US');
      await page.fill('#line1', '10 Downing Rd');
      await page.fill('#city', 'Springfield');
      await page.fill('#postalCode', '12345');
      await page.fill('#country', 'US');
      await page.click('#submit');
      expect(await page.locator('#consent-error').textContent()).toContain('confirm');
      expect(await page.inputValue('#line1')).toBe('10 Downing Rd');
      await page.check('#consent');
      await page.click('#submit');
      await page.waitForSelector('#title');
      expect(await page.locator('#title').textContent()).toBe('Thank you');

      // The link is single-use.
      await page.goto(link.kycUrl);
      expect(await page.locator('#title').textContent()).toBe('Link already used');
    } finally {
      await page.close();
    }

    const approved = await eventually(async () => {
      const got = (await p.request({ method: 'GET', url: `/customers/${c.id}` })).json();
      return got.kycStatus === 'APPROVED' ? got : undefined;
    });
    expect(approved).toMatchObject({ birthDate: '1985-04-12', nationality: 'US', address: { line1: '10 Downing Rd', postalCode: '12345', country: 'US' } });

    const mine = () => receiver.received.filter((r) => r.json?.data?.id === c.id);
    await eventually(async () => mine().some((r) => r.json.type === 'CUSTOMER.KYC_APPROVED'));
    expect(mine().map((r) => r.json.type)).toEqual(['CUSTOMER.KYC_PENDING', 'CUSTOMER.KYC_APPROVED']);
    const publicKey = (await p.request({ method: 'GET', url: '/config' })).json().webhookPublicKey;
    for (const r of mine()) {
      const { v, s } = JSON.parse(String(r.headers['x-svc-signature']));
      expect(v).toBe('1');
      expect(verify('sha256', Buffer.from(r.body), createPublicKey(publicKey), Buffer.from(s, 'base64'))).toBe(true);
    }
    expect(mine()[0]!.json.data.kycStatus).toBe('PENDING');
    expect(mine()[1]!.json.data).toEqual(approved);
  });

  it('business: the hosted page asks for the company address, then KYB_PENDING; an expired link shows an error page', async () => {
    const biz = await createCustomer(p, aBusiness({}, { legalName: 'Hosted Biz 003' }));
    const stale = (await kycLink(biz.id)).json();
    const fresh = (await kycLink(biz.id)).json();
    expect(fresh.kycUrl).not.toBe(stale.kycUrl);
    const page = await browser!.newPage();
    try {
      env.clock.advance(601_000);
      try {
        await page.goto(stale.kycUrl);
        expect(await page.locator('#title').textContent()).toBe('Link expired');
      } finally {
        env.clock.advance(-601_000);
      }
      await page.goto(fresh.kycUrl);
      expect(await page.locator('h1').textContent()).toBe('Verify your business');
      expect(await page.inputValue('#legalName')).toBe('Hosted Biz 003');
      await page.fill('#line1', '5 Market St');
      await page.fill('#postalCode', '94105');
      await page.fill('#country', 'US');
      await page.check('#consent');
      await page.click('#submit');
      await page.waitForSelector('#title');
      expect(await page.locator('#title').textContent()).toBe('Thank you');
    } finally {
      await page.close();
    }
    await eventually(async () => receiver.received.some((r) => r.json?.type === 'CUSTOMER.KYB_PENDING' && r.json.data.id === biz.id));
  });
});

describe('kyc-link', () => {
  it('honours Idempotency-Key: same key and body → the same link; same key, other body → 422', async () => {
    const c = await createCustomer(p, anIndividual({ fullName: 'Idem Potent003' }));
    const headers = { 'idempotency-key': `kyc-${c.id}` };
    const a = await kycLink(c.id, { redirectUri: 'https://platform.example/done' }, headers);
    const b = await kycLink(c.id, { redirectUri: 'https://platform.example/done' }, headers);
    expect(a.statusCode).toBe(201);
    expect(b.json()).toEqual(a.json());
    expect(b.headers['idempotent-replayed']).toBe('true');
    const other = await kycLink(c.id, { redirectUri: 'https://platform.example/other' }, headers);
    expect(other.statusCode).toBe(422);
    const fresh = await kycLink(c.id, { redirectUri: 'https://platform.example/done' });
    expect(fresh.json().kycUrl).not.toBe(a.json().kycUrl);
  });

  it('completing the page redirects to redirectUri (303); unknown tokens are a 404 page', async () => {
    const c = await createCustomer(p, anIndividual({ fullName: 'Redirect Me003' }));
    const link = (await kycLink(c.id, { redirectUri: 'https://platform.example/done' })).json();
    const path = new URL(link.kycUrl).pathname;
    const form = new URLSearchParams({ fullName: 'Redirect Me003', birthDate: '1990-01-01', nationality: 'US', line1: '1 A St', postalCode: '1', country: 'US', consent: 'yes' });
    const res = await env.app.inject({ method: 'POST', url: path, payload: form.toString(), headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe('https://platform.example/done');
    const again = await env.app.inject({ method: 'POST', url: path, payload: form.toString(), headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(again.statusCode).toBe(410);
    expect(again.headers['content-type']).toContain('text/html');
    const unknown = await env.app.inject({ method: 'GET', url: `${BASE}/hosted/kyc/${'x'.repeat(43)}` });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.body).toContain('Link not found');
  });

  it('is 409 for a customer with nothing to verify (APPROVED by default in sandbox)', async () => {
    const c = await createCustomer(p, anIndividual());
    const res = await kycLink(c.id);
    expect(res.statusCode).toBe(409);
  });
});
