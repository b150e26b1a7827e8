import { randomBytes } from 'node:crypto';
import pg from 'pg';
import pino from 'pino';
import { inject } from 'vitest';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { loadConfig, type AppConfig } from '../../src/config.js';
import { buildApp, type BuildOptions } from '../../src/app.js';
import { createPrisma } from '../../src/platform/db.js';
import { createRedis } from '../../src/platform/redis.js';
import { closeQueues, createQueues } from '../../src/platform/queue.js';
import { loadSigner } from '../../src/platform/signing.js';
import { loggerOptions } from '../../src/platform/logger.js';
import { bullConnection, withAdapters } from '../../src/bootstrap.js';
import { ALL_QUEUES } from '../../src/modules.js';
import type { AppDeps } from '../../src/deps.js';
import { createPlatform, type CreatedPlatform, type CreatePlatformInput } from '../../src/domains/platforms/platforms.service.js';
import { startWorkers, type RunningWorkers } from '../../src/workers.js';
import type { Clock } from '../../src/platform/clock.js';
import { withDatabase } from './global-setup.js';

export const BASE = '/2025-10-13';
/** 32 bytes, base64: the sealing key of production-mode test environments. */
export const TEST_SEALING_KEY = Buffer.alloc(32, 7).toString('base64');

/** A clock tests can move. */
export class TestClock implements Clock {
  private offsetMs = 0;
  now(): Date {
    return new Date(Date.now() + this.offsetMs);
  }
  advance(ms: number): void {
    this.offsetMs += ms;
  }
}

export interface TestEnv {
  app: FastifyInstance;
  deps: AppDeps;
  config: AppConfig;
  clock: TestClock;
  databaseUrl: string;
  /** Creates a platform and returns its credentials. */
  platform(input?: Partial<CreatePlatformInput>): Promise<TestPlatform>;
  startWorkers(): RunningWorkers;
  close(): Promise<void>;
}

export interface TestPlatform extends CreatedPlatform {
  auth: string;
  request(opts: InjectOptions & { url: string }): Promise<LightMyRequestResponse>;
}

/**
 * A fresh database cloned from the migrated template and a private Redis key prefix, so test
 * files never see each other's rows, queues or caches.
 */
export async function createTestEnv(
  env: Record<string, string> = {},
  opts: BuildOptions & {
    logStream?: { write(s: string): void };
    /** Clone this template instead of the suite's (issue 29: test/helpers/partitioned-db.ts). */
    templateDb?: string;
    /** ALTER DATABASE … SET before the first connection (e.g. partitioned-db.ts's AUTO_EXPLAIN_SETTINGS). */
    databaseSettings?: Record<string, string>;
  } = {},
): Promise<TestEnv> {
  const suffix = randomBytes(5).toString('hex');
  const dbName = `svc_t_${Math.floor(Date.now() / 1000)}_${suffix}`;
  const rootUrl = inject('databaseDirectUrl');
  const admin = new pg.Client({ connectionString: rootUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${dbName}" TEMPLATE "${opts.templateDb ?? inject('templateDb')}"`);
  for (const [k, v] of Object.entries(opts.databaseSettings ?? {})) await admin.query(`ALTER DATABASE "${dbName}" SET ${k} = ${pg.escapeLiteral(v)}`);
  await admin.end();
  // The app's connections go where DATABASE_URL says (PgBouncer in CI's pooled run); creating and
  // dropping databases always goes directly.
  const databaseUrl = withDatabase(inject('databaseUrl'), dbName);
  const config = loadConfig({
    DATABASE_URL: databaseUrl,
    DATABASE_DIRECT_URL: withDatabase(rootUrl, dbName),
    REDIS_URL: inject('redisUrl'),
    REDIS_PREFIX: `t_${suffix}`,
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    DATABASE_POOL_MAX: '5',
    WEBHOOK_RETRY_BASE_MS: '50',
    WEBHOOK_RETRY_MAX_MS: '400',
    WEBHOOK_TIMEOUT_MS: '2000',
    OUTBOX_RELAY_INTERVAL_MS: '50',
    // Issue 26 (26a): pay-in coordinates open by a worker loop and announce themselves; tests of other features would
    // see those events at unpredictable times. Tests of pay-ins ask for the sandbox bank (COLLECTION_PROVIDER=sandbox).
    COLLECTION_PROVIDER: 'none',
    // Through PgBouncer < 1.21 (.ci/pgbouncer-tests): no named prepared statements.
    ...(process.env.DATABASE_PREPARED_STATEMENTS ? { DATABASE_PREPARED_STATEMENTS: process.env.DATABASE_PREPARED_STATEMENTS } : {}),
    // Production refuses to start without a sealing key (issue 14); tests that run production get a fixed one.
    ...(env.SVC_ENV === 'production' ? { EXTERNAL_ACCOUNT_ENCRYPTION_KEY: TEST_SEALING_KEY } : {}),
    ...env,
  });
  const clock = new TestClock();
  const prisma = createPrisma(config.DATABASE_URL, { poolMax: config.DATABASE_POOL_MAX, txMaxWaitMs: config.DATABASE_TX_MAX_WAIT_MS, txTimeoutMs: config.DATABASE_TX_TIMEOUT_MS, preparedStatements: config.DATABASE_PREPARED_STATEMENTS });
  const redis = createRedis(config.REDIS_URL);
  const queues = createQueues(ALL_QUEUES, bullConnection(config), config.REDIS_PREFIX);
  const signer = await loadSigner(prisma, config.WEBHOOK_SIGNING_KEY, config.STANDARD_WEBHOOKS_SECRET);
  const logger = opts.logStream ? pino(loggerOptions(config.LOG_LEVEL, 'test'), opts.logStream) : pino(loggerOptions(config.LOG_LEVEL, 'test'));
  const deps: AppDeps = await withAdapters({ config, prisma, redis, queues, clock, signer, logger });
  const app = await buildApp(deps, opts);
  await app.ready();
  const running: RunningWorkers[] = [];
  return {
    app,
    deps,
    config,
    clock,
    databaseUrl,
    async platform(input = {}) {
      const created = await createPlatform(prisma, { name: `Test ${randomBytes(3).toString('hex')}`, ...input });
      const auth = `Basic ${Buffer.from(`${created.clientId}:${created.clientSecret}`).toString('base64')}`;
      return {
        ...created,
        auth,
        request: (opts) => app.inject({ ...opts, url: opts.url.startsWith('/') && !opts.url.startsWith(BASE) && !opts.url.startsWith('/healthz') ? `${BASE}${opts.url}` : opts.url, headers: { authorization: auth, ...(opts.headers ?? {}) } }),
      };
    },
    startWorkers() {
      const w = startWorkers(deps);
      running.push(w);
      return w;
    },
    async close() {
      for (const w of running) await w.close().catch(() => undefined);
      await app.close();
      await deps.bus.close();
      await deps.adapters.close();
      const keys = [...(await redis.keys(`${config.REDIS_PREFIX}:*`)), ...(await redis.keys(`{${config.REDIS_PREFIX}}:*`))];
      if (keys.length) await redis.del(...keys);
      await closeQueues(queues);
      await redis.quit();
      await prisma.$disconnect();
      const drop = new pg.Client({ connectionString: rootUrl });
      await drop.connect();
      await drop.query(`DROP DATABASE IF EXISTS "${dbName}" WITH (FORCE)`).catch(() => undefined);
      await drop.end();
    },
  };
}

/** Polls until `check` returns a truthy value (queued work is asynchronous); fails after timeoutMs. */
export async function eventually<T>(check: () => Promise<T | undefined | null | false>, timeoutMs = 10_000, stepMs = 25): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await check();
      if (v) return v;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms${last ? `: ${String(last)}` : ''}`);
    await new Promise((r) => setTimeout(r, stepMs));
  }
}
