import pino from 'pino';
import { loadConfig } from '../config.js';
import type { AppDeps } from '../deps.js';
import { createPrisma } from '../platform/db.js';
import { systemClock } from '../platform/clock.js';
import { createRedis } from '../platform/redis.js';
import { InvalidationBus } from '../platform/process-cache.js';
import { platformUuid } from '../platform/ids.js';

/**
 * The deps an operator command needs: the database, the clock, the config and a quiet logger, and with
 * `bus` Redis only to tell the running processes to drop their cached copies (they also expire after
 * PLATFORM_SETTINGS_MAX_AGE_MS). Connections are closed when `body` settles.
 */
export async function withOperatorDeps<T>(opts: { bus: boolean }, body: (deps: AppDeps) => Promise<T>): Promise<T> {
  const config = loadConfig();
  const prisma = createPrisma(config.DATABASE_URL, 2);
  const redis = opts.bus ? createRedis(config.REDIS_URL) : undefined;
  const logger = pino({ level: 'warn' });
  try {
    const bus = redis ? { redis, bus: new InvalidationBus(redis, config.REDIS_PREFIX, logger) } : {};
    return await body({ config, prisma, clock: systemClock, logger, ...bus } as unknown as AppDeps);
  } finally {
    if (redis) await redis.quit().catch(() => redis.disconnect());
    await prisma.$disconnect();
  }
}

/** Runs a command's main: a failure prints its message (as `describe` words it) and exits 1. */
export function runCommand(main: () => Promise<void>, describe: (err: Error) => string = (err) => err.message): void {
  main().catch((err) => {
    console.error(err instanceof Error ? describe(err) : err);
    process.exit(1);
  });
}

/** `--platform Platform:<uuid>` (or the bare uuid) as the platform's key; a missing one is `required`'s error, a malformed one always one. */
export function platformOption(value: string | undefined, required: true): string;
export function platformOption(value: string | undefined, required: false): string | undefined;
export function platformOption(value: string | undefined, required: boolean): string | undefined {
  if (value === undefined) {
    if (required) throw new Error('--platform is required');
    return undefined;
  }
  const id = platformUuid(value);
  if (!id) throw new Error(`--platform: expected Platform:<uuid>, got ${JSON.stringify(value)}`);
  return id;
}
