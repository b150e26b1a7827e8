import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HAS_CHROMIUM, WAIT, useDashboard } from '../helpers/dashboard-build.js';
import type { Browser, Page } from 'playwright-core';
import { BASE, eventually, type TestEnv, type TestPlatform } from '../helpers/app.js';
import { Receiver } from '../helpers/receiver.js';
import { anApprovedCustomer, balances, fund } from '../helpers/builders.js';
import { anIndividual, createCustomer } from '../customers/helpers.js';

// The dashboard (issue 15) in headless Chromium against a real server: API and worker on a random
// port, real Postgres and Redis. Waits are for states and selectors, never for durations.
const dash = useDashboard({ overrides: { SANDBOX_RAIL_DELAY_SCALE: '0.01', SANDBOX_RETURN_AFTER_MS: '1500', PAYMENT_POLL_MIN_MS: '20' }, workers: true });
let env: TestEnv;
let p: TestPlatform;
let receiver: Receiver;
let browser: Browser | undefined;
let origin: string;

beforeAll(async () => {
  ({ env, p, browser, origin } = dash);
  receiver = await new Receiver().start();
});
afterAll(async () => {
  await receiver?.stop();
});

const newPage = dash.newPage;

const signIn = dash.signInWithKeyboard;

const go = dash.go;

const statusBadge = (page: Page, status: string) => page.locator(`.status-line .badge[data-status="${status}"]`);

describe.skipIf(!HAS_CHROMIUM)('dashboard in a browser', { timeout: 120_000 }, () => {
  it('a signed-out visit gets the sign-in page; the secret stays out of storage and URLs; sign-out forgets it', async () => {
    const page = await newPage();
    await page.goto(`${origin}/dashboard#/payments`);
    await page.getByRole('heading', { name: 'Sign in to the dashboard' }).waitFor();
    expect(await page.getByRole('navigation', { name: 'Main' }).count()).toBe(0);
    const res = await page.request.get(`${origin}/dashboard`);
    expect(res.headers()['content-security-policy']).toContain("default-src 'self'");

    // A wrong secret is refused without a browser password prompt.
    await page.getByLabel('Client id').fill(p.clientId);
    await page.getByLabel('Client secret').fill('sec_wrong');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').filter({ hasText: 'wrong' }).waitFor();

    await signIn(page, p.clientId, p.clientSecret);
    await expect(page.getByTestId('permissions').textContent()).resolves.toContain('MANAGE');
    const stored = await page.evaluate<string>('JSON.stringify({ l: { ...localStorage }, s: { ...sessionStorage }, c: document.cookie, u: location.href })');
    expect(stored).not.toContain(p.clientSecret);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in to the dashboard' }).waitFor();
    await page.getByText('You signed out.').waitFor();
    // A reload never comes back signed in.
    await page.reload();
    await page.getByRole('heading', { name: 'Sign in to the dashboard' }).waitFor();
    await page.context().close();
  });

  it('signs out after 15 minutes without input (page clock moved forward, no waiting)', async () => {
    const page = await newPage();
    await page.clock.install();
    await signIn(page, p.clientId, p.clientSecret);
    await page.clock.fastForward('14:00');
    await page.keyboard.press('Shift'); // input restarts the idle clock
    await page.clock.fastForward('14:00');
    expect(await page.getByRole('heading', { name: 'Overview' }).count()).toBe(1);
    await page.clock.fastForward('02:00');
    await page.getByText('Signed out after 15 minutes without activity.').waitFor();
    await page.getByRole('heading', { name: 'Sign in to the dashboard' }).waitFor();
    await page.context().close();
  });

  it('finds a customer by name and opens its page', async () => {
    const c = await createCustomer(p, anIndividual({ fullName: 'Grace Hopper', email: 'grace@navy.example', platformCustomerId: 'user-grace' }));
    await createCustomer(p, anIndividual({ fullName: 'Alan Turing', platformCustomerId: 'user-alan' }));
    const page = await newPage();
    await signIn(page, p.clientId, p.clientSecret);
    await go(page, '#/customers', 'Customers');
    await page.getByRole('searchbox', { name: 'Search' }).fill('hopper');
    await page.keyboard.press('Enter');
    // The list answering this search (not the unfiltered one shown before it).
    const results = page.locator('[data-testid=customers][data-query*="hopper"]');
    await results.waitFor();
    expect(await results.locator('tbody tr').count()).toBe(1);
    await page.getByRole('link', { name: 'Grace Hopper' }).click();
    await page.getByRole('heading', { name: 'Grace Hopper', level: 1 }).waitFor();
    await page.getByText(c.id).first().waitFor();
    await page.getByRole('region', { name: 'Internal accounts' }).getByText('0.00 USD').first().waitFor();
    await page.context().close();
  });

  it('follows a payment from PENDING to COMPLETED, and sees a failed payment refunded', async () => {
    const c = await anApprovedCustomer(env, p, ['USD']);
    await fund(p, c.accounts.USD!, 500_000);
    const page = await newPage();
    await signIn(page, p.clientId, p.clientSecret);

    // A platform fee on ACH, set in the configuration page: 0.50 USD + 30 bps.
    await go(page, '#/configuration', 'Configuration');
    const feeForm = page.getByRole('form', { name: 'Set a platform fee' });
    await feeForm.getByLabel('Variable (bps)').fill('30');
    await feeForm.getByLabel('Fixed (USD)').fill('0.50');
    await feeForm.getByRole('button', { name: 'Save fee' }).click();
    const feeRow = page.locator('[data-testid=fee-configs] tr', { hasText: 'ACH · OUT · SVC' });
    await feeRow.getByText('0.30%').waitFor();
    await feeRow.getByText('0.50 USD').waitFor();

    await go(page, '#/sandbox', 'Sandbox tools');
    await page.locator('select[name=source]').selectOption(c.accounts.USD!);
    await page.locator('select[name=outcome]').selectOption('000');
    await page.locator('input[name=magicAmount]').fill('25.50');
    await page.getByRole('button', { name: 'Create payment' }).click();
    await page.getByRole('heading', { name: /^Payment / }).waitFor();
    await statusBadge(page, 'PENDING').waitFor();
    await page.getByRole('region', { name: 'Amounts' }).getByText('25.50 USD').first().waitFor();
    await page.getByRole('region', { name: 'Quote' }).getByText('PENDING').waitFor();
    // base = 2550 - 50 (platform fixed) - 25 (service ACH) = 2475; 30 bps of it = 7.425 → 7; platform fee 57.
    await page.getByRole('region', { name: 'Amounts' }).locator('div', { hasText: 'Platform fee' }).getByText('0.57 USD').waitFor();
    await page.getByRole('button', { name: 'Execute payment' }).click();
    await statusBadge(page, 'COMPLETED').waitFor();
    await page.getByTestId('timeline').getByText('OUTGOING_PAYMENT.COMPLETED').waitFor();
    await page.getByRole('region', { name: 'Webhook events' }).getByRole('link', { name: 'OUTGOING_PAYMENT.COMPLETED' }).waitFor();
    expect(await page.getByRole('region', { name: 'Refund' }).getByText('No refund.').count()).toBe(1);

    await go(page, '#/sandbox', 'Sandbox tools');
    await page.locator('select[name=source]').selectOption(c.accounts.USD!);
    await page.locator('select[name=outcome]').selectOption('002');
    await page.getByRole('button', { name: 'Create payment' }).click();
    await statusBadge(page, 'PENDING').waitFor();
    await page.getByRole('button', { name: 'Execute payment' }).click();
    await statusBadge(page, 'FAILED').waitFor();
    const refund = page.getByTestId('refund');
    await refund.locator('.badge[data-status="COMPLETED"], .badge[data-status="SUCCEEDED"]').waitFor();
    // Balance is whole again but for the completed payment.
    expect((await balances(env, c.accounts.USD!)).available).toBe(500_000n - 2_550n);

    // The payments list shows both, and filters by status.
    await go(page, '#/payments?status=FAILED', 'Payments');
    const failedList = page.locator('[data-query*="FAILED"] [data-testid=payments]');
    await failedList.locator('tbody tr').first().waitFor();
    const failedRows = await failedList.locator('tbody tr .badge').allTextContents();
    expect(failedRows.every((s) => s === 'FAILED')).toBe(true);
    await page.context().close();
  });

  it('configures the webhook endpoint, then redelivers an event and sees the new attempt', async () => {
    const page = await newPage();
    await signIn(page, p.clientId, p.clientSecret);
    await go(page, '#/configuration', 'Configuration');
    await page.getByLabel('Endpoint URL').fill(receiver.url);
    await page.getByRole('button', { name: 'Save endpoint' }).click();
    await page.getByText('Endpoint saved').waitFor();
    const test = await eventually(async () => {
      const list = (await p.request({ method: 'GET', url: '/webhook-events?type=TEST' })).json().data;
      return list.find((e: any) => e.attempts.length === 1 && e.attempts[0].httpStatus === 200);
    }, WAIT);

    await go(page, '#/webhooks', 'Webhooks');
    await page.getByText(receiver.url).first().waitFor();
    await page.locator(`[data-testid=webhook-events] tr[data-id="${test.id}"] a`).click();
    const details = page.getByTestId('event-details');
    await details.locator('[data-testid=attempts] tbody tr').first().waitFor();
    expect(await details.locator('[data-testid=attempts] tbody tr').count()).toBe(1);
    await details.getByRole('button', { name: 'Redeliver' }).click();
    await details.getByText('Queued for delivery').waitFor();
    await eventually(async () => {
      if ((await details.locator('[data-testid=attempts] tbody tr').count()) === 2) return true;
      await details.getByRole('button', { name: 'Refresh' }).click();
      return false;
    }, WAIT, 250);
    await details.locator('[data-testid=attempts] tbody tr').nth(1).getByText('200').waitFor();
    await page.context().close();
  });

  it('funds an internal account in the sandbox', async () => {
    const c = await anApprovedCustomer(env, p, ['USD']);
    const page = await newPage();
    await signIn(page, p.clientId, p.clientSecret);
    await go(page, '#/sandbox', 'Sandbox tools');
    await page.locator('select[name=fundAccount]').selectOption(c.accounts.USD!);
    await page.locator('input[name=fundAmount]').fill('1,234.56');
    await page.getByRole('button', { name: 'Fund', exact: true }).click();
    await page.getByTestId('fund-result').getByText('1,234.56 USD').waitFor();
    expect((await balances(env, c.accounts.USD!)).available).toBe(123_456n);
    // Too many decimals is refused before any call.
    await page.locator('input[name=fundAmount]').fill('1.234');
    await page.getByRole('button', { name: 'Fund', exact: true }).click();
    await page.getByRole('alert').getByText('At most 2 decimals').waitFor();
    expect((await balances(env, c.accounts.USD!)).available).toBe(123_456n);
    await page.context().close();
  });

  // Issue 27: a card's transactions with their holds, clearings and refunds.
  it("shows a card's transactions: what is held, cleared and refunded, and each one's timeline", async () => {
    const c = await anApprovedCustomer(env, p, ['USD']);
    await fund(p, c.accounts.USD!, 100_000);
    const created = await p.request({ method: 'POST', url: '/cards', payload: { cardholderId: c.customerId, form: 'VIRTUAL', fundingSources: [c.accounts.USD!], platformCardId: `dash-${Date.now()}-321` } });
    expect(created.statusCode, created.body).toBe(201);
    const card = created.json();
    const simulate = async (kind: string, payload: object) => {
      const res = await p.request({ method: 'POST', url: `/sandbox/cards/${card.id}/simulate/${kind}`, payload });
      expect(res.statusCode, res.body).toBe(202);
    };
    const txOf = async (descriptor: string) => (await p.request({ method: 'GET', url: `/transactions?cardId=${card.id}&limit=100` })).json().data.find((t: any) => t.merchant.descriptor === descriptor);
    await simulate('authorization', { amount: 1_000, currency: { code: 'USD' }, merchant: { descriptor: 'PARTLY CLEARED' } });
    await simulate('clearing', { cardTransactionId: (await txOf('PARTLY CLEARED')).id, amount: 600 });
    await simulate('authorization', { amount: 2_000, currency: { code: 'USD' }, merchant: { descriptor: 'REFUNDED IN PART' } });
    const refunded = (await txOf('REFUNDED IN PART')).id;
    await simulate('clearing', { cardTransactionId: refunded, amount: 2_000 });
    await simulate('return', { cardTransactionId: refunded, amount: 500 });

    const page = await newPage();
    await signIn(page, p.clientId, p.clientSecret);
    await go(page, '#/cards', 'Cards');
    await page.getByRole('link', { name: /···· 4321/ }).click();
    await page.getByRole('heading', { name: /···· 4321/, level: 1 }).waitFor();
    const rows = page.getByTestId('card-transactions');
    const partly = rows.locator('tr', { hasText: 'PARTLY CLEARED' });
    await partly.getByTestId('held').getByText('4.00 USD').waitFor();
    await partly.getByText('6.00 USD').waitFor();
    const part = rows.locator('tr', { hasText: 'REFUNDED IN PART' });
    await part.getByTestId('held').getByText('0.00 USD').waitFor();
    await part.getByText('20.00 USD').first().waitFor();
    await part.getByText('5.00 USD').waitFor();
    await part.getByRole('button', { name: 'REFUNDED IN PART' }).click();
    const timeline = page.getByTestId('card-timeline');
    await timeline.locator('.badge[data-status="AUTHORIZED"]').waitFor();
    await timeline.locator('.badge[data-status="SETTLED"]').waitFor();
    expect(await balances(env, c.accounts.USD!)).toEqual({ available: 100_000n - 1_000n - 2_000n + 500n, held: 400n });
    // The unfiltered payments list holds the card transactions too, linking to their card.
    await go(page, '#/payments', 'Payments');
    await page.getByTestId('payments').getByRole('link', { name: 'card · PARTLY CLEARED' }).click();
    await page.getByRole('heading', { name: /···· 4321/, level: 1 }).waitFor();
    await page.context().close();
  });

  it('a VIEW token sees but cannot move money: actions hidden and the API refuses', async () => {
    const c = await anApprovedCustomer(env, p, ['USD']);
    await fund(p, c.accounts.USD!, 10_000);
    const view = (await p.request({ method: 'POST', url: '/tokens', payload: { name: 'Support (read only)', permissions: ['VIEW'] } })).json();
    // A PENDING payment the viewer could otherwise execute.
    const ext = (await p.request({ method: 'GET', url: '/platform/external-accounts' })).json().data.find((a: any) => a.status === 'ACTIVE');
    const q = (await p.request({ method: 'POST', url: '/quotes', payload: { source: { sourceType: 'ACCOUNT', accountId: c.accounts.USD }, destination: { destinationType: 'ACCOUNT', accountId: ext.id }, lockedCurrencySide: 'SENDING', lockedCurrencyAmount: 1_000 } })).json();

    const page = await newPage();
    await signIn(page, view.clientId, view.clientSecret);
    expect((await page.getByTestId('permissions').textContent())?.trim()).toBe('VIEW');
    await go(page, `#/payments/${q.transactionId}`, /^Payment /);
    await statusBadge(page, 'PENDING').waitFor();
    await page.getByRole('region', { name: 'Quote' }).getByText('PENDING').waitFor();
    expect(await page.getByRole('button', { name: 'Execute payment' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Cancel payment' }).count()).toBe(0);
    await go(page, '#/sandbox', 'Sandbox tools');
    await page.getByText('need the TRANSACT permission').waitFor();
    expect(await page.getByRole('button', { name: 'Fund', exact: true }).count()).toBe(0);
    await go(page, '#/configuration', 'Configuration');
    expect(await page.getByRole('button', { name: 'Save endpoint' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Save fee' }).count()).toBe(0);

    // The same credentials from the page, straight to the API: refused.
    const status = await page.evaluate(
      async ({ base, quoteId, id, secret }) => {
        const r = await fetch(`${base}/quotes/${quoteId}/execute`, { method: 'POST', headers: { authorization: `Basic ${btoa(`${id}:${secret}`)}` } });
        return r.status;
      },
      { base: BASE, quoteId: q.id, id: view.clientId, secret: view.clientSecret },
    );
    expect(status).toBe(403);
    const t = (await p.request({ method: 'GET', url: `/transactions/${q.transactionId}` })).json();
    expect(t.status).toBe('PENDING');
    await page.context().close();
  });

  it('creates an API token (secret shown once) that signs in, then deletes it', async () => {
    const page = await newPage();
    page.on('dialog', (d) => void d.accept());
    await signIn(page, p.clientId, p.clientSecret);
    await go(page, '#/configuration', 'Configuration');
    await page.locator('input[name=tokenName]').fill('Finance team');
    await page.getByRole('checkbox', { name: 'TRANSACT' }).check();
    await page.getByRole('button', { name: 'Create token' }).click();
    const shown = page.getByTestId('new-token');
    await shown.waitFor();
    const [clientId, secret] = await shown.locator('code').allTextContents();
    expect(clientId).toMatch(/^cli_/);
    expect(secret).toMatch(/^sec_/);
    await page.locator('[data-testid=tokens] tr', { hasText: 'Finance team' }).waitFor();
    const other = await newPage();
    await signIn(other, clientId!, secret!);
    expect((await other.getByTestId('permissions').textContent())?.trim()).toBe('VIEWTRANSACT');
    await other.context().close();
    await page.getByRole('button', { name: 'I stored it — hide' }).click();
    expect(await page.getByTestId('new-token').count()).toBe(0);
    await page.getByRole('button', { name: 'Delete Finance team' }).click();
    await page.locator('[data-testid=tokens] tr', { hasText: 'Finance team' }).waitFor({ state: 'detached' });
    const res = await env.app.inject({ method: 'GET', url: `${BASE}/config`, headers: { authorization: `Basic ${Buffer.from(`${clientId}:${secret}`).toString('base64')}` } });
    expect(res.statusCode).toBe(401);
    await page.context().close();
  });

  it('a deleted token is signed out on its next call', async () => {
    const tok = (await p.request({ method: 'POST', url: '/tokens', payload: { name: 'Temp', permissions: ['VIEW'] } })).json();
    const page = await newPage();
    await signIn(page, tok.clientId, tok.clientSecret);
    expect((await p.request({ method: 'DELETE', url: `/tokens/${tok.id}` })).statusCode).toBe(204);
    await go(page, '#/customers', 'Customers').catch(() => undefined);
    await page.getByRole('heading', { name: 'Sign in to the dashboard' }).waitFor();
    await page.getByText('refused the credentials').waitFor();
    await page.context().close();
  });

  it('works at phone width: the menu opens, nothing overflows sideways', async () => {
    const page = await newPage({ width: 390, height: 844 });
    await signIn(page, p.clientId, p.clientSecret);
    expect(await page.getByRole('link', { name: 'Payments' }).isVisible()).toBe(false);
    await page.getByRole('button', { name: 'Menu' }).click();
    await page.getByRole('link', { name: 'Payments' }).click();
    await page.getByRole('heading', { name: 'Payments', level: 1 }).waitFor();
    const overflow = await page.evaluate<number>('document.documentElement.scrollWidth - window.innerWidth');
    expect(overflow).toBeLessThanOrEqual(0);
    if (process.env.DASHBOARD_SCREENSHOT_PHONE) await page.screenshot({ path: process.env.DASHBOARD_SCREENSHOT_PHONE, fullPage: false });
    await page.context().close();
  });

  it('shows the overview with balances, payments today, success rate and the volume chart', async () => {
    const page = await newPage();
    await signIn(page, p.clientId, p.clientSecret);
    await page.getByTestId('balances').locator('tr[data-currency="USD"]').waitFor();
    await page.getByTestId('today-by-status').getByText('COMPLETED').waitFor();
    expect(await page.getByTestId('success-rate').textContent()).toMatch(/^\d+\.\d%$/);
    await page.getByTestId('fee-revenue').getByText('0.57 USD').waitFor();
    await page.locator('.chart svg rect.bar[data-value]').first().waitFor();
    if (process.env.DASHBOARD_SCREENSHOT) await page.screenshot({ path: process.env.DASHBOARD_SCREENSHOT, fullPage: false });
    await page.context().close();
  });
});
