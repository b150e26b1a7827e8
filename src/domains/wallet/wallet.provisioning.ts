import type { AppDeps, Ctx } from '../../deps.js';
import { ctxFor } from '../../deps.js';
import type { TenantTx } from '../../platform/db.js';
import { EMBEDDED_WALLET, WALLET_CURRENCY } from './wallet.model.js';
import { openEmbeddedWallet } from './wallet.service.js';
import { perPlatformGroup } from '../../platform/platform-groups.js';

/**
 * EMBEDDED_WALLET accounts owed to customers who existed before their platform turned Global Accounts on
 * (issue 28, anchor 28b). PATCH /config records what is owed in its own transaction (`recordOwedWallets`);
 * the worker's sweep opens them (`sweepOwedWallets`), each under the account id recorded with it, so a
 * retried or concurrent attempt opens one wallet. Postgres is the record: a lost worker or Redis loses nothing.
 */

/**
 * In PATCH /config's transaction: one owed row per customer without a wallet, when the platform now has
 * both USDB and an embeddedWalletConfig. Idempotent (one row per customer). Returns how many were added.
 */
export async function recordOwedWallets(ctx: Ctx, tx: TenantTx): Promise<number> {
  return tx.$executeRaw`
    INSERT INTO "embedded_wallet_provisions" ("id", "platform_id", "customer_id", "due_at", "created_at")
    SELECT 'InternalAccount:' || gen_random_uuid(), c.platform_id, c.id, ${ctx.clock.now()}, ${ctx.clock.now()}
      FROM "customers" c
     WHERE c.platform_id = ${ctx.platformId} AND NOT c.is_deleted
       AND EXISTS (SELECT 1 FROM "platform_currencies" pc WHERE pc.platform_id = c.platform_id AND pc.currency_code = ${WALLET_CURRENCY})
       AND EXISTS (SELECT 1 FROM "embedded_wallet_configs" w WHERE w.platform_id = c.platform_id)
       AND NOT EXISTS (SELECT 1 FROM "internal_accounts" a WHERE a.platform_id = c.platform_id AND a.customer_id = c.id AND a.type = ${EMBEDDED_WALLET})
    ON CONFLICT ("platform_id", "customer_id") DO NOTHING`;
}

interface OwedRow {
  id: string;
  platform_id: string;
  customer_id: string;
}

/**
 * One pass of the sweep: claims up to `batch` due rows (a lease: due again after WALLET_SWEEP_LEASE_MS,
 * so a worker killed mid-row leaves it to the next pass), opens each wallet, marks it done. A failure
 * leaves the row due after the lease with its error. Returns how many rows it claimed.
 */
export async function sweepOwedWallets(deps: AppDeps, batch = deps.config.WALLET_SWEEP_BATCH): Promise<number> {
  const now = deps.clock.now();
  // Issue 29 (29a): one claim per platform group, each on one shard.
  return perPlatformGroup(deps.prisma, 'embedded_wallet_provisions', async (platforms) => {
    const claimed = await deps.prisma.$queryRaw<OwedRow[]>`
      UPDATE "embedded_wallet_provisions" SET "due_at" = ${new Date(now.getTime() + deps.config.WALLET_SWEEP_LEASE_MS)}, "attempts" = "attempts" + 1
       WHERE "platform_id" = ANY(${platforms}) AND ("platform_id", "id") IN (SELECT "platform_id", "id" FROM "embedded_wallet_provisions"
              WHERE "platform_id" = ANY(${platforms}) AND "done_at" IS NULL AND "due_at" <= ${now} ORDER BY "due_at" LIMIT ${batch} FOR UPDATE SKIP LOCKED)
      RETURNING "id", "platform_id", "customer_id"`;
    for (const row of claimed) await provisionOwed(deps, row);
    return claimed.length;
  });
}

async function provisionOwed(deps: AppDeps, row: OwedRow): Promise<void> {
  const ctx = ctxFor(deps, row.platform_id);
  try {
    const customer = await ctx.db.customer.findFirst({ where: { id: row.customer_id }, select: { id: true, email: true, isDeleted: true } });
    if (customer && !customer.isDeleted) await openEmbeddedWallet(ctx, customer, row.id);
    await ctx.db.embeddedWalletProvision.updateMany({ where: { id: row.id }, data: { doneAt: ctx.clock.now(), lastError: null } });
  } catch (err) {
    ctx.logger.warn({ err, provisionId: row.id }, 'embedded wallet provisioning failed; due again after the lease');
    await ctx.db.embeddedWalletProvision.updateMany({ where: { id: row.id }, data: { lastError: (err as Error).message.slice(0, 500) } });
  }
}
