import { execFile } from 'node:child_process';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import pg from 'pg';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import { withDatabase } from '../helpers/global-setup.js';
import { ROOT, startBuiltApi, startBuiltWorker, type ApiProcess, type ServiceProcess } from '../helpers/built-processes.js';
import { cloneDatabase, dropDatabase } from '../helpers/test-databases.js';

/**
 * `npm start` / `npm run worker` run the built service (dist/, built by `npm ci` or `npm run build`) with
 * no build step: the compiled API and worker, started as child processes, become ready (bounded polling;
 * no time is asserted) and stop cleanly on SIGTERM.
 */
describe('start-up of the built service', () => {
  const suffix = randomBytes(5).toString('hex');
  const dbName = `svc_t_${Math.floor(Date.now() / 1000)}_${suffix}`;
  const prefix = `t_${suffix}`;
  const rootUrl = inject('databaseUrl');
  let env: Record<string, string>;

  beforeAll(async () => {
    // On the Citus rehearsal (TEST_CITUS_WORKERS) a clone on every node (29f).
    await cloneDatabase(rootUrl, dbName, inject('templateDb'));
    env = { DATABASE_URL: withDatabase(rootUrl, dbName), REDIS_URL: inject('redisUrl'), REDIS_PREFIX: prefix, LOG_LEVEL: 'info', DATABASE_POOL_MAX: '3' };
  });

  afterAll(async () => {
    const redis = new Redis(inject('redisUrl'));
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length) await redis.del(...keys);
    await redis.quit();
    await dropDatabase(rootUrl, dbName);
  });

  it('the API answers /readyz 200 and the worker logs "worker ready"; both exit 0 on SIGTERM', async () => {
    let api: ApiProcess | undefined;
    let worker: ServiceProcess | undefined;
    try {
      [api, worker] = await Promise.all([startBuiltApi(env, 90_000), startBuiltWorker(env, 90_000)]);
      const ready = await fetch(`${api.baseUrl}/readyz`);
      expect(ready.status).toBe(200);
      expect(await ready.json()).toEqual({ status: 'ok', checks: { postgres: 'ok', redis: 'ok' } });
      // Served from dist/openapi.json (written by the build), as the YAML would be.
      const docs = await fetch(`${api.baseUrl}/docs/json`);
      expect(docs.status).toBe(200);
      expect(((await docs.json()) as { openapi: string }).openapi).toMatch(/^3\./);
      const unauthenticated = await fetch(`${api.baseUrl}/2025-10-13/config`);
      expect(unauthenticated.status).toBe(401);
      expect(worker.output()).toContain('"msg":"worker ready"');
    } finally {
      const codes = await Promise.all([api?.stop(), worker?.stop()]);
      if (api && worker) expect(codes).toEqual([0, 0]);
    }
  }, 180_000);

  it('npm start says how to build when dist/ is missing', async () => {
    const run = promisify(execFile);
    const err = await run(process.execPath, ['scripts/check-built.mjs', 'dist/no-such-entry.js'], { cwd: ROOT }).then(
      () => undefined,
      (e: { code: number; stderr: string }) => e,
    );
    expect(err?.code).toBe(1);
    expect(err?.stderr).toContain('dist/no-such-entry.js is missing');
    expect(err?.stderr).toContain('npm run build');
  });
});

/**
 * Issue 24: in the sandbox `npm start` alone is enough on a fresh machine. Against a database that does not
 * exist yet it creates it, migrates it, creates the sandbox platform and prints its credentials once, and
 * runs the worker in its own process: a payment made with those credentials completes. A second start
 * prints no credentials, and `--no-worker` runs the API alone.
 */
describe('npm start in the sandbox on a fresh database', () => {
  const suffix = randomBytes(5).toString('hex');
  const dbName = `svc_t_${Math.floor(Date.now() / 1000)}_fresh_${suffix}`;
  const prefix = `t_${suffix}`;
  const rootUrl = inject('databaseUrl');
  const API = '/2025-10-13';
  // SVC_ENV, RUN_WORKER_IN_PROCESS, SANDBOX_AUTO_SETUP and SANDBOX_CLIENT_SECRET unset: npm start's defaults
  // on a developer's machine (NODE_ENV unset there: development).
  const env = () => ({ NODE_ENV: 'development', DATABASE_URL: withDatabase(rootUrl, dbName), REDIS_URL: inject('redisUrl'), REDIS_PREFIX: prefix, LOG_LEVEL: 'info', DATABASE_POOL_MAX: '3', SANDBOX_CLIENT_ID: `start-${suffix}`, SANDBOX_RAIL_DELAY_SCALE: '0.05' });

  afterAll(async () => {
    const redis = new Redis(inject('redisUrl'));
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length) await redis.del(...keys);
    await redis.quit();
    await dropDatabase(rootUrl, dbName);
  });

  const credentialLines = (out: string) => out.split('\n').filter((l) => l.includes('client secret:'));

  async function until<T>(what: string, check: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const v = await check();
      if (v !== undefined) return v;
      if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  it('creates and migrates the database, prints the sandbox credentials once, and settles a payment in the same process', async () => {
    let api: ApiProcess | undefined;
    try {
      api = await startBuiltApi(env(), 120_000, { asNpmStart: true });
      const out = api.output();
      expect(credentialLines(out)).toHaveLength(1);
      expect(out).toContain(`client id:     start-${suffix}`);
      expect(out).toContain('"msg":"worker ready"');
      const secret = credentialLines(out)[0]!.split('client secret:')[1]!.trim();
      const auth = `Basic ${Buffer.from(`start-${suffix}:${secret}`).toString('base64')}`;
      const call = async (method: string, url: string, body?: unknown) => {
        const res = await fetch(`${api!.baseUrl}${API}${url}`, { method, headers: { authorization: auth, ...(body ? { 'content-type': 'application/json' } : {}) }, body: body ? JSON.stringify(body) : undefined });
        return { status: res.status, body: (await res.json()) as any };
      };
      expect((await call('GET', '/config')).status).toBe(200);

      const accounts = await call('GET', '/platform/internal-accounts?currency=USD');
      const usd = accounts.body.data.find((a: { balance: { currency: { code: string } } }) => a.balance.currency.code === 'USD');
      expect((await call('POST', `/sandbox/internal-accounts/${usd.id}/fund`, { amount: 100_000 })).status).toBe(200);
      const ext = await call('POST', '/platform/external-accounts', {
        currency: 'USD',
        accountInfo: {
          accountType: 'USD_ACCOUNT', accountNumber: '123456789', routingNumber: '021000021', bankAccountType: 'CHECKING', bankName: 'Chase',
          beneficiary: { beneficiaryType: 'INDIVIDUAL', fullName: 'Grace Hopper', address: { line1: '1 Main St', city: 'New York', postalCode: '10001', country: 'US' } },
        },
      });
      expect(ext.status).toBe(201);
      // The beneficiary check is a queued job: the account turns ACTIVE only if a worker runs.
      await until('the external account ACTIVE', async () => ((await call('GET', `/platform/external-accounts/${ext.body.id}`)).body.status === 'ACTIVE' ? true : undefined));
      const quote = await call('POST', '/quotes', {
        source: { sourceType: 'ACCOUNT', accountId: usd.id },
        destination: { destinationType: 'ACCOUNT', accountId: ext.body.id },
        lockedCurrencySide: 'SENDING', lockedCurrencyAmount: 1000, immediatelyExecute: true,
      });
      expect(quote.status).toBe(201);
      const done = await until('the payment COMPLETED', async () => {
        const tx = await call('GET', `/transactions/${quote.body.transactionId}`);
        return tx.body.status === 'COMPLETED' || tx.body.status === 'FAILED' ? tx.body : undefined;
      });
      expect(done.status).toBe('COMPLETED');
    } finally {
      const code = await api?.stop();
      if (api) expect(code, api.output()).toBe(0);
    }

    // Started again: the database, its schema and the platform are there; nothing new is printed.
    let again: ApiProcess | undefined;
    try {
      again = await startBuiltApi(env(), 120_000, { asNpmStart: true, args: ['--no-worker'] });
      expect(credentialLines(again.output())).toEqual([]);
      expect(again.output()).toContain('sandbox: platform exists');
      expect(again.output()).not.toContain('"msg":"worker ready"');
      expect((await fetch(`${again.baseUrl}/readyz`)).status).toBe(200);
    } finally {
      await again?.stop();
    }
  }, 300_000);

  it('production sets nothing up: a database without schema stops the API with the command to run', async () => {
    const err = await startBuiltApi(
      { ...env(), DATABASE_URL: withDatabase(rootUrl, `${dbName}_none`), SVC_ENV: 'production', WEBHOOK_SIGNING_KEY: generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(), EXTERNAL_ACCOUNT_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64') },
      60_000,
      { asNpmStart: true },
    ).then(
      () => undefined,
      (e: Error) => e,
    );
    expect(err?.message).toMatch(/exited before it was ready/);
    expect(err?.message).toMatch(/Cannot reach the database|npm run db:migrate/);
    const admin = new pg.Client({ connectionString: rootUrl });
    await admin.connect();
    const exists = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [`${dbName}_none`]);
    await admin.end();
    expect(exists.rowCount).toBe(0);
  }, 120_000);
});
