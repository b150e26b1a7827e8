import type { AppDeps } from '../../deps.js';
import { receiveCollectionCredit } from './credits.service.js';

/**
 * Reconciliation by polling (issue 26 item 1): the provider is asked for the credits it received after the
 * stored cursor, each is taken through the same entry as a pushed one (a credit already pushed is a
 * DUPLICATE), and the cursor advances only past a page taken whole — a failure re-reads the page next time.
 */
export async function pollCredits(deps: AppDeps): Promise<number> {
  const adapter = deps.adapters.collection;
  if (!adapter) return 0;
  const stored = await deps.prisma.collectionPollCursor.findUnique({ where: { adapterId: adapter.id } });
  const page = await adapter.listCredits({ ...(stored ? { cursor: stored.cursor } : {}), limit: deps.config.COLLECTION_SWEEP_BATCH });
  for (const credit of page.credits) await receiveCollectionCredit(deps, adapter.id, credit);
  if (page.nextCursor !== stored?.cursor) {
    const now = deps.clock.now();
    await deps.prisma.collectionPollCursor.upsert({ where: { adapterId: adapter.id }, create: { adapterId: adapter.id, cursor: page.nextCursor, updatedAt: now }, update: { cursor: page.nextCursor, updatedAt: now } });
  }
  return page.credits.length;
}
