import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { HAS_CHROMIUM, useDashboard } from '../helpers/dashboard-build.js';
import { type TestEnv, type TestPlatform } from '../helpers/app.js';
import { anApprovedCustomer } from '../helpers/builders.js';
import { operatorSetInternalAccountStatus } from '../../src/domains/ledger/index.js';
import { sweepCoordinates } from '../../src/domains/collection/coordinates.service.js';

// Issue 26 (26a) in headless Chromium: an internal account's pay-in coordinates and held credits, the
// platform's held pay-ins, and the stablecoins page, against a real server. Waits are for selectors.
const dash = useDashboard({ overrides: { COLLECTION_PROVIDER: 'sandbox' } });
let env: TestEnv;
let p: TestPlatform;

beforeAll(async () => {
  ({ env, p } = dash);
});

const signedIn = () => dash.signedIn();

const go = dash.go;

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
