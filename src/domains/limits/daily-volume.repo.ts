import type { Ctx } from '../../deps.js';
import type { VolumeClaim } from './daily-volume.model.js';

export interface Reservation {
  /** The corridor's limit; null: the platform set none, and nothing was counted. */
  limit: bigint | null;
  /** The day's volume before this claim, as the statement's snapshot saw it (for the error's details). */
  usedBefore: bigint;
  /** Whether the claim was counted (it fits under the limit). */
  counted: boolean;
}

/**
 * Counts `claim` on the corridor's `day` when it fits under the limit, in one statement: the conditional upsert takes
 * the usage row's lock and re-checks the sum on the row's latest version, so however many executions race, together
 * they never pass more than the limit, and every one that fits passes. The limit travels in the proposed row
 * (`EXCLUDED.limit_amount`, read by the statement from `daily_volume_limits`): Citus refuses a subquery in the
 * ON CONFLICT's WHERE (issue 29, 29f), and the row then keeps the limit it was counted against (its CHECK).
 */
export async function reserveVolume(ctx: Ctx, claim: VolumeClaim, day: string): Promise<Reservation> {
  const { sendingCurrency: s, receivingCurrency: r, amount } = claim;
  const p = ctx.platformId;
  const [row] = await ctx.db.$queryRaw<Array<{ limit_amount: bigint | null; used_before: bigint | null; used_after: bigint | null }>>`
    WITH lim AS (
      SELECT limit_amount FROM daily_volume_limits WHERE platform_id = ${p} AND sending_currency = ${s} AND receiving_currency = ${r}
    ), up AS (
      INSERT INTO daily_volume_usage (platform_id, sending_currency, receiving_currency, day, used_amount, limit_amount)
      SELECT ${p}, ${s}, ${r}, ${day}::date, ${amount}::bigint, lim.limit_amount FROM lim WHERE ${amount}::bigint <= lim.limit_amount
      ON CONFLICT (platform_id, sending_currency, receiving_currency, day) DO UPDATE
        SET used_amount = daily_volume_usage.used_amount + EXCLUDED.used_amount, limit_amount = EXCLUDED.limit_amount
        WHERE daily_volume_usage.used_amount + EXCLUDED.used_amount <= EXCLUDED.limit_amount
      RETURNING used_amount
    )
    SELECT (SELECT limit_amount FROM lim) AS limit_amount,
           (SELECT used_amount FROM daily_volume_usage WHERE platform_id = ${p} AND sending_currency = ${s} AND receiving_currency = ${r} AND day = ${day}::date) AS used_before,
           (SELECT used_amount FROM up) AS used_after`;
  const limit = row?.limit_amount ?? null;
  return { limit: limit === null ? null : BigInt(limit), usedBefore: BigInt(row?.used_before ?? 0), counted: limit !== null && row?.used_after !== null };
}

/** Gives back a counted claim whose execution failed (never below zero). */
export async function releaseVolume(ctx: Ctx, claim: VolumeClaim, day: string): Promise<void> {
  await ctx.db.$executeRaw`
    UPDATE daily_volume_usage SET used_amount = GREATEST(used_amount - ${claim.amount}::bigint, 0)
     WHERE platform_id = ${ctx.platformId} AND sending_currency = ${claim.sendingCurrency} AND receiving_currency = ${claim.receivingCurrency} AND day = ${day}::date`;
}

/** The day's counted volume of a corridor (0 when nothing executed). */
export async function usedVolume(ctx: Ctx, sendingCurrency: string, receivingCurrency: string, day: string): Promise<bigint> {
  const [row] = await ctx.db.$queryRaw<Array<{ used_amount: bigint }>>`
    SELECT used_amount FROM daily_volume_usage
     WHERE platform_id = ${ctx.platformId} AND sending_currency = ${sendingCurrency} AND receiving_currency = ${receivingCurrency} AND day = ${day}::date`;
  return BigInt(row?.used_amount ?? 0);
}
