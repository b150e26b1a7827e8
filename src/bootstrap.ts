import pino from 'pino';
import type { AppConfig } from './config.js';
import type { AppDeps } from './deps.js';
import { createPrisma } from './platform/db.js';
import { createRedis, redisConnection } from './platform/redis.js';
import type { ConnectionOptions } from 'bullmq';
import { closeQueues, createQueues } from './platform/queue.js';
import { systemClock } from './platform/clock.js';
import { loadSigner } from './platform/signing.js';
import { assertMigrated } from './platform/schema-check.js';
import { loggerOptions } from './platform/logger.js';
import { ALL_QUEUES } from './modules.js';
import { buildAdapters } from './adapters/registry.js';
import { adapterSinks } from './adapter-sinks.js';
import { InvalidationBus } from './platform/process-cache.js';

/** Opens every connection a process needs. The caller owns them and closes them with closeDeps. */
export async function createDeps(config: AppConfig, name: string): Promise<AppDeps> {
  const logger = pino(loggerOptions(config.LOG_LEVEL, name));
  const prisma = createPrisma(config.DATABASE_URL, { poolMax: config.DATABASE_POOL_MAX, idleTimeoutMs: config.DATABASE_POOL_IDLE_TIMEOUT_MS, txMaxWaitMs: config.DATABASE_TX_MAX_WAIT_MS, txTimeoutMs: config.DATABASE_TX_TIMEOUT_MS, preparedStatements: config.DATABASE_PREPARED_STATEMENTS });
  const redis = createRedis(config, { logger });
  const queues = createQueues(ALL_QUEUES, bullConnection(config), config.REDIS_PREFIX);
  try {
    await assertMigrated(prisma);
    const signer = await loadSigner(prisma, config.WEBHOOK_SIGNING_KEY, config.STANDARD_WEBHOOKS_SECRET);
    return await withAdapters({ config, prisma, redis, queues, clock: systemClock, signer, logger });
  } catch (err) {
    // A misconfigured adapter stops start-up (server.ts/worker.ts print the message); close what is open.
    await closeDeps({ prisma, redis, queues }).catch(() => undefined);
    throw err;
  }
}

/**
 * Builds the adapters (each validating its settings; a problem throws ConfigError) and completes the
 * deps. The adapters' callbacks reach the domains through `deps`, hence the late binding.
 */
export async function withAdapters(base: Omit<AppDeps, 'adapters' | 'bus'>): Promise<AppDeps> {
  const deps = { ...base } as AppDeps;
  deps.bus = new InvalidationBus(base.redis, base.config.REDIS_PREFIX, base.logger);
  await deps.bus.start();
  deps.adapters = await buildAdapters({ ...base, sinks: adapterSinks(() => deps) });
  base.logger.info({ adapters: deps.adapters.summary }, 'adapters ready');
  return deps;
}

/**
 * BullMQ opens its own connections from these options (it needs maxRetriesPerRequest: null); in
 * cluster mode it is given a Cluster (REDIS_MODE, docs/deploy.md "Redis").
 */
export function bullConnection(config: AppConfig): ConnectionOptions {
  return redisConnection(config, true) as ConnectionOptions;
}

export async function closeDeps(deps: Pick<AppDeps, 'prisma' | 'redis' | 'queues'> & { adapters?: AppDeps['adapters']; bus?: AppDeps['bus'] }): Promise<void> {
  await deps.bus?.close();
  await deps.adapters?.close().catch(() => undefined);
  await closeQueues(deps.queues).catch(() => undefined);
  await deps.redis.quit().catch(() => undefined);
  await deps.prisma.$disconnect().catch(() => undefined);
}
