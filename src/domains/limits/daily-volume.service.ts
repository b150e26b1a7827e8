import type { AppDeps, Ctx } from '../../deps.js';
import { ctxFor } from '../../deps.js';
import { ValidationError } from '../../platform/errors.js';
import { isKnownCurrency } from '../../platform/currencies.js';
import { DailyVolumeLimitExceededError, utcDay, type VolumeClaim } from './daily-volume.model.js';
import { releaseVolume, reserveVolume, usedVolume } from './daily-volume.repo.js';
import { ProcessCache, type InvalidationBus } from '../../platform/process-cache.js';

const CACHE = 'daily-volume-limits';
const caches = new WeakMap<InvalidationBus, ProcessCache<ReadonlySet<string>>>();
const corridorKey = (sending: string, receiving: string) => `${sending}:${receiving}`;

/** The corridors of the platform that have a limit, per process; dropped everywhere when the operator changes one. */
function corridorLimits(ctx: Ctx): Promise<ReadonlySet<string>> {
  let cache = caches.get(ctx.bus);
  if (!cache) caches.set(ctx.bus, (cache = new ProcessCache(CACHE, ctx.bus, ctx.config.PLATFORM_SETTINGS_MAX_AGE_MS)));
  return cache.get(ctx.platformId, async () => new Set((await ctx.db.dailyVolumeLimit.findMany({ select: { sendingCurrency: true, receivingCurrency: true } })).map((l) => corridorKey(l.sendingCurrency, l.receivingCurrency))));
}

async function invalidateCorridorLimits(ctx: Pick<Ctx, 'bus' | 'platformId'>): Promise<void> {
  if (!ctx.bus) return;
  caches.get(ctx.bus)?.forget(ctx.platformId);
  await ctx.bus.publish(CACHE, ctx.platformId);
}

/**
 * The money path's daily-volume check (hook:25b; REF 429 DAILY_VOLUME_LIMIT_EXCEEDED on POST /quotes with
 * `immediatelyExecute`, POST /quotes/{id}/execute and POST /transfer-out). Counts `claim` on today's volume of its
 * corridor before `work` moves the money, and gives it back if `work` fails, so only executions that happened stay
 * counted. A claim of null (a quote not executed now) or a corridor without a limit runs `work` unchecked.
 * A crash between the count and the give-back leaves the claim counted: the limit errs on refusing, never on passing.
 * Errors: 429 DAILY_VOLUME_LIMIT_EXCEEDED (with Retry-After: the next UTC midnight), and whatever `work` throws.
 */
export async function withinDailyVolume<T>(ctx: Ctx, claim: VolumeClaim | null | undefined, work: () => Promise<T>): Promise<T> {
  if (!claim || claim.amount <= 0n) {
    // A quote is usually executed next: load the copy of the limits now (once per PLATFORM_SETTINGS_MAX_AGE_MS and
    // process) so the execution, the money path's budgeted part (issue 12), spends no statement on it.
    if (ctx.bus?.live) await corridorLimits(ctx);
    return work();
  }
  // The process's copy of the platform's limits spares the money path a statement when the corridor has none.
  if (ctx.bus?.live && !(await corridorLimits(ctx)).has(corridorKey(claim.sendingCurrency, claim.receivingCurrency))) return work();
  const now = ctx.clock.now();
  const day = utcDay(now);
  const reservation = await reserveVolume(ctx, claim, day);
  if (reservation.limit === null) return work();
  if (!reservation.counted) throw new DailyVolumeLimitExceededError(claim, reservation.limit, reservation.usedBefore, now);
  try {
    return await work();
  } catch (err) {
    await releaseVolume(ctx, claim, day).catch((releaseErr) => ctx.logger.error({ err: releaseErr }, 'daily volume: could not give back a failed execution\'s claim'));
    throw err;
  }
}

/** A quote's claim: its total sending amount in its corridor. */
export const volumeClaimOf = (q: { sendingCurrency: string; receivingCurrency: string; totalSendingAmount: bigint }): VolumeClaim => ({
  sendingCurrency: q.sendingCurrency,
  receivingCurrency: q.receivingCurrency,
  amount: q.totalSendingAmount,
});

export interface DailyVolumeLimitView {
  sendingCurrency: string;
  receivingCurrency: string;
  limit: bigint | null;
  usedToday: bigint;
}

/**
 * The operator's setting (npm run daily-volume:limit): `limit` in minor units of the sending currency, null removes
 * the limit. Errors: 400 INVALID_INPUT (unknown currency, negative limit).
 */
export async function setDailyVolumeLimit(deps: AppDeps, platformId: string, sendingCurrency: string, receivingCurrency: string, limit: bigint | null): Promise<DailyVolumeLimitView> {
  const bad = [['sendingCurrency', sendingCurrency], ['receivingCurrency', receivingCurrency]].filter(([, c]) => !isKnownCurrency(c!));
  if (bad.length) throw new ValidationError(bad.map(([field]) => ({ field: field!, message: 'Unknown currency.' })));
  if (limit !== null && limit < 0n) throw new ValidationError([{ field: 'limit', message: 'Must be zero or more.' }]);
  const ctx = ctxFor(deps, platformId);
  const key = { platformId_sendingCurrency_receivingCurrency: { platformId, sendingCurrency, receivingCurrency } };
  if (limit === null) await ctx.db.dailyVolumeLimit.deleteMany({ where: { sendingCurrency, receivingCurrency } });
  else await ctx.db.dailyVolumeLimit.upsert({ where: key, create: { sendingCurrency, receivingCurrency, limitAmount: limit } as never, update: { limitAmount: limit, updatedAt: deps.clock.now() } });
  await invalidateCorridorLimits(ctx);
  return { sendingCurrency, receivingCurrency, limit, usedToday: await usedVolume(ctx, sendingCurrency, receivingCurrency, utcDay(deps.clock.now())) };
}
