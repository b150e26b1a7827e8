import { parseArgs } from 'node:util';
import pino from 'pino';
import { loadConfig } from '../config.js';
import type { AppDeps } from '../deps.js';
import { createPrisma } from '../platform/db.js';
import { systemClock } from '../platform/clock.js';
import { createRedis } from '../platform/redis.js';
import { InvalidationBus } from '../platform/process-cache.js';
import { setDailyVolumeLimit } from '../domains/limits/index.js';

/**
 * npm run daily-volume:limit -- --platform Platform:<uuid> --corridor USD:EUR --limit 5000000   (minor units of the sending currency)
 * npm run daily-volume:limit -- --platform Platform:<uuid> --corridor USD:USD --clear
 * The operator's per-platform, per-corridor daily volume limit (issue 25, REF 429 DAILY_VOLUME_LIMIT_EXCEEDED). A
 * same-currency corridor (USD:USD) limits withdrawals (POST /transfer-out) in that currency.
 */
async function main() {
  const { values } = parseArgs({ options: { platform: { type: 'string' }, corridor: { type: 'string' }, limit: { type: 'string' }, clear: { type: 'boolean' } } });
  const [sending, receiving] = (values.corridor ?? '').toUpperCase().split(':');
  if (!values.platform) throw new Error('--platform is required');
  if (!sending || !receiving) throw new Error('--corridor must be SENDING:RECEIVING, e.g. USD:EUR');
  if (!values.clear && !/^\d+$/.test(values.limit ?? '')) throw new Error('--limit must be a whole number of minor units (or give --clear)');
  const config = loadConfig();
  const prisma = createPrisma(config.DATABASE_URL, 2);
  // Redis only to tell the running processes to drop their copies (they also expire after PLATFORM_SETTINGS_MAX_AGE_MS).
  const redis = createRedis(config.REDIS_URL);
  const logger = pino({ level: 'warn' });
  try {
    const deps = { config, prisma, redis, clock: systemClock, logger, bus: new InvalidationBus(redis, config.REDIS_PREFIX, logger) } as unknown as AppDeps;
    const v = await setDailyVolumeLimit(deps, values.platform, sending, receiving, values.clear ? null : BigInt(values.limit!));
    console.log(`${values.platform} ${v.sendingCurrency}:${v.receivingCurrency} limit ${v.limit ?? 'none'}, used today ${v.usedToday}`);
  } finally {
    await prisma.$disconnect();
    redis.disconnect();
  }
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
