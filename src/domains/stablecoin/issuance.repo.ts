import type { Ctx } from '../../deps.js';
import type { StablecoinOperation } from '../../generated/prisma/client.js';
import type { TenantTx } from '../../platform/db.js';
import { NotFoundError } from '../../platform/errors.js';
import { statusColumn, transition, tryTransition, type SetColumns } from '../../platform/state-machine.js';
import { operationLifecycle, type OperationEvent } from './issuance.model.js';
import { syncLookups } from '../../platform/tenant-lookups.js';

export const operationNotFound = () => new NotFoundError('NOT_FOUND', 'Stablecoin operation not found.');
const operationStatus = statusColumn(operationLifecycle, 'stablecoin_operations', 'status', { notFound: () => operationNotFound() });

type Db = TenantTx | Ctx['db'];

/** Writes a new operation in CREATED (the first status of REF's lifecycle); its first move follows in the same transaction. */
export async function insertOperation(tx: TenantTx, row: Record<string, unknown>): Promise<StablecoinOperation> {
  const created = await tx.stablecoinOperation.create({ data: row as never });
  await syncLookups(tx, 'stablecoin_operations', null, created);
  return created;
}

/**
 * The one way an operation's status changes: transition() on stablecoin_operations.status (compare-and-set
 * on the table's `from`, a status_changes row). REF publishes no stablecoin webhook event (clients poll),
 * so a move announces nothing. `lenient`: a move that lost a race returns null instead of raising (jobs).
 */
export async function moveOperation(
  ctx: Ctx,
  tx: Db,
  op: StablecoinOperation,
  event: OperationEvent,
  set: SetColumns<StablecoinOperation>,
  lenient = true,
): Promise<StablecoinOperation | null> {
  const opts = { from: op.status, set, reason: typeof set.failureReason === 'string' ? set.failureReason : null };
  if (lenient) return tryTransition(tx, ctx, operationStatus, event, op.id, { set, reason: opts.reason });
  return transition(tx, ctx, operationStatus, event, op.id, opts);
}
