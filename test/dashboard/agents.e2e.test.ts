import { beforeAll, describe, expect, it } from 'vitest';
import { HAS_CHROMIUM, useDashboard } from '../helpers/dashboard-build.js';
import type { Browser, Page } from 'playwright-core';
import { BASE, eventually, type TestEnv, type TestPlatform } from '../helpers/app.js';
import { anActiveExternalAccount, anApprovedCustomer, balances, fund, usdBankAccount } from '../helpers/builders.js';

// The dashboard's Agents page (issue 26) in headless Chromium against a real server, as dashboard.e2e.test.ts does:
// API and worker on a random port, real Postgres and Redis. Waits are for states and selectors, never for durations.
const dash = useDashboard({ overrides: { SANDBOX_RAIL_DELAY_SCALE: '0.01', SANDBOX_RETURN_AFTER_MS: '1500', PAYMENT_POLL_MIN_MS: '20' }, workers: true });
let env: TestEnv;
let p: TestPlatform;
let browser: Browser | undefined;

beforeAll(() => {
  ({ env, p, browser } = dash);
});

const newPage = dash.newPage;

const signIn = dash.signInWithKeyboard;

const go = dash.go;


describe.skipIf(!HAS_CHROMIUM)('the Agents page in a browser', { timeout: 120_000 }, () => {
  it('lists pending actions; Approve moves the money once, Reject moves nothing; the agent page shows policy and usage', async () => {
    const c = await anApprovedCustomer(env, p, ['USD']);
    await fund(p, c.accounts.USD!, 100_000);
    const dest = await anActiveExternalAccount(p, usdBankAccount('123456789'), c.customerId);
    const policy = { permissions: ['CREATE_QUOTES', 'EXECUTE_QUOTES'], defaultExecutionMode: 'APPROVAL_REQUIRED', spendingLimits: { currency: 'USD', perTransactionLimit: 50_000, dailyLimit: 100_000 } };
    const created = (await p.request({ method: 'POST', url: '/agents', payload: { customerId: c.customerId, name: 'Rent bot', policy } })).json();
    const token = (await env.app.inject({ method: 'POST', url: `${BASE}/agents/device-codes/${created.deviceCode.code}/redeem` })).json().accessToken;
    const asAgent = (method: 'GET' | 'POST', url: string, payload?: object) => env.app.inject({ method, url: `${BASE}${url}`, payload, headers: { authorization: `Bearer ${token}` } });
    const submit = async (amount: number) => {
      const q = (await asAgent('POST', '/agents/me/quotes', { source: { sourceType: 'ACCOUNT', accountId: c.accounts.USD }, destination: { destinationType: 'ACCOUNT', accountId: dest }, lockedCurrencySide: 'SENDING', lockedCurrencyAmount: amount })).json();
      return { quote: q, action: (await asAgent('POST', `/agents/me/quotes/${q.id}/execute`)).json() };
    };
    const first = await submit(12_000);
    const second = await submit(7_000);
    expect([first.action.status, second.action.status]).toEqual(['PENDING_APPROVAL', 'PENDING_APPROVAL']);

    const page = await newPage();
    page.on('dialog', (d) => void d.accept('Over budget'));
    await signIn(page, p.clientId, p.clientSecret);
    await go(page, '#/agents', 'Agents');
    const pending = page.getByTestId('pending-actions');
    await pending.locator(`tr[data-id="${first.action.id}"]`).waitFor();
    await pending.locator(`tr[data-id="${second.action.id}"]`).waitFor();
    await page.getByTestId('agents').locator(`tr[data-id="${created.id}"]`).getByText('Rent bot').waitFor();

    await page.getByRole('button', { name: `Approve ${first.action.id}` }).click();
    await page.getByTestId('action-result').getByText(`${first.action.id} is APPROVED`).waitFor();
    await pending.locator(`tr[data-id="${first.action.id}"]`).waitFor({ state: 'detached' });
    await eventually(async () => (await p.request({ method: 'GET', url: `/transactions/${first.quote.transactionId}` })).json().status === 'COMPLETED');
    expect(await balances(env, c.accounts.USD!)).toEqual({ available: 88_000n, held: 0n });

    await page.getByRole('button', { name: `Reject ${second.action.id}` }).click();
    await page.getByTestId('action-result').getByText(`${second.action.id} is REJECTED`).waitFor();
    const rejected = (await asAgent('GET', `/agents/me/actions/${second.action.id}`)).json();
    expect(rejected).toMatchObject({ status: 'REJECTED', rejectionReason: 'Over budget' });
    expect(await balances(env, c.accounts.USD!)).toEqual({ available: 88_000n, held: 0n });
    await page.getByText('No action waits for approval.').waitFor();

    await page.getByRole('link', { name: 'Rent bot' }).click();
    await page.getByRole('heading', { name: 'Rent bot', level: 1 }).waitFor();
    const policyBox = page.getByRole('region', { name: 'Policy' });
    await policyBox.getByText('APPROVAL_REQUIRED').waitFor();
    await policyBox.getByText('CREATE_QUOTES, EXECUTE_QUOTES').waitFor();
    await page.getByRole('region', { name: 'Usage' }).locator('dd', { hasText: /^1$/ }).waitFor();
    await page.getByRole('button', { name: 'Pause' }).click();
    await page.getByRole('button', { name: 'Resume' }).waitFor();
    expect((await p.request({ method: 'GET', url: `/agents/${created.id}` })).json().isPaused).toBe(true);
    await page.context().close();
  });
});
