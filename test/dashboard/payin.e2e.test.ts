import { randomUUID } from 'node:crypto';
import { existsSync, rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildDashboard } from '../helpers/dashboard-build.js';
import { freePort } from '../helpers/built-processes.js';
import type { Browser, Page } from 'playwright-core';
import { createTestEnv, type TestEnv, type TestPlatform } from '../helpers/app.js';
import { anApprovedCustomer } from '../helpers/builders.js';
import { operatorSetInternalAccountStatus } from '../../src/domains/ledger/index.js';
import { sweepCoordinates } from '../../src/domains/collection/coordinates.service.js';

// Issue 26 (26a) in headless Chromium: an internal account's pay-in coordinates and held credits, the
// platform's held pay-ins, and the stablecoins page, against a real server. Waits are for selectors.
const CHROMIUM = '/usr/bin/chromium';
const HAS_CHROMIUM = existsSync(CHROMIUM);
const WAIT = 60_000;

let env: TestEnv;
let p: TestPlatform;
let browser: Browser | undefined;
let origin: string;
let outDir: string;

beforeAll(async () => {
  outDir = buildDashboard('svc-dashboard-payin-');
  const port = await freePort();
  origin = `http://127.0.0.1:${port}`;
  env = await createTestEnv({ PUBLIC_BASE_URL: origin, DASHBOARD_DIR: outDir, COLLECTION_PROVIDER: 'sandbox' });
  await env.app.listen({ port, host: '127.0.0.1' });
  p = await env.platform({ name: 'Acme Payments' });
  if (HAS_CHROMIUM) {
    const { chromium } = await import('playwright-core');
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'] });
  }
}, 180_000);
afterAll(async () => {
  await browser?.close();
  await env?.close();
  if (outDir) rmSync(outDir, { recursive: true, force: true });
});

async function signedIn(): Promise<Page> {
  const page = await (await browser!.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
  page.setDefaultTimeout(WAIT);
  await page.goto(`${origin}/dashboard`);
  await page.getByLabel('Client id').fill(p.clientId);
  await page.getByLabel('Client secret').fill(p.clientSecret);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Overview' }).waitFor();
  return page;
}

async function go(page: Page, hash: string, heading: string | RegExp) {
  await page.evaluate(`window.location.hash = ${JSON.stringify(hash)}`);
  await page.getByRole('heading', { name: heading, level: 1 }).waitFor();
}

describe.skipIf(!HAS_CHROMIUM)('pay-in coordinates and stablecoins in the dashboard', { timeout: 120_000 }, () => {
  it('an account page shows its coordinates per rail and its held credits; the held pay-ins page lists them', async () => {
    const c = await anApprovedCustomer(env, p, ['USD']);
    const id = c.accounts.USD!;
    while ((await sweepCoordinates(env.deps)) > 0);
    const wire = (await env.deps.prisma.collectionCoordinates.findFirstOrThrow({ where: { internalAccountId: id, rail: 'WIRE' } })).instructions as { accountOrWalletInfo: { accountNumber: string } };
    await operatorSetInternalAccountStatus(env.deps, id, 'FROZEN');
    const held = await p.request({ method: 'POST', url: `/sandbox/internal-accounts/${id}/credits`, payload: { amount: 4_250, rail: 'ACH' } });
    expect(held.json()).toMatchObject({ status: 'HELD' });

    const page = await signedIn();
    await go(page, `#/customers/${c.customerId}`, /.+/);
    await page.getByRole('link', { name: id }).click();
    await page.getByRole('heading', { name: /Internal account/, level: 1 }).waitFor();
    const wireCard = page.getByRole('article', { name: 'Pay in by WIRE' });
    await wireCard.getByText(wire.accountOrWalletInfo.accountNumber).waitFor();
    await wireCard.getByText('026009593').waitFor();
    await page.getByRole('article', { name: 'Pay in by SWIFT' }).getByText('SBXCUS33').waitFor();
    const heldSection = page.getByRole('region', { name: 'Held credits' });
    await heldSection.getByText('The account is frozen').waitFor();
    await heldSection.getByText('42.50').waitFor();

    await go(page, '#/pay-ins', 'Held pay-ins');
    await page.getByRole('table', { name: 'Credits' }).getByText('The account is frozen').waitFor();
    await page.context().close();
  });

  it('the stablecoins page lists the platform\'s tokens, or says how to register one', async () => {
    const page = await signedIn();
    await page.getByRole('link', { name: 'Stablecoins' }).click();
    await page.getByRole('heading', { name: 'Stablecoins', level: 1 }).waitFor();
    await page.getByText('No stablecoins registered').waitFor();
    // A token registered through REF's API appears; its page lists its (no) mints and burns.
    const key = () => ({ 'idempotency-key': randomUUID() });
    const link = await p.request({ method: 'POST', url: '/stablecoin-provider-accounts', headers: key(), payload: { provider: 'BRALE', apiClientId: `client-${randomUUID().slice(0, 8)}`, apiClientSecret: 'sandbox-secret-1' } });
    expect(link.statusCode, link.body).toBe(201);
    const token = await p.request({ method: 'POST', url: '/stablecoins', headers: key(), payload: { providerTokenIdentifier: 'ACME', networkTokenIdentifier: `btkn1${randomUUID().replace(/-/g, '')}`, network: 'SPARK' } });
    expect(token.statusCode, token.body).toBe(201);
    // (A reload would sign out: the secret lives in the tab's memory only.) Away and back loads the list again.
    await go(page, '#/', 'Overview');
    await page.getByRole('link', { name: 'Stablecoins' }).click();
    await page.getByRole('heading', { name: 'Stablecoins', level: 1 }).waitFor();
    await page.getByRole('link', { name: /^ACME · / }).click();
    await page.getByRole('region', { name: 'Mints and burns of ACME' }).getByText('No mints or burns yet.').waitFor();
    await page.context().close();
  });
});
