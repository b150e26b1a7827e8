import type { Logger } from 'pino';
import type { AppConfig } from './config.js';
import type { PrismaClient, TenantDb } from './platform/db.js';
import { tenantDb } from './platform/db.js';
import type { Redis } from './platform/redis.js';
import type { Queues } from './platform/queue.js';
import type { Clock } from './platform/clock.js';
import type { Signer } from './platform/signing.js';

/** Everything a process wires once (app.ts, worker.ts) and hands to services. */
export interface AppDeps {
  config: AppConfig;
  prisma: PrismaClient;
  redis: Redis;
  queues: Queues;
  clock: Clock;
  signer: Signer;
  logger: Logger;
}

/** A service call on behalf of one platform: `db` cannot reach another platform's rows. */
export interface Ctx extends AppDeps {
  platformId: string;
  db: TenantDb;
}

const cache = new WeakMap<PrismaClient, Map<string, TenantDb>>();
const MAX_CACHED_TENANTS = 1000;

/** Scoped clients are cheap but not free; keep one per platform (process-local, holds no state). */
export function ctxFor(deps: AppDeps, platformId: string): Ctx {
  let byPlatform = cache.get(deps.prisma);
  if (!byPlatform) cache.set(deps.prisma, (byPlatform = new Map()));
  let db = byPlatform.get(platformId);
  if (!db) {
    if (byPlatform.size >= MAX_CACHED_TENANTS) byPlatform.clear();
    db = tenantDb(deps.prisma, platformId);
    byPlatform.set(platformId, db);
  }
  return { ...deps, platformId, db };
}
