import { parseArgs } from 'node:util';
import pino from 'pino';
import { loadConfig } from '../config.js';
import type { AppDeps } from '../deps.js';
import { createPrisma } from '../platform/db.js';
import { systemClock } from '../platform/clock.js';
import { createRedis } from '../platform/redis.js';
import { InvalidationBus } from '../platform/process-cache.js';
import { operatorSetStablecoinEnablement } from '../domains/stablecoin/stablecoin.service.js';

/**
 * npm run stablecoin:set -- --platform Platform:<uuid> --status ENABLING|ENABLED|DISABLED
 * The operator's moves of the stablecoin enablement status (decision A16): platforms can only request it.
 */
const TARGETS = ['ENABLING', 'ENABLED', 'DISABLED'] as const;

async function main() {
  const { values } = parseArgs({ options: { platform: { type: 'string' }, status: { type: 'string' } } });
  if (!values.platform) throw new Error('--platform is required');
  const status = TARGETS.find((t) => t === values.status);
  if (!status) throw new Error(`--status must be one of: ${TARGETS.join(', ')}`);
  const config = loadConfig();
  const prisma = createPrisma(config.DATABASE_URL, 2);
  const redis = createRedis(config.REDIS_URL);
  try {
    // The database, the clock and the config, and Redis only to tell running processes that the
    // platform's settings changed (they drop their cached copy).
    const logger = pino({ level: 'warn' });
    const deps = { config, prisma, redis, clock: systemClock, logger, bus: new InvalidationBus(redis, config.REDIS_PREFIX, logger) } as unknown as AppDeps;
    const result = await operatorSetStablecoinEnablement(deps, values.platform, status);
    console.log(`${values.platform}: ${result.status}`);
  } finally {
    await redis.quit().catch(() => redis.disconnect());
    await prisma.$disconnect();
  }
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
