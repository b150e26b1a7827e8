import { randomUUID } from 'node:crypto';
import { existsSync, rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildDashboard } from '../helpers/dashboard-build.js';
import { freePort } from '../helpers/built-processes.js';
import type { Browser, Page } from 'playwright-core';
import { createTestEnv, type TestEnv, type TestPlatform } from '../helpers/app.js';
import { anApprovedCustomer } from '../helpers/builders.js';
import { operatorSetTokenStatus } from '../../src/domains/stablecoin/stablecoins.service.js';
import { anActiveExternalAccount, balances, fund, usdBankAccount } from '../helpers/builders.js';

// Issue 26 (26c) in headless Chromium: a token's mint and burn forms against a real server — an
// internal-account mint (the USD account held, the operation listed), a burn, and a refusal shown. Waits are
// for selectors, never for durations.
const CHROMIUM = '/usr/bin/chromium';
const HAS_CHROMIUM = existsSync(CHROMIUM);
const WAIT = 60_000;

let env: TestEnv;
let p: TestPlatform;
let browser: Browser | undefined;
let origin: string;
let outDir: string;

beforeAll(async () => {
  outDir = buildDashboard('svc-dashboard-stablecoin-');
  const port = await freePort();
  origin = `http://127.0.0.1:${port}`;
  env = await createTestEnv({ PUBLIC_BASE_URL: origin, DASHBOARD_DIR: outDir });
  env.startWorkers();
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

describe.skipIf(!HAS_CHROMIUM)('stablecoin mint and burn forms', { timeout: 180_000 }, () => {
  it('mints from an internal account into another, burns to a bank account, and shows a refusal', async () => {
    const key = () => ({ 'idempotency-key': randomUUID() });
    expect((await p.request({ method: 'POST', url: '/stablecoin-provider-accounts', headers: key(), payload: { provider: 'BRALE', apiClientId: `client-${randomUUID().slice(0, 8)}`, apiClientSecret: 'sandbox-secret-1' } })).statusCode).toBe(201);
    const token = (await p.request({ method: 'POST', url: '/stablecoins', headers: key(), payload: { providerTokenIdentifier: 'USDB', networkTokenIdentifier: `btkn1${randomUUID().replace(/-/g, '')}`, network: 'SPARK' } })).json();
    await operatorSetTokenStatus(env.deps, p.platformId, token.id, 'PENDING_APPROVAL');
    await operatorSetTokenStatus(env.deps, p.platformId, token.id, 'ENABLED');
    const c = await anApprovedCustomer(env, p, ['USD', 'USDB']);
    const usd = c.accounts.USD!;
    const usdb = c.accounts.USDB!;
    await fund(p, usd, 10_000);
    const bank = await anActiveExternalAccount(p, usdBankAccount('123456789'));

    const page = await signedIn();
    await go(page, `#/stablecoins/${token.id}`, 'Stablecoins');
    const mint = page.getByRole('form', { name: 'Mint' });
    await mint.getByLabel('Amount (USDB)').fill('25');
    await mint.getByLabel('Funding').selectOption('GRID_INTERNAL_ACCOUNT');
    await mint.getByLabel('Internal account (USD)').fill(usd);
    await mint.getByLabel(/^Destination/).fill(usdb);
    await mint.getByRole('button', { name: 'Mint' }).click();
    await page.getByTestId('mint-result').getByText(/MINT .*: PENDING_PROVIDER/).waitFor();
    expect(await balances(env, usd)).toEqual({ available: 7_500n, held: 2_500n });
    const ops = page.getByRole('region', { name: 'Mints and burns of USDB' });
    await ops.getByRole('cell', { name: /^25\.0+ USDB$/ }).waitFor();

    // More than the account holds: the API's refusal is shown, nothing is created.
    await mint.getByLabel('Amount (USDB)').fill('100');
    await mint.getByRole('button', { name: 'Mint' }).click();
    await page.getByText(/INSUFFICIENT_FUNDS|does not have enough/).first().waitFor();
    expect(await env.deps.prisma.stablecoinOperation.count({ where: { stablecoinId: token.id } })).toBe(1);

    const burn = page.getByRole('form', { name: 'Burn' });
    await burn.getByLabel('Amount (USDB)').fill('5');
    await burn.getByLabel('Source').selectOption('PROVIDER_INTERNAL_BALANCE');
    await burn.getByLabel(/^Bank account paid/).fill(bank);
    await burn.getByLabel('Rail').selectOption('WIRE');
    await burn.getByRole('button', { name: 'Burn' }).click();
    await page.getByTestId('burn-result').getByText(/BURN .*: PENDING_PROVIDER/).waitFor();
    const burns = await env.deps.prisma.stablecoinOperation.findMany({ where: { stablecoinId: token.id, operationType: 'BURN' } });
    expect(burns.map((b) => [b.amount, (b.destination as { rail: string }).rail])).toEqual([[5_000_000n, 'WIRE']]);
    await page.context().close();
  });
});
