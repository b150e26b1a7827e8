import { parseArgs } from 'node:util';
import pino from 'pino';
import { loadConfig } from '../config.js';
import type { AppDeps } from '../deps.js';
import { createPrisma } from '../platform/db.js';
import { systemClock } from '../platform/clock.js';
import { createRedis } from '../platform/redis.js';
import { InvalidationBus } from '../platform/process-cache.js';
import { operatorSetInternalAccountStatus } from '../domains/ledger/index.js';

/**
 * npm run internal-account:status -- --account InternalAccount:<uuid> --status FROZEN|ACTIVE|CLOSED|FAILED [--reason "…"] [--platform Platform:<uuid>]
 * The operator's freeze, unfreeze and close of an internal account (issue 25, REF InternalAccountStatus). FROZEN and
 * CLOSED accounts neither send nor receive; CLOSED needs an empty account. Emits INTERNAL_ACCOUNT.STATUS_UPDATED like
 * every status change; the worker delivers it. The reason is kept in the status history, never sent. --platform
 * (issue 29) reads the account by its key on one shard; without it the account is looked for across platforms.
 */
const TARGETS = ['ACTIVE', 'FROZEN', 'CLOSED', 'FAILED'] as const;

async function main() {
  const { values } = parseArgs({ options: { account: { type: 'string' }, status: { type: 'string' }, reason: { type: 'string' }, platform: { type: 'string' } } });
  const target = TARGETS.find((t) => t === values.status?.toUpperCase());
  if (!values.account) throw new Error('--account is required (an InternalAccount id)');
  if (!target) throw new Error(`--status must be one of: ${TARGETS.join(', ')}`);
  const config = loadConfig();
  const prisma = createPrisma(config.DATABASE_URL, 2);
  // Redis only to tell the running processes to drop their copies (they also expire after PLATFORM_SETTINGS_MAX_AGE_MS).
  const redis = createRedis(config.REDIS_URL);
  const logger = pino({ level: 'warn' });
  try {
    const deps = { config, prisma, redis, clock: systemClock, logger, bus: new InvalidationBus(redis, config.REDIS_PREFIX, logger) } as unknown as AppDeps;
    const account = await operatorSetInternalAccountStatus(deps, values.account, target, values.reason, values.platform);
    console.log(`${account.id}: ${account.status}`);
  } finally {
    await prisma.$disconnect();
    redis.disconnect();
  }
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
