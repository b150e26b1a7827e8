import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASE, createTestEnv, type TestEnv, type TestPlatform } from '../helpers/app.js';
import { assertMatchesResponseSchema } from '../helpers/openapi.js';
import { anActiveExternalAccount, usdBankAccount } from '../helpers/builders.js';
import { sparkAddress } from '../unit/external-accounts/fixtures.js';
import { expireOperations, reconcileOperations, reverifyCredentials } from '../../src/domains/stablecoin/issuance.jobs.js';
import { operatorSetTokenStatus } from '../../src/domains/stablecoin/stablecoins.service.js';
import { runCli } from '../helpers/cli.js';
import { resourceKey } from '../../src/platform/ids.js';

let env: TestEnv;
beforeAll(async () => {
  // Reconciliation asks again 50 ms after each answer: tests move the clock by sandbox steps and sweep.
  env = await createTestEnv({ STABLECOIN_RECONCILE_INTERVAL_MS: '50', SANDBOX_RAIL_DELAY_SCALE: String(RAIL_DELAY_SCALE) });
  env.startWorkers();
});
afterAll(() => env.close());

const key = () => ({ 'idempotency-key': randomUUID() });
/** Every answer of these tests, success or error, is checked against openapi.yaml. */
async function documented(method: string, url: string, res: Awaited<ReturnType<TestPlatform['request']>>) {
  assertMatchesResponseSchema(method, `${BASE}${url.split('?')[0]}`, res.statusCode, res.json());
  return res;
}
const post = async (p: TestPlatform, url: string, payload: unknown, headers: Record<string, string> = key()) => documented('POST', url, await p.request({ method: 'POST', url, payload: payload as object, headers }));
const get = async (p: TestPlatform, url: string) => documented('GET', url, await p.request({ method: 'GET', url }));
const clientId = () => `client-${randomUUID().slice(0, 8)}`;
// The sandbox issuer's step (SANDBOX_RAIL_DELAY_SCALE × 1 s), long beside the real time a test takes: the test clock is
// the real time plus what the test advances, so with a 1 s step a slow machine's own seconds moved an operation two
// steps at once (PROCESSING skipped: seen in CI).
const RAIL_DELAY_SCALE = 600;
const STEP_MS = RAIL_DELAY_SCALE * 1000;

async function link(p: TestPlatform, body: Record<string, unknown> = {}) {
  const res = await post(p, '/stablecoin-provider-accounts', { provider: 'BRALE', apiClientId: clientId(), apiClientSecret: 'sandbox-secret-1', ...body });
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
}

async function register(p: TestPlatform, symbol = 'ACME', extra: Record<string, unknown> = {}) {
  const res = await post(p, '/stablecoins', { providerTokenIdentifier: symbol, networkTokenIdentifier: `btkn1${randomUUID().replace(/-/g, '')}`, network: 'SPARK', ...extra });
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
}

/** A platform with a linked account, a registered token, an ACTIVE Spark wallet and an ACTIVE USD bank account. */
async function issuer() {
  const p = await env.platform();
  const account = await link(p);
  const token = await register(p);
  const wallet = await anActiveExternalAccount(p, { currency: 'BTC', accountInfo: { accountType: 'SPARK_WALLET', address: sparkAddress } });
  const bank = await anActiveExternalAccount(p, usdBankAccount('123456789'));
  return { p, account, token, wallet, bank };
}

const wireMint = (wallet: string, amount = '25000000') => ({ amount, fundingSource: { type: 'WIRE' }, destination: { accountId: wallet }, description: 'Initial program funding' });
const counts = async () => ({
  links: await env.deps.prisma.stablecoinProviderAccount.count(),
  tokens: await env.deps.prisma.stablecoin.count(),
  ops: await env.deps.prisma.stablecoinOperation.count(),
});

describe('stablecoin provider accounts', () => {
  it('links verified credentials: 201 ACTIVE, the secret sealed at rest and never returned', async () => {
    const p = await env.platform();
    const res = await post(p, '/stablecoin-provider-accounts', { provider: 'BRALE', apiClientId: clientId(), apiClientSecret: 'sandbox-secret-xyz' });
    expect(res.statusCode, res.body).toBe(201);
    const body = res.json();
    expect(body).toMatchObject({ provider: 'BRALE', providerEnvironment: 'SANDBOX', status: 'ACTIVE' });
    expect(body.id).toMatch(/^StablecoinProviderAccount:/);
    expect(typeof body.lastVerifiedAt).toBe('string');
    expect(res.body).not.toContain('sandbox-secret-xyz');
    expect(body).not.toHaveProperty('apiClientSecret');
    const row = await env.deps.prisma.stablecoinProviderAccount.findFirstOrThrow({ where: { id: body.id } });
    expect(row.sealedSecret.startsWith('enc:v1:')).toBe(true);
    expect(row.sealedSecret).not.toContain('sandbox-secret-xyz');
    expect((await get(p, `/stablecoin-provider-accounts/${body.id}`)).json()).toEqual(body);
    const list = await get(p, '/stablecoin-provider-accounts?status=ACTIVE&provider=BRALE');
    expect(list.json()).toMatchObject({ data: [body], hasMore: false, totalCount: 1 });
    expect((await get(p, '/stablecoin-provider-accounts?status=REVOKED')).json()).toMatchObject({ data: [], totalCount: 0 });
  });

  it('refuses a link without Idempotency-Key, with refused credentials or an ambiguous account, writing nothing', async () => {
    const p = await env.platform();
    const before = await counts();
    const noKey = await post(p, '/stablecoin-provider-accounts', { provider: 'BRALE', apiClientId: clientId(), apiClientSecret: 'sandbox-secret-1' }, {});
    expect(noKey.statusCode).toBe(400);
    expect(noKey.json()).toMatchObject({ code: 'INVALID_INPUT', details: { errors: [{ field: 'Idempotency-Key' }] } });
    const invalid = await post(p, '/stablecoin-provider-accounts', { provider: 'BRALE', apiClientId: clientId(), apiClientSecret: 'invalid-secret' });
    expect(invalid.json()).toMatchObject({ status: 400, code: 'STABLECOIN_PROVIDER_ACCOUNT_INVALID' });
    const revoked = await post(p, '/stablecoin-provider-accounts', { provider: 'BRALE', apiClientId: clientId(), apiClientSecret: 'revoked-secret' });
    expect(revoked.json()).toMatchObject({ status: 400, code: 'STABLECOIN_PROVIDER_ACCOUNT_REVOKED' });
    const multi = `${clientId()}-multi`;
    const ambiguous = await post(p, '/stablecoin-provider-accounts', { provider: 'BRALE', apiClientId: multi, apiClientSecret: 'sandbox-secret-1' });
    expect(ambiguous.json()).toMatchObject({ status: 400, code: 'STABLECOIN_PROVIDER_ACCOUNT_SELECTION_REQUIRED', details: { errors: [{ field: 'providerAccountId' }] } });
    const wrongAccount = await post(p, '/stablecoin-provider-accounts', { provider: 'BRALE', apiClientId: multi, apiClientSecret: 'sandbox-secret-1', providerAccountId: 'not-mine' });
    expect(wrongAccount.json()).toMatchObject({ status: 400, code: 'STABLECOIN_PROVIDER_ACCOUNT_INVALID' });
    const badBody = await post(p, '/stablecoin-provider-accounts', { provider: 'CIRCLE', apiClientId: '', extra: 1 });
    expect(badBody.statusCode).toBe(400);
    expect(badBody.json().details.errors.map((e: { field: string }) => e.field).sort()).toEqual(['apiClientId', 'apiClientSecret', 'extra', 'provider']);
    expect(await counts()).toEqual(before);
    const chosen = await post(p, '/stablecoin-provider-accounts', { provider: 'BRALE', apiClientId: multi, apiClientSecret: 'sandbox-secret-1', providerAccountId: `${multi}-b` });
    expect(chosen.statusCode, chosen.body).toBe(201);
    expect(chosen.json().providerAccountId).toBe(`${multi}-b`);
  });

  it('a replay with the same Idempotency-Key returns the same link; linking the account again is 409', async () => {
    const p = await env.platform();
    const headers = key();
    const body = { provider: 'BRALE', apiClientId: clientId(), apiClientSecret: 'sandbox-secret-1' };
    const first = await post(p, '/stablecoin-provider-accounts', body, headers);
    const again = await post(p, '/stablecoin-provider-accounts', body, headers);
    expect(again.statusCode).toBe(201);
    expect(again.json().id).toBe(first.json().id);
    const twice = await post(p, '/stablecoin-provider-accounts', body);
    expect(twice.json()).toMatchObject({ status: 409, code: 'CONFLICT' });
  });

  it("another platform's link is 404 STABLECOIN_PROVIDER_ACCOUNT_NOT_FOUND", async () => {
    const a = await env.platform();
    const b = await env.platform();
    const l = await link(a);
    expect((await get(b, `/stablecoin-provider-accounts/${l.id}`)).json()).toMatchObject({ status: 404, code: 'STABLECOIN_PROVIDER_ACCOUNT_NOT_FOUND' });
  });

  it('the re-verification job marks a link whose credentials the provider no longer honours INVALID, and mints are then refused', async () => {
    const { p, account, token, wallet } = await issuer();
    const sim = await post(p, `/sandbox/stablecoin-provider-accounts/${account.id}/credentials`, { status: 'INVALID' }, {});
    expect(sim.statusCode, sim.body).toBe(200);
    env.clock.advance(env.config.STABLECOIN_CREDENTIAL_CHECK_INTERVAL_MS + 1000);
    await reverifyCredentials(env.deps);
    expect((await get(p, `/stablecoin-provider-accounts/${account.id}`)).json().status).toBe('INVALID');
    const mint = await post(p, `/stablecoins/${token.id}/mints`, wireMint(wallet));
    expect(mint.json()).toMatchObject({ status: 400, code: 'STABLECOIN_PROVIDER_ACCOUNT_INVALID' });
    const history = await env.deps.prisma.statusChange.findMany({ where: { resourceId: resourceKey(account.id) } });
    expect(history.map((h) => `${h.fromStatus}->${h.toStatus}`)).toEqual(['ACTIVE->INVALID']);
  });
});

describe('stablecoins', () => {
  it('registers a provider token NOT_ENABLED and lists it with REF filters', async () => {
    const p = await env.platform();
    const l = await link(p);
    const t = await register(p, 'ACME');
    expect(t).toMatchObject({ symbol: 'ACME', name: 'ACME Sandbox Dollar', baseCurrency: 'USD', network: 'SPARK', decimals: 6, issuanceStatus: 'PROVISIONED', gridOperationsStatus: 'NOT_ENABLED', provider: 'BRALE', stablecoinProviderAccountId: l.id, providerEnvironment: 'SANDBOX', providerTokenIdentifier: 'ACME' });
    expect(t).not.toHaveProperty('currency');
    const review = await register(p, 'REVIEWCOIN');
    expect(review.issuanceStatus).toBe('PENDING_REVIEW');
    expect((await get(p, '/stablecoins?issuanceStatus=PENDING_REVIEW')).json()).toMatchObject({ data: [review], totalCount: 1 });
    expect((await get(p, '/stablecoins?gridOperationsStatus=NOT_ENABLED&provider=BRALE&limit=1')).json()).toMatchObject({ hasMore: true, totalCount: 2 });
    expect((await get(p, '/stablecoins?gridOperationsStatus=BOGUS')).json()).toMatchObject({ status: 400, code: 'INVALID_INPUT', details: { errors: [{ field: 'gridOperationsStatus' }] } });
    expect((await get(p, `/stablecoins/${t.id}`)).json()).toEqual(t);
  });

  it('selects the link: none is 404, several need stablecoinProviderAccountId, an unknown token is 400; nothing written', async () => {
    const p = await env.platform();
    const body = { providerTokenIdentifier: 'ACME', networkTokenIdentifier: 'btkn1abcdefghijkl', network: 'SPARK' };
    expect((await post(p, '/stablecoins', body)).json()).toMatchObject({ status: 404, code: 'STABLECOIN_PROVIDER_ACCOUNT_NOT_FOUND' });
    const first = await link(p);
    await link(p);
    expect((await post(p, '/stablecoins', body)).json()).toMatchObject({ status: 400, code: 'STABLECOIN_PROVIDER_ACCOUNT_SELECTION_REQUIRED' });
    expect((await post(p, '/stablecoins', { ...body, stablecoinProviderAccountId: 'StablecoinProviderAccount:nope' })).json()).toMatchObject({ status: 404, code: 'STABLECOIN_PROVIDER_ACCOUNT_NOT_FOUND' });
    expect((await post(p, '/stablecoins', { ...body, providerTokenIdentifier: 'UNKNOWNX', stablecoinProviderAccountId: first.id })).json()).toMatchObject({ status: 400, code: 'INVALID_INPUT', details: { errors: [{ field: 'providerTokenIdentifier' }] } });
    expect((await post(p, '/stablecoins', { ...body, network: 'SOLANA' })).json()).toMatchObject({ status: 400, code: 'INVALID_INPUT', details: { errors: [{ field: 'network' }] } });
    expect((await post(p, '/stablecoins', body, {})).json()).toMatchObject({ status: 400, details: { errors: [{ field: 'Idempotency-Key' }] } });
    expect(await env.deps.prisma.stablecoin.count({ where: { platformId: p.platformId } })).toBe(0);
    const ok = await post(p, '/stablecoins', { ...body, stablecoinProviderAccountId: first.id });
    expect(ok.statusCode, ok.body).toBe(201);
    expect((await post(p, '/stablecoins', { ...body, stablecoinProviderAccountId: first.id })).json()).toMatchObject({ status: 409, code: 'CONFLICT' });
  });

  it('the operator moves a token through NOT_ENABLED … ENABLED (CLI), which gives it a currency; illegal moves are refused', async () => {
    const p = await env.platform();
    await link(p);
    const t = await register(p);
    await expect(operatorSetTokenStatus(env.deps, p.platformId, t.id, 'ENABLED')).rejects.toMatchObject({ code: 'INVALID_STATE_TRANSITION' });
    await operatorSetTokenStatus(env.deps, p.platformId, t.id, 'PENDING_APPROVAL');
    const cli = (status: string) => runCli('stablecoin-token-status', ['--platform', p.platformId, '--stablecoin', t.id, '--status', status], { DATABASE_URL: env.databaseUrl, REDIS_URL: env.config.REDIS_URL });
    expect((await cli('ENABLED')).stdout).toContain('ENABLED (currency ACME)');
    expect((await get(p, `/stablecoins/${t.id}`)).json()).toMatchObject({ gridOperationsStatus: 'ENABLED', currency: 'ACME' });
    expect((await get(p, '/stablecoins?gridOperationsStatus=ENABLED')).json().totalCount).toBe(1);
    await expect(cli('BOGUS')).rejects.toThrow(/--status must be one of/);
    await expect(operatorSetTokenStatus(env.deps, p.platformId, t.id, 'PENDING_APPROVAL')).rejects.toMatchObject({ code: 'INVALID_STATE_TRANSITION' });
    const disabled = await operatorSetTokenStatus(env.deps, p.platformId, t.id, 'DISABLED');
    expect(disabled.currency).toBeNull();
    expect((await get(p, `/stablecoins/${t.id}`)).json()).not.toHaveProperty('currency');
  }, 120_000);
});

describe('stablecoin operations', () => {
  it('a WIRE mint waits for funds, then walks PENDING_PROVIDER → PROCESSING → COMPLETED, each move recorded once', async () => {
    const { p, token, wallet, account } = await issuer();
    const res = await post(p, `/stablecoins/${token.id}/mints`, wireMint(wallet));
    expect(res.statusCode, res.body).toBe(201);
    const op = res.json();
    expect(op).toMatchObject({ stablecoinId: token.id, operationType: 'MINT', status: 'PENDING_FUNDING', amount: '25000000', provider: 'BRALE', providerEnvironment: 'SANDBOX', stablecoinProviderAccountId: account.id, source: { type: 'WIRE' }, destination: { accountId: wallet }, description: 'Initial program funding', providerStatus: 'awaiting_funds' });
    expect(op.fundingInstructions).toMatchObject({ rail: 'WIRE', amount: '2500', currency: 'USD', routingNumber: '021000021', valueType: 'ACME' });
    expect(op.fundingInstructions.accountNumber).toMatch(/^\d{4,17}$/);
    expect(new Date(op.expiresAt).getTime()).toBeGreaterThan(Date.now());
    await reconcileOperations(env.deps);
    expect((await get(p, `/stablecoin-operations/${op.id}`)).json().status).toBe('PENDING_FUNDING');

    const funded = await post(p, `/sandbox/stablecoin-operations/${op.id}/fund`, {}, {});
    expect(funded.statusCode, funded.body).toBe(200);
    expect(funded.json().status).toBe('PENDING_PROVIDER');
    expect(funded.json().fundingInstructions).toEqual(op.fundingInstructions);
    expect((await post(p, `/sandbox/stablecoin-operations/${op.id}/fund`, {}, {})).json()).toMatchObject({ status: 409, code: 'INVALID_STATE_TRANSITION' });

    for (const expected of ['PROCESSING', 'COMPLETED']) {
      env.clock.advance(STEP_MS + 100);
      await reconcileOperations(env.deps);
      expect((await get(p, `/stablecoin-operations/${op.id}`)).json().status).toBe(expected);
    }
    await reconcileOperations(env.deps);
    const history = await env.deps.prisma.statusChange.findMany({ where: { resourceId: resourceKey(op.id) }, orderBy: { createdAt: 'asc' } });
    expect(history.map((h) => h.toStatus)).toEqual(['PENDING_FUNDING', 'PENDING_PROVIDER', 'PROCESSING', 'COMPLETED']);
    const done = (await get(p, `/stablecoin-operations/${op.id}`)).json();
    expect(done.providerStatus).toBe('complete');
    expect((await env.deps.prisma.stablecoinOperation.findFirstOrThrow({ where: { id: op.id } })).nextCheckAt).toBeNull();
  });

  it('an ACH-debited mint needs no funding step; a replay with the same key returns the same operation', async () => {
    const { p, token, wallet, bank } = await issuer();
    const headers = key();
    const body = { amount: '1000000', fundingSource: { type: 'ACH_DEBIT', externalAccountId: bank }, destination: { accountId: wallet } };
    const res = await post(p, `/stablecoins/${token.id}/mints`, body, headers);
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toMatchObject({ status: 'PENDING_PROVIDER', source: { type: 'ACH_DEBIT', externalAccountId: bank } });
    expect(res.json()).not.toHaveProperty('fundingInstructions');
    expect(res.json()).not.toHaveProperty('expiresAt');
    const again = await post(p, `/stablecoins/${token.id}/mints`, body, headers);
    expect(again.json().id).toBe(res.json().id);
    expect(await env.deps.prisma.stablecoinOperation.count({ where: { stablecoinId: token.id } })).toBe(1);
  });

  it('an unfunded WIRE mint EXPIRES at expiresAt and cannot be funded after', async () => {
    const { p, token, wallet } = await issuer();
    const op = (await post(p, `/stablecoins/${token.id}/mints`, wireMint(wallet))).json();
    expect(await expireOperations(env.deps)).toBe(0);
    env.clock.advance(env.config.STABLECOIN_FUNDING_EXPIRY_MS + 1000);
    await expireOperations(env.deps);
    expect((await get(p, `/stablecoin-operations/${op.id}`)).json().status).toBe('EXPIRED');
    expect((await post(p, `/sandbox/stablecoin-operations/${op.id}/fund`, {}, {})).json()).toMatchObject({ status: 409 });
  });

  it('provider failures by magic amount: …903 is 503 with nothing written, …902 FAILED at once, …904 FAILED after funding', async () => {
    const { p, token, wallet } = await issuer();
    const before = await counts();
    const down = await post(p, `/stablecoins/${token.id}/mints`, wireMint(wallet, '9030000'));
    expect(down.json()).toMatchObject({ status: 503, code: 'SERVICE_UNAVAILABLE' });
    expect(await counts()).toEqual(before);
    const rejected = await post(p, `/stablecoins/${token.id}/mints`, wireMint(wallet, '9020000'));
    expect(rejected.statusCode).toBe(201);
    expect(rejected.json()).toMatchObject({ status: 'FAILED', failureReason: 'PROVIDER_REJECTED' });
    const late = (await post(p, `/stablecoins/${token.id}/mints`, wireMint(wallet, '9040000'))).json();
    await post(p, `/sandbox/stablecoin-operations/${late.id}/fund`, {}, {});
    env.clock.advance(2 * STEP_MS + 100);
    await reconcileOperations(env.deps);
    await reconcileOperations(env.deps);
    expect((await get(p, `/stablecoin-operations/${late.id}`)).json()).toMatchObject({ status: 'FAILED', failureReason: 'PROVIDER_TRANSFER_FAILED' });
  });

  it('a burn from an external wallet names the deposit address, then pays the bank account', async () => {
    const { p, token, bank } = await issuer();
    const res = await post(p, `/stablecoins/${token.id}/burns`, { amount: '1000000', source: { type: 'EXTERNAL_ACCOUNT' }, destination: { type: 'EXTERNAL_ACCOUNT', externalAccountId: bank, rail: 'ACH_CREDIT' }, description: 'Redeem ACME' });
    expect(res.statusCode, res.body).toBe(201);
    const op = res.json();
    expect(op).toMatchObject({ operationType: 'BURN', status: 'PENDING_FUNDING', source: { type: 'EXTERNAL_ACCOUNT' }, destination: { accountId: bank, rail: 'ACH_CREDIT' }, estimatedDelivery: { rail: 'ACH_CREDIT', amount: '100', currency: 'USD', timing: '1-3 business days' } });
    expect(op.fundingInstructions).toMatchObject({ rail: 'SPARK', network: 'SPARK', valueType: 'ACME' });
    expect(op.fundingInstructions.address).toMatch(/^spark1/);
    await post(p, `/sandbox/stablecoin-operations/${op.id}/fund`, {}, {});
    env.clock.advance(2 * STEP_MS + 100);
    await reconcileOperations(env.deps);
    expect((await get(p, `/stablecoin-operations/${op.id}`)).json().status).toBe('COMPLETED');
    const burns = (await get(p, `/stablecoins/${token.id}/operations?operationType=BURN`)).json();
    expect(burns).toMatchObject({ totalCount: 1, hasMore: false });
    expect(burns.data[0].id).toBe(op.id);
    expect((await get(p, `/stablecoins/${token.id}/operations?operationType=MINT`)).json().totalCount).toBe(0);
  });

  it('refuses bad mints and burns with a precise 4xx and writes nothing', async () => {
    const { p, token, wallet, bank } = await issuer();
    const other = await env.platform();
    const before = await counts();
    const mint = (body: unknown, headers?: Record<string, string>) => post(p, `/stablecoins/${token.id}/mints`, body, headers);
    expect((await mint(wireMint(wallet, '1234567'))).json()).toMatchObject({ status: 400, code: 'INVALID_INPUT', details: { errors: [{ field: 'amount' }] } });
    expect((await mint(wireMint(wallet, '-5'))).json()).toMatchObject({ status: 400, details: { errors: [{ field: 'amount' }] } });
    expect((await mint(wireMint(wallet, 25000000 as unknown as string))).json()).toMatchObject({ status: 400, details: { errors: [{ field: 'amount' }] } });
    expect((await mint({ ...wireMint(wallet), fundingSource: { type: 'CARD' } })).json()).toMatchObject({ status: 400, details: { errors: [{ field: 'fundingSource.type' }] } });
    expect((await mint({ ...wireMint(wallet), fundingSource: { type: 'ACH_DEBIT' } })).json()).toMatchObject({ status: 400, details: { errors: [{ field: 'fundingSource.externalAccountId' }] } });
    // The internal-account variants need the token ENABLED (test/stablecoin/internal-accounts.test.ts).
    expect((await mint({ ...wireMint(wallet), fundingSource: { type: 'GRID_INTERNAL_ACCOUNT', accountId: 'InternalAccount:x' } })).json()).toMatchObject({ status: 409, code: 'CONFLICT' });
    expect((await mint(wireMint(bank))).json()).toMatchObject({ status: 400, details: { errors: [{ field: 'destination.accountId' }] } });
    expect((await mint(wireMint('ExternalAccount:00000000-0000-7000-8000-000000000000'))).json()).toMatchObject({ status: 404 });
    expect((await mint(wireMint(wallet), {})).json()).toMatchObject({ status: 400, details: { errors: [{ field: 'Idempotency-Key' }] } });
    expect((await post(p, '/stablecoins/Stablecoin:nope/mints', wireMint(wallet))).json()).toMatchObject({ status: 404, code: 'NOT_FOUND' });
    expect((await post(other, `/stablecoins/${token.id}/mints`, wireMint(wallet))).json()).toMatchObject({ status: 404, code: 'NOT_FOUND' });
    const burn = (body: unknown) => post(p, `/stablecoins/${token.id}/burns`, body);
    expect((await burn({ amount: '1000000', source: { type: 'EXTERNAL_ACCOUNT' }, destination: { type: 'EXTERNAL_ACCOUNT', externalAccountId: bank, rail: 'SWIFT' } })).json()).toMatchObject({ status: 400, details: { errors: [{ field: 'destination.rail' }] } });
    expect((await burn({ amount: '1000000', source: { type: 'EXTERNAL_ACCOUNT' }, destination: { type: 'EXTERNAL_ACCOUNT', externalAccountId: wallet, rail: 'WIRE' } })).json()).toMatchObject({ status: 400, details: { errors: [{ field: 'destination.externalAccountId' }] } });
    expect(await counts()).toEqual(before);
    expect((await get(other, `/stablecoins/${token.id}/operations`)).json()).toMatchObject({ status: 404 });
    expect((await get(p, '/stablecoin-operations/StablecoinOperation:nope')).json()).toMatchObject({ status: 404, code: 'NOT_FOUND' });
  });
});

describe('provider secrets', () => {
  it('never reach the logs, even at trace level, on link, use and refusal', async () => {
    const lines: string[] = [];
    const traced = await createTestEnv({ LOG_LEVEL: 'trace' }, { logStream: { write: (l: string) => void lines.push(l) } });
    try {
      const p = await traced.platform();
      const secret = `sandbox-secret-${randomUUID()}`;
      const linked = await p.request({ method: 'POST', url: '/stablecoin-provider-accounts', payload: { provider: 'BRALE', apiClientId: clientId(), apiClientSecret: secret }, headers: key() });
      expect(linked.statusCode, linked.body).toBe(201);
      await p.request({ method: 'POST', url: '/stablecoin-provider-accounts', payload: { provider: 'BRALE', apiClientId: clientId(), apiClientSecret: `invalid-${secret}` }, headers: key() });
      const registered = await p.request({ method: 'POST', url: '/stablecoins', payload: { providerTokenIdentifier: 'ACME', networkTokenIdentifier: 'btkn1secretlogtest', network: 'SPARK' }, headers: key() });
      expect(registered.statusCode, registered.body).toBe(201);
      traced.clock.advance(traced.config.STABLECOIN_CREDENTIAL_CHECK_INTERVAL_MS + 1000);
      await reverifyCredentials(traced.deps);
      expect(lines.length).toBeGreaterThan(0);
      expect(lines.join('\n')).not.toContain(secret);
    } finally {
      await traced.close();
    }
  });
});
