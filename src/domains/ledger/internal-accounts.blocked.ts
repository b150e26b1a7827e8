import type { Ctx } from '../../deps.js';
import { ProcessCache, type InvalidationBus } from '../../platform/process-cache.js';

const CACHE = 'blocked-internal-accounts';
const caches = new WeakMap<InvalidationBus, ProcessCache<ReadonlyMap<string, string>>>();

/**
 * The platform's internal accounts that are not ACTIVE (id → status), kept in each process and dropped everywhere when
 * a status changes (setInternalAccountStatus publishes it), like the platform's settings. The money path checks a
 * payment's accounts against it without a statement of its own (issue 12's statement budget); such accounts are few.
 */
export function blockedAccounts(ctx: Ctx): Promise<ReadonlyMap<string, string>> {
  let cache = caches.get(ctx.bus);
  if (!cache) caches.set(ctx.bus, (cache = new ProcessCache(CACHE, ctx.bus, ctx.config.PLATFORM_SETTINGS_MAX_AGE_MS)));
  return cache.get(ctx.platformId, async () => {
    const rows = await ctx.db.internalAccount.findMany({ where: { status: { not: 'ACTIVE' } }, select: { id: true, status: true } });
    return new Map(rows.map((r) => [r.id, r.status]));
  });
}

/** After a commit that changed an account's status. */
export async function invalidateBlockedAccounts(ctx: Pick<Ctx, 'bus' | 'platformId'>): Promise<void> {
  if (!ctx.bus) return;
  caches.get(ctx.bus)?.forget(ctx.platformId);
  await ctx.bus.publish(CACHE, ctx.platformId);
}
