import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import pg from 'pg';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import { withDatabase } from '../helpers/global-setup.js';
import { ROOT, startBuiltApi, startBuiltWorker, type ApiProcess, type ServiceProcess } from '../helpers/built-processes.js';

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
    const admin = new pg.Client({ connectionString: rootUrl });
    await admin.connect();
    await admin.query(`CREATE DATABASE "${dbName}" TEMPLATE "${inject('templateDb')}"`);
    await admin.end();
    env = { DATABASE_URL: withDatabase(rootUrl, dbName), REDIS_URL: inject('redisUrl'), REDIS_PREFIX: prefix, LOG_LEVEL: 'info', DATABASE_POOL_MAX: '3' };
  });

  afterAll(async () => {
    const redis = new Redis(inject('redisUrl'));
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length) await redis.del(...keys);
    await redis.quit();
    const admin = new pg.Client({ connectionString: rootUrl });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS "${dbName}" WITH (FORCE)`).catch(() => undefined);
    await admin.end();
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
