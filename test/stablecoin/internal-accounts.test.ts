import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASE, createTestEnv, type TestEnv, type TestPlatform } from '../helpers/app.js';
import { assertMatchesResponseSchema } from '../helpers/openapi.js';
import { anActiveExternalAccount, anApprovedCustomer, balances, expectLedgerConsistent, fund, usdBankAccount } from '../helpers/builders.js';
import { sparkAddress } from '../unit/external-accounts/fixtures.js';
import { reconcileOperations } from '../../src/domains/stablecoin/issuance.jobs.js';
import { operatorSetTokenStatus } from '../../src/domains/stablecoin/stablecoins.service.js';
import { operatorSetInternalAccountStatus } from '../../src/domains/ledger/index.js';
import { resourceKey } from '../../src/platform/ids.js';

/*
 * Issue 26 (26c): the internal-account variants REF reserves — a mint funded from an internal account, a mint
 * credited to one, a burn from one — move money through the ledger: held at creation, paid or credited at
 * COMPLETED, returned at FAILED. Every journal balances, balances are exact, INTERNAL_ACCOUNT.BALANCE_UPDATED.
 */

let env: TestEnv;
beforeAll(async () => {
  env = await createTestEnv({ STABLECOIN_RECONCILE_INTERVAL_MS: '50' });
  env.startWorkers();
});
afterAll(() => env.close());

const STEP_MS = 1000;
const key = () => ({ 'idempotency-key': randomUUID() });
async function post(p: TestPlatform, url: string, payload: unknown, headers: Record<string, string> = key()) {
  const res = await p.request({ method: 'POST', url, payload: payload as object, headers });
  assertMatchesResponseSchema('POST', `${BASE}${url}`, res.statusCode, res.json());
  return res;
}
const op = async (p: TestPlatform, id: string) => (await p.request({ method: 'GET', url: `/stablecoin-operations/${id}` })).json();
const balanceEvents = async (p: TestPlatform, accountId: string) =>
  (await env.deps.prisma.webhookEvent.findMany({ where: { platformId: p.platformId, type: 'INTERNAL_ACCOUNT.BALANCE_UPDATED' }, orderBy: { id: 'asc' } }))
    .map((r) => r.data as { id: string; balance: { amount: number }; totalBalance: { amount: number } })
    .filter((e) => e.id === accountId);
const journals = (p: TestPlatform, opId: string) => env.deps.prisma.ledgerJournal.findMany({ where: { platformId: p.platformId, referenceId: resourceKey(opId) }, orderBy: { kind: 'asc' } }).then((js) => js.map((j) => j.kind));

/** Walks a funded operation to its final status: the sandbox provider takes one step per STEP_MS. */
async function finish(p: TestPlatform, id: string): Promise<string> {
  for (let i = 0; i < 3; i++) {
    env.clock.advance(STEP_MS + 100);
    await reconcileOperations(env.deps);
  }
  return (await op(p, id)).status;
}

/** A platform issuing USDB (a token whose symbol is a catalog currency), ENABLED, and a customer with USD and USDB accounts. */
async function issuer(opts: { enable?: boolean } = {}) {
  const p = await env.platform();
  expect((await post(p, '/stablecoin-provider-accounts', { provider: 'BRALE', apiClientId: `client-${randomUUID().slice(0, 8)}`, apiClientSecret: 'sandbox-secret-1' })).statusCode).toBe(201);
  const token = (await post(p, '/stablecoins', { providerTokenIdentifier: 'USDB', networkTokenIdentifier: `btkn1${randomUUID().replace(/-/g, '')}`, network: 'SPARK' })).json();
  if (opts.enable !== false) {
    await operatorSetTokenStatus(env.deps, p.platformId, token.id, 'PENDING_APPROVAL');
    await operatorSetTokenStatus(env.deps, p.platformId, token.id, 'ENABLED');
  }
  const c = await anApprovedCustomer(env, p, ['USD', 'USDB']);
  return { p, token, usd: c.accounts.USD!, usdb: c.accounts.USDB! };
}

const internalMint = (from: string, to: string, amount = '25000000') => ({ amount, fundingSource: { type: 'GRID_INTERNAL_ACCOUNT', accountId: from }, destination: { accountId: to } });
const internalBurn = (from: string, bank: string, amount: string) => ({ amount, source: { type: 'GRID_INTERNAL_ACCOUNT', accountId: from }, destination: { type: 'EXTERNAL_ACCOUNT', externalAccountId: bank, rail: 'ACH_CREDIT' } });

describe('stablecoin operations with internal accounts', () => {
  it('a mint funded from a USD account into a USDB account: fiat held at creation, paid and tokens credited at COMPLETED, once', async () => {
    const { p, token, usd, usdb } = await issuer();
    await fund(p, usd, 10_000);
    const res = await post(p, `/stablecoins/${token.id}/mints`, internalMint(usd, usdb));
    expect(res.statusCode, res.body).toBe(201);
    const created = res.json();
    expect(created).toMatchObject({ status: 'PENDING_PROVIDER', source: { type: 'GRID_INTERNAL_ACCOUNT', accountId: usd }, destination: { accountId: usdb } });
    expect(created).not.toHaveProperty('fundingInstructions');
    expect(await balances(env, usd)).toEqual({ available: 7_500n, held: 2_500n });
    expect(await balances(env, usdb)).toEqual({ available: 0n, held: 0n });

    expect(await finish(p, created.id)).toBe('COMPLETED');
    expect(await balances(env, usd)).toEqual({ available: 7_500n, held: 0n });
    expect(await balances(env, usdb)).toEqual({ available: 25_000_000n, held: 0n });
    // Reconciled again (a webhook and the job racing): nothing posts twice.
    await reconcileOperations(env.deps);
    expect(await journals(p, created.id)).toEqual(['STABLECOIN_HOLD', 'STABLECOIN_MINT_CREDIT', 'STABLECOIN_SETTLE']);
    const usdEvents = await balanceEvents(p, usd);
    expect(usdEvents.map((e) => [e.balance.amount, e.totalBalance.amount])).toEqual([[10_000, 10_000], [7_500, 10_000], [7_500, 7_500]]);
    expect((await balanceEvents(p, usdb)).map((e) => e.balance.amount)).toEqual([25_000_000]);
    const account = (await p.request({ method: 'GET', url: `/internal-accounts/${usdb}` })).json();
    expect(account.balance).toMatchObject({ amount: 25_000_000, currency: { code: 'USDB' } });
    await expectLedgerConsistent(env, p.platformId);
  });

  it('a mint the internal account cannot cover is 400 INSUFFICIENT_FUNDS and nothing is written (here or at the provider)', async () => {
    const { p, token, usd, usdb } = await issuer();
    await fund(p, usd, 1_000);
    const before = { ops: await env.deps.prisma.stablecoinOperation.count(), provider: await env.deps.prisma.sandboxIssuerOperation.count(), journals: await env.deps.prisma.ledgerJournal.count({ where: { platformId: p.platformId } }) };
    const res = await post(p, `/stablecoins/${token.id}/mints`, internalMint(usd, usdb));
    expect(res.json()).toMatchObject({ status: 400, code: 'INSUFFICIENT_FUNDS' });
    expect({ ops: await env.deps.prisma.stablecoinOperation.count(), provider: await env.deps.prisma.sandboxIssuerOperation.count(), journals: await env.deps.prisma.ledgerJournal.count({ where: { platformId: p.platformId } }) }).toEqual(before);
    expect(await balances(env, usd)).toEqual({ available: 1_000n, held: 0n });
  });

  it('a mint the provider refuses at once (…902) or fails after funding (…904) returns the held fiat', async () => {
    const { p, token, usd, usdb } = await issuer();
    await fund(p, usd, 5_000);
    const rejected = await post(p, `/stablecoins/${token.id}/mints`, internalMint(usd, usdb, '9020000'));
    expect(rejected.json()).toMatchObject({ status: 'FAILED', failureReason: 'PROVIDER_REJECTED' });
    expect(await balances(env, usd)).toEqual({ available: 5_000n, held: 0n });
    const late = (await post(p, `/stablecoins/${token.id}/mints`, internalMint(usd, usdb, '9040000'))).json();
    expect(await balances(env, usd)).toEqual({ available: 4_096n, held: 904n });
    expect(await finish(p, late.id)).toBe('FAILED');
    expect(await balances(env, usd)).toEqual({ available: 5_000n, held: 0n });
    expect(await balances(env, usdb)).toEqual({ available: 0n, held: 0n });
    expect(await journals(p, late.id)).toEqual(['STABLECOIN_HOLD', 'STABLECOIN_RELEASE']);
    await expectLedgerConsistent(env, p.platformId);
  });

  it('a burn from the USDB account holds the tokens, takes them at COMPLETED, returns them when the provider fails', async () => {
    const { p, token, usd, usdb } = await issuer();
    const bank = await anActiveExternalAccount(p, usdBankAccount('123456789'));
    await fund(p, usd, 10_000);
    const minted = (await post(p, `/stablecoins/${token.id}/mints`, internalMint(usd, usdb, '30000000'))).json();
    expect(await finish(p, minted.id)).toBe('COMPLETED');

    const burn = await post(p, `/stablecoins/${token.id}/burns`, internalBurn(usdb, bank, '10000000'));
    expect(burn.statusCode, burn.body).toBe(201);
    expect(burn.json()).toMatchObject({ operationType: 'BURN', status: 'PENDING_PROVIDER', source: { type: 'GRID_INTERNAL_ACCOUNT', accountId: usdb }, destination: { accountId: bank, rail: 'ACH_CREDIT' } });
    expect(await balances(env, usdb)).toEqual({ available: 20_000_000n, held: 10_000_000n });
    expect(await finish(p, burn.json().id)).toBe('COMPLETED');
    expect(await balances(env, usdb)).toEqual({ available: 20_000_000n, held: 0n });

    const failing = (await post(p, `/stablecoins/${token.id}/burns`, internalBurn(usdb, bank, '9040000'))).json();
    expect(await balances(env, usdb)).toEqual({ available: 10_960_000n, held: 9_040_000n });
    expect(await finish(p, failing.id)).toBe('FAILED');
    expect(await balances(env, usdb)).toEqual({ available: 20_000_000n, held: 0n });

    expect((await post(p, `/stablecoins/${token.id}/burns`, internalBurn(usdb, bank, '30000000'))).json()).toMatchObject({ status: 400, code: 'INSUFFICIENT_FUNDS' });
    expect((await balanceEvents(p, usdb)).map((e) => e.balance.amount)).toEqual([30_000_000, 20_000_000, 20_000_000, 10_960_000, 20_000_000]);
    await expectLedgerConsistent(env, p.platformId);
  });

  it('PROVIDER_INTERNAL_BALANCE funding needs no funding step and moves nothing in the ledger', async () => {
    const { p, token } = await issuer();
    const wallet = await anActiveExternalAccount(p, { currency: 'BTC', accountInfo: { accountType: 'SPARK_WALLET', address: sparkAddress } });
    const res = await post(p, `/stablecoins/${token.id}/mints`, { amount: '1000000', fundingSource: { type: 'PROVIDER_INTERNAL_BALANCE', sourceTokenIdentifier: 'USDC', cryptoNetwork: 'SOLANA' }, destination: { accountId: wallet } });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toMatchObject({ status: 'PENDING_PROVIDER', source: { type: 'PROVIDER_INTERNAL_BALANCE', sourceTokenIdentifier: 'USDC', cryptoNetwork: 'SOLANA' }, destination: { accountId: wallet } });
    expect(await finish(p, res.json().id)).toBe('COMPLETED');
    expect(await journals(p, res.json().id)).toEqual([]);
  });

  it('refuses internal variants precisely: token not ENABLED 409, wrong currency or kind 400, frozen 400, another platform 404; nothing written', async () => {
    const { p, token, usd, usdb } = await issuer({ enable: false });
    await fund(p, usd, 10_000);
    const count = () => env.deps.prisma.stablecoinOperation.count({ where: { platformId: p.platformId } });
    expect((await post(p, `/stablecoins/${token.id}/mints`, internalMint(usd, usdb))).json()).toMatchObject({ status: 409, code: 'CONFLICT' });
    await operatorSetTokenStatus(env.deps, p.platformId, token.id, 'PENDING_APPROVAL');
    await operatorSetTokenStatus(env.deps, p.platformId, token.id, 'ENABLED');
    expect((await post(p, `/stablecoins/${token.id}/mints`, internalMint(usd, usd))).json()).toMatchObject({ status: 400, code: 'INVALID_INPUT', details: { errors: [{ field: 'destination.accountId' }] } });
    expect((await post(p, `/stablecoins/${token.id}/mints`, internalMint(usdb, usdb))).json()).toMatchObject({ status: 400, code: 'INVALID_INPUT', details: { errors: [{ field: 'fundingSource.accountId' }] } });
    expect((await post(p, `/stablecoins/${token.id}/mints`, internalMint('ExternalAccount:x', usdb))).json()).toMatchObject({ status: 400, details: { errors: [{ field: 'fundingSource.accountId' }] } });
    const other = await issuer();
    expect((await post(p, `/stablecoins/${token.id}/mints`, internalMint(other.usd, usdb))).json()).toMatchObject({ status: 404, code: 'NOT_FOUND' });
    await operatorSetInternalAccountStatus(env.deps, usdb, 'FROZEN');
    expect((await post(p, `/stablecoins/${token.id}/mints`, internalMint(usd, usdb))).json()).toMatchObject({ status: 400, details: { errors: [{ field: 'destination.accountId' }] } });
    expect(await count()).toBe(0);
    expect(await balances(env, usd)).toEqual({ available: 10_000n, held: 0n });
  });
});
