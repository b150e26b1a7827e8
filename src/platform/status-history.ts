import type { TenantTx } from './db.js';
import { newId } from './ids.js';

/**
 * One row of `lifecycle_status_changes`: the history of the card, SCA factor reset and stablecoin
 * enablement lifecycles, written in the transaction of the move it records.
 */
export async function recordStatusChange(tx: TenantTx, c: { machine: string; resourceId: string; event: string; from: string; to: string; at: Date }): Promise<void> {
  await tx.lifecycleStatusChange.create({
    data: { id: newId('StatusChange'), machine: c.machine, resourceId: c.resourceId, event: c.event, fromStatus: c.from, toStatus: c.to, createdAt: c.at } as any,
  });
}
