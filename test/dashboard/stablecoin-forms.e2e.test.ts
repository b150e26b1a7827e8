import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { HAS_CHROMIUM, useDashboard } from '../helpers/dashboard-build.js';
import { type TestEnv, type TestPlatform } from '../helpers/app.js';
import { anApprovedCustomer } from '../helpers/builders.js';
import { operatorSetTokenStatus } from '../../src/domains/stablecoin/stablecoins.service.js';
import { anActiveExternalAccount, balances, fund, usdBankAccount } from '../helpers/builders.js';

// Issue 26 (26c) in headless Chromium: a token's mint and burn forms against a real server — an
// internal-account mint (the USD account held, the operation listed), a burn, and a refusal shown. Waits are
// for selectors, never for durations.
const dash = useDashboard({ workers: true });
let env: TestEnv;
let p: TestPlatform;

beforeAll(async () => {
  ({ env, p } = dash);
});

const signedIn = () => dash.signedIn();

const go = dash.go;

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
