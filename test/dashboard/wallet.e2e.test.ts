import { beforeAll, describe, expect, it } from 'vitest';
import { HAS_CHROMIUM, useDashboard } from '../helpers/dashboard-build.js';
import { type TestEnv, type TestPlatform } from '../helpers/app.js';
import { aWalletCustomer, otpLogin } from '../wallet/helpers.js';

// The dashboard's embedded-wallet page (issue 28, anchor 28b) in headless Chromium against a real server:
// a customer's wallet, credentials, sessions (revoked from the page) and delegated keys. Waits are for
// selectors and states, never for durations.
const dash = useDashboard({ platformName: 'Wallet Co' });
let env: TestEnv;
let p: TestPlatform;
let origin: string;

beforeAll(async () => {
  ({ env, p, origin } = dash);
  expect((await p.request({ method: 'PATCH', url: '/config', payload: { embeddedWalletConfig: { appName: 'Wallet Co' } } })).statusCode).toBe(200);
});

describe.skipIf(!HAS_CHROMIUM)('dashboard: a customer\'s embedded wallet', { timeout: 120_000 }, () => {
  it('opens the wallet from the customer page, lists credentials and sessions, and revokes a session', async () => {
    const w = await aWalletCustomer(env, p);
    const credentialId = (await p.request({ method: 'GET', url: `/auth/credentials?accountId=${w.accountId}` })).json().data[0].id;
    const login = await otpLogin(p, credentialId);
    const sessionId = login.second!.json().id as string;

    const page = await dash.newPage();
    page.on('dialog', (d) => void d.accept());
    await page.goto(`${origin}/dashboard`);
    await page.getByRole('heading', { name: 'Sign in to the dashboard' }).waitFor();
    await page.keyboard.type(p.clientId);
    await page.keyboard.press('Tab');
    await page.keyboard.type(p.clientSecret);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    await page.evaluate(`window.location.hash = ${JSON.stringify(`#/customers/${w.customerId}`)}`);
    await page.getByRole('link', { name: /embedded wallet/ }).click();
    await page.getByRole('heading', { name: /Embedded wallet/, level: 1 }).waitFor();
    await page.getByRole('region', { name: 'Credentials' }).getByText(w.email).waitFor();
    await page.getByRole('region', { name: 'Delegated keys' }).getByText('No delegated keys.').waitFor();
    await page.getByRole('button', { name: `Revoke session ${sessionId}` }).click();
    await page.getByRole('button', { name: `Revoke session ${sessionId}` }).waitFor({ state: 'detached' });
    expect((await env.deps.prisma.authSession.findFirstOrThrow({ where: { id: sessionId } })).revokedAt).not.toBeNull();
    const sessions = await p.request({ method: 'GET', url: `/auth/sessions?accountId=${w.accountId}` });
    expect(sessions.json().data.map((s: { id: string }) => s.id)).not.toContain(sessionId);
    await page.context().close();
  });
});
