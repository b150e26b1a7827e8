import type { AppDeps } from '../../deps.js';
import { ctxFor } from '../../deps.js';
import { refreshOperation } from './operations.service.js';
import { reverifyProviderAccount } from './provider-accounts.service.js';
import { perPlatformGroup } from '../../platform/platform-groups.js';

/*
 * The issuance loops (run by the worker, src/platform/module.ts): bounded sweeps over every platform, each
 * item through the same service function a request or a webhook uses, so a repeated or concurrent sweep
 * changes nothing twice (every move is a compare-and-set).
 */

/** Operations whose next provider check is due: read again (and moved) through refreshOperation. */
export async function reconcileOperations(deps: AppDeps): Promise<number> {
  // Without an issuer nothing can be asked (and due rows would stay due): the sweep waits for one.
  if (!deps.adapters.stablecoinIssuer) return 0;
  // Issue 29 (29a): per platform group, each read on one shard.
  return perPlatformGroup(deps.prisma, 'stablecoin_operations', async (platforms) => {
    const due = await deps.prisma.stablecoinOperation.findMany({
      where: { platformId: { in: platforms }, nextCheckAt: { lte: deps.clock.now() }, status: { in: ['CREATED', 'PENDING_FUNDING', 'PENDING_PROVIDER', 'PROCESSING'] } },
      select: { id: true, platformId: true },
      orderBy: { nextCheckAt: 'asc' },
      take: deps.config.STABLECOIN_RECONCILE_BATCH,
    });
    for (const op of due) await refreshOperation(deps, op.platformId, op.id);
    return due.length;
  });
}

/** PENDING_FUNDING operations past expiresAt: EXPIRED (refreshOperation expires before it asks the provider). */
export async function expireOperations(deps: AppDeps): Promise<number> {
  // Issue 29 (29a): per platform group, each read on one shard.
  return perPlatformGroup(deps.prisma, 'stablecoin_operations', async (platforms) => {
    const due = await deps.prisma.stablecoinOperation.findMany({
      where: { platformId: { in: platforms }, status: 'PENDING_FUNDING', expiresAt: { lte: deps.clock.now() } },
      select: { id: true, platformId: true },
      orderBy: { expiresAt: 'asc' },
      take: deps.config.STABLECOIN_RECONCILE_BATCH,
    });
    let moved = 0;
    for (const op of due) if (await refreshOperation(deps, op.platformId, op.id)) moved += 1;
    return moved;
  });
}

/** Links due for a credential check: ACTIVE or INVALID ones; a refusal makes them INVALID or REVOKED. */
export async function reverifyCredentials(deps: AppDeps): Promise<number> {
  if (!deps.adapters.stablecoinIssuer) return 0;
  // Issue 29 (29a): per platform group, each read on one shard.
  return perPlatformGroup(deps.prisma, 'stablecoin_provider_accounts', async (platforms) => {
    const due = await deps.prisma.stablecoinProviderAccount.findMany({
      where: { platformId: { in: platforms }, nextVerifyAt: { lte: deps.clock.now() }, status: { in: ['ACTIVE', 'INVALID'] } },
      orderBy: { nextVerifyAt: 'asc' },
      take: deps.config.STABLECOIN_RECONCILE_BATCH,
    });
    let checked = 0;
    for (const link of due) if (await reverifyProviderAccount(deps, ctxFor(deps, link.platformId), link)) checked += 1;
    return checked;
  });
}
