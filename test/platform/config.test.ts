import { readFileSync } from 'node:fs';
import { generateKeyPairSync } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASE, createTestEnv, type TestEnv, type TestPlatform } from '../helpers/app.js';
import { assertMatchesResponseSchema } from '../helpers/openapi.js';
import { envSchema, loadConfig } from '../../src/config.js';

let env: TestEnv;
let p: TestPlatform;

beforeAll(async () => {
  env = await createTestEnv();
  p = await env.platform();
});
afterAll(() => env.close());

const usdCross = (bps: number, fixed: number) => ({ feeType: 'CROSS_CURRENCY_TRANSACTION', sourceCurrency: 'USD', variableFeeBps: bps, fixedFee: { amount: fixed, currency: 'USD' } });
const achFee = (bps: number, fixed: number) => ({ feeType: 'RAIL', rail: 'ACH', direction: 'OUT', originator: 'SVC', variableFeeBps: bps, fixedFee: { amount: fixed, currency: 'USD' } });

describe('GET /config', () => {
  it('returns the platform configuration with the webhook public key, matching the document', async () => {
    const res = await p.request({ method: 'GET', url: '/config' });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    assertMatchesResponseSchema('GET', `${BASE}/config`, 200, body);
    expect(body.id).toBe(`PlatformConfig:${p.platformId}`);
    expect(body.webhookPublicKey).toContain('BEGIN PUBLIC KEY');
    expect(body.feeConfigs).toEqual([]);
    expect(body.isRegulatedFinancialInstitution).toBe(false);
    const usd = body.supportedCurrencies.find((c: any) => c.currencyCode === 'USD');
    expect(usd.providerRequiredCustomerFields).toContain('FULL_NAME');
    expect(usd.minAmount).toBeGreaterThan(0);
  });
});

describe('PATCH /config fee configs', () => {
  it('upserts by key: only the keys sent change, one active config per key', async () => {
    const q = await env.platform();
    let res = await q.request({ method: 'PATCH', url: '/config', payload: { feeConfigs: [usdCross(30, 50), achFee(10, 25)] } });
    expect(res.statusCode).toBe(200);
    assertMatchesResponseSchema('PATCH', `${BASE}/config`, 200, res.json());
    expect(res.json().feeConfigs).toHaveLength(2);

    res = await q.request({ method: 'PATCH', url: '/config', payload: { feeConfigs: [usdCross(45, 0)] } });
    const fees = res.json().feeConfigs;
    expect(fees).toHaveLength(2);
    expect(fees.find((f: any) => f.feeType === 'CROSS_CURRENCY_TRANSACTION')).toMatchObject({ variableFeeBps: 45, fixedFee: { amount: 0, currency: 'USD' } });
    expect(fees.find((f: any) => f.feeType === 'RAIL')).toMatchObject({ rail: 'ACH', variableFeeBps: 10, fixedFee: { amount: 25 } });
    expect(await env.deps.prisma.feeConfig.count({ where: { platformId: q.platformId } })).toBe(2);
  });

  it('both components 0 deactivates the config; omitting feeConfigs leaves fees alone', async () => {
    const q = await env.platform();
    await q.request({ method: 'PATCH', url: '/config', payload: { feeConfigs: [usdCross(30, 50), achFee(10, 25)] } });
    let res = await q.request({ method: 'PATCH', url: '/config', payload: { feeConfigs: [achFee(0, 0)] } });
    expect(res.json().feeConfigs.map((f: any) => f.feeType)).toEqual(['CROSS_CURRENCY_TRANSACTION']);
    res = await q.request({ method: 'PATCH', url: '/config', payload: { umaDomain: 'pay.example.com' } });
    expect(res.json().feeConfigs).toHaveLength(1);
    expect(res.json().umaDomain).toBe('pay.example.com');
  });

  it('unsupported fee currency, rail, direction or originator is 501 NOT_IMPLEMENTED and writes nothing', async () => {
    const q = await env.platform();
    const cases = [
      { ...usdCross(10, 0), sourceCurrency: 'EUR' },
      { ...usdCross(10, 0), fixedFee: { amount: 5, currency: 'EUR' } },
      { ...achFee(10, 0), rail: 'SEPA' },
      { ...achFee(10, 0), direction: 'IN' },
      { ...achFee(10, 0), originator: 'BANK' },
    ];
    for (const c of cases) {
      const res = await q.request({ method: 'PATCH', url: '/config', payload: { feeConfigs: [usdCross(20, 0), c] } });
      expect(res.statusCode).toBe(501);
      expect(res.json()).toMatchObject({ status: 501, code: 'NOT_IMPLEMENTED' });
      expect(res.json().details.errors[0].field).toMatch(/^feeConfigs\[1\]\./);
    }
    expect(await env.deps.prisma.feeConfig.count({ where: { platformId: q.platformId } })).toBe(0);
  });

  it('validates every entry: bps range, negative amounts, unknown fee types, duplicate keys', async () => {
    const res = await p.request({
      method: 'PATCH',
      url: '/config',
      payload: { feeConfigs: [usdCross(10001, 0), { ...achFee(5, -1) }, { feeType: 'OTHER' }] },
    });
    expect(res.statusCode).toBe(400);
    const fields = res.json().details.errors.map((e: any) => e.field);
    expect(fields).toEqual(expect.arrayContaining(['feeConfigs[0].variableFeeBps', 'feeConfigs[1].fixedFee.amount', 'feeConfigs[2].feeType']));
    const dup = await p.request({ method: 'PATCH', url: '/config', payload: { feeConfigs: [usdCross(1, 0), usdCross(2, 0)] } });
    expect(dup.statusCode).toBe(400);
    expect(dup.json().details.errors[0].field).toBe('feeConfigs[1]');
  });
});

describe('PATCH /config other fields', () => {
  it('sets and clears the webhook endpoint; refuses non-http URLs', async () => {
    const q = await env.platform();
    let res = await q.request({ method: 'PATCH', url: '/config', payload: { webhookEndpoint: 'https://hooks.example.com/svc' } });
    expect(res.json().webhookEndpoint).toBe('https://hooks.example.com/svc');
    res = await q.request({ method: 'PATCH', url: '/config', payload: { webhookEndpoint: 'ftp://example.com/x' } });
    expect(res.statusCode).toBe(400);
    expect(res.json().details.errors[0].field).toBe('webhookEndpoint');
    res = await q.request({ method: 'PATCH', url: '/config', payload: { webhookEndpoint: null } });
    // Removed: absent from the answer, as REF leaves out an unset optional field (issue 13).
    expect(res.json()).not.toHaveProperty('webhookEndpoint');
  });

  it('refuses private and loopback webhook URLs in production', async () => {
    const prod = await createTestEnv({ SVC_ENV: 'production', WEBHOOK_SIGNING_KEY: generatePem() });
    try {
      const q = await prod.platform();
      for (const url of ['http://127.0.0.1:9/x', 'http://10.0.0.5/x', 'http://[::1]/x', 'http://localhost/x']) {
        const res = await q.request({ method: 'PATCH', url: '/config', payload: { webhookEndpoint: url } });
        expect(res.statusCode, url).toBe(400);
      }
      const sandbox = await q.request({ method: 'POST', url: '/sandbox/webhooks/test' });
      expect(sandbox.statusCode).toBe(403);
      expect(sandbox.json().code).toBe('FORBIDDEN');
    } finally {
      await prod.close();
    }
  });

  it('updates per-currency limits and validates them', async () => {
    const q = await env.platform();
    const entry = { currencyCode: 'USD', minAmount: 100, maxAmount: 500000, requiredCounterpartyFields: [{ name: 'FULL_NAME', mandatory: true }], enabledTransactionTypes: ['OUTGOING'] };
    let res = await q.request({ method: 'PATCH', url: '/config', payload: { supportedCurrencies: [entry] } });
    expect(res.statusCode).toBe(200);
    expect(res.json().supportedCurrencies.find((c: any) => c.currencyCode === 'USD')).toMatchObject({ minAmount: 100, maxAmount: 500000, enabledTransactionTypes: ['OUTGOING'] });
    res = await q.request({ method: 'PATCH', url: '/config', payload: { supportedCurrencies: [{ ...entry, currencyCode: 'XYZ', maxAmount: 1 }] } });
    expect(res.statusCode).toBe(400);
    expect(res.json().details.errors.map((e: any) => e.field).sort()).toEqual(['supportedCurrencies[0].currencyCode', 'supportedCurrencies[0].maxAmount']);
  });

  it("one platform's changes never show in another's configuration", async () => {
    const a = await env.platform();
    const b = await env.platform();
    await a.request({ method: 'PATCH', url: '/config', payload: { umaDomain: 'a.example.com', feeConfigs: [usdCross(5, 5)] } });
    const res = await b.request({ method: 'GET', url: '/config' });
    expect(res.json()).not.toHaveProperty('umaDomain');
    expect(res.json().feeConfigs).toEqual([]);
  });
});

describe('configuration from the environment', () => {
  it('names what is missing', () => {
    // Production needs both addresses; the sandbox has local defaults (below).
    expect(() => loadConfig({ SVC_ENV: 'production' })).toThrow(/DATABASE_URL[\s\S]*REDIS_URL/);
    expect(() => loadConfig({ DATABASE_URL: 'postgresql://x', REDIS_URL: 'redis://x', PORT: 'abc' })).toThrow(/PORT/);
    expect(() => loadConfig({ DATABASE_URL: 'postgresql://x', REDIS_URL: 'redis://x', SVC_ENV: 'production' })).toThrow(/WEBHOOK_SIGNING_KEY/);
  });

  it('production refuses sandbox defaults and names every missing setting at once', () => {
    const base = { DATABASE_URL: 'postgresql://x', REDIS_URL: 'redis://x', SVC_ENV: 'production' };
    let message = '';
    try {
      loadConfig({ ...base, OPERATOR_USER: 'operator', OPERATOR_PASSWORD: 'operator-change-me', WEBHOOK_ALLOW_PRIVATE_URLS: 'true' });
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toMatch(/^Invalid configuration for SVC_ENV=production:/);
    expect(message).toMatch(/WEBHOOK_SIGNING_KEY: is required in production/);
    expect(message).toMatch(/EXTERNAL_ACCOUNT_ENCRYPTION_KEY: is required in production/);
    expect(message).toMatch(/OPERATOR_PASSWORD: is the sandbox default/);
    expect(message).toMatch(/WEBHOOK_ALLOW_PRIVATE_URLS: must not be true in production/);
    const good = { ...base, WEBHOOK_SIGNING_KEY: generatePem(), EXTERNAL_ACCOUNT_ENCRYPTION_KEY: Buffer.alloc(32, 3).toString('base64') };
    expect(() => loadConfig({ ...good, OPERATOR_USER: 'ops', OPERATOR_PASSWORD: 'short' })).toThrow(/OPERATOR_PASSWORD: must be at least 16 characters/);
    expect(loadConfig(good).SVC_ENV).toBe('production');
    // Sandbox keeps working with the defaults.
    expect(loadConfig({ DATABASE_URL: 'postgresql://x', REDIS_URL: 'redis://x', OPERATOR_USER: 'operator', OPERATOR_PASSWORD: 'operator-change-me' }).SVC_ENV).toBe('sandbox');
  });

  it('issue 24: a fresh sandbox needs no settings; the payments worker is sized by its pool; the worker runs in the API in the sandbox only', () => {
    const fresh = loadConfig({});
    expect(fresh.DATABASE_URL).toBe('postgresql://postgres@127.0.0.1:5432/svc');
    expect(fresh.REDIS_URL).toBe('redis://127.0.0.1:6379');
    expect(fresh.PAYMENT_CONCURRENCY).toBe(60);
    expect(fresh.RUN_WORKER_IN_PROCESS).toBe(true);
    expect(fresh.SANDBOX_AUTO_SETUP).toBe(true);
    expect(fresh.SANDBOX_CLIENT_ID).toBe('sandbox-client');
    expect(fresh.SANDBOX_CLIENT_SECRET).toBeUndefined();
    expect(loadConfig({ DATABASE_POOL_MAX: '4' }).PAYMENT_CONCURRENCY).toBe(24);
    expect(loadConfig({ DATABASE_POOL_MAX: '4', PAYMENT_CONCURRENCY: '7' }).PAYMENT_CONCURRENCY).toBe(7);
    expect(loadConfig({ RUN_WORKER_IN_PROCESS: 'false' }).RUN_WORKER_IN_PROCESS).toBe(false);
    expect(() => loadConfig({ SANDBOX_CLIENT_SECRET: 'short' })).toThrow(/SANDBOX_CLIENT_SECRET: must be at least 12 characters/);
    const prod = { DATABASE_URL: 'postgresql://x', REDIS_URL: 'redis://x', SVC_ENV: 'production', WEBHOOK_SIGNING_KEY: generatePem(), EXTERNAL_ACCOUNT_ENCRYPTION_KEY: Buffer.alloc(32, 1).toString('base64') };
    expect(loadConfig(prod).RUN_WORKER_IN_PROCESS).toBe(false);
    expect(loadConfig({ ...prod, RUN_WORKER_IN_PROCESS: 'true' }).RUN_WORKER_IN_PROCESS).toBe(true);
    expect(loadConfig({ ...prod, SANDBOX_AUTO_SETUP: 'true' }).SANDBOX_AUTO_SETUP).toBe(false);
    // The image (NODE_ENV=production) in sandbox mode is a deployment: compose runs migrations and the worker apart.
    const image = loadConfig({ NODE_ENV: 'production' });
    expect([image.RUN_WORKER_IN_PROCESS, image.SANDBOX_AUTO_SETUP]).toEqual([false, false]);
  });

  it('Redis sentinel and cluster modes need their nodes', () => {
    const base = { DATABASE_URL: 'postgresql://x', REDIS_URL: 'redis://x' };
    expect(() => loadConfig({ ...base, REDIS_MODE: 'sentinel' })).toThrow(/REDIS_SENTINELS: is required with REDIS_MODE=sentinel/);
    expect(() => loadConfig({ ...base, REDIS_MODE: 'cluster' })).toThrow(/REDIS_CLUSTER_NODES: is required with REDIS_MODE=cluster/);
    expect(() => loadConfig({ ...base, REDIS_PREFIX: 'a{b}' })).toThrow(/REDIS_PREFIX/);
  });

  it('.env.example lists every variable the service reads', () => {
    const listed = new Set(
      readFileSync(new URL('../../.env.example', import.meta.url), 'utf8')
        .split('\n')
        .map((l) => l.replace(/^#\s*/, '').match(/^([A-Z][A-Z0-9_]*)=/)?.[1])
        .filter(Boolean) as string[],
    );
    for (const key of Object.keys(envSchema.shape)) expect(listed, key).toContain(key);
  });
});

function generatePem(): string {
  return generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
}
