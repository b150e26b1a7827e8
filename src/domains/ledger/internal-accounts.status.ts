import type { AppDeps, Ctx } from '../../deps.js';
import { ctxFor } from '../../deps.js';
import { Prisma, type InternalAccount } from '../../generated/prisma/client.js';
import { ConflictError, NotFoundError, ValidationError } from '../../platform/errors.js';
import type { TenantTx } from '../../platform/db.js';
import { IllegalTransitionError, statusColumn, transition } from '../../platform/state-machine.js';
import { internalAccountResource } from './internal-accounts.resource.js';
import { blockedAccounts, invalidateBlockedAccounts } from './internal-accounts.blocked.js';
import { canMoveMoney, eventTowards, internalAccountLifecycle, type InternalAccountStatus } from './internal-accounts.model.js';

const accountStatus = statusColumn(internalAccountLifecycle, 'internal_accounts', 'status', {
  notFound: () => new NotFoundError('NOT_FOUND', 'Internal account not found.'),
});

/**
 * Moves an account to `target` through the one transition(), announcing INTERNAL_ACCOUNT.STATUS_UPDATED with the
 * full account (REF's payload). Closing needs an empty account (nothing available, nothing held): money is never
 * stranded on a CLOSED account. Errors: 404 NOT_FOUND; 409 INVALID_STATE_TRANSITION (no move from the current status,
 * or a concurrent move won), 409 CONFLICT (closing an account that still holds money).
 */
export async function setInternalAccountStatus(ctx: Ctx, id: string, target: InternalAccountStatus, reason?: string): Promise<InternalAccount> {
  const current = await ctx.db.internalAccount.findFirst({ where: { id } });
  if (!current) throw new NotFoundError('NOT_FOUND', 'Internal account not found.');
  const event = eventTowards(current.status, target);
  if (!event) throw new IllegalTransitionError(internalAccountLifecycle, `become ${target}`, current.status, id);
  const emptyOnly = target === 'CLOSED' ? Prisma.sql`available_balance = 0 AND held_balance = 0` : undefined;
  const moved = await ctx.db.$transaction((tx) =>
    transition(tx, ctx, accountStatus, event, id, {
      from: current.status,
      ...(emptyOnly ? { where: emptyOnly } : {}),
      reason: reason ?? null,
      events: (row) => ({ type: 'INTERNAL_ACCOUNT.STATUS_UPDATED', data: internalAccountResource(row) }),
      onMiss: (now) =>
        now && target === 'CLOSED' && now.status === current.status && (now.availableBalance !== 0n || now.heldBalance !== 0n)
          ? new ConflictError('CONFLICT', 'The internal account still holds money; move it out before closing the account.', {
              accountId: id, balance: Number(now.availableBalance), heldBalance: Number(now.heldBalance),
            })
          : undefined,
    }),
  );
  await invalidateBlockedAccounts(ctx);
  return moved;
}

/** The operator's move (npm run internal-account:status): the account's own platform, found from its id. Errors as setInternalAccountStatus. */
export async function operatorSetInternalAccountStatus(deps: AppDeps, id: string, target: InternalAccountStatus, reason?: string, platformId?: string): Promise<InternalAccount> {
  // Issue 29 (29a): the operator names the platform (--platform) and the account is read by its key; without
  // it, one read across platforms finds it (an operator's rare move: on Citus a read of every shard, no lock).
  const row = await deps.prisma.internalAccount.findFirst({ where: { id, ...(platformId ? { platformId } : {}) }, select: { platformId: true } });
  if (!row) throw new NotFoundError('NOT_FOUND', 'Internal account not found.');
  return setInternalAccountStatus(ctxFor(deps, row.platformId), id, target, reason);
}

/** One side of a movement: the internal account it touches (null: not an internal account) and the request field naming it. */
export interface MovingAccount {
  accountId: string | null | undefined;
  field: string;
}

/**
 * The pre-movement check of every money path (hook:25b): an account that is not ACTIVE neither sends nor receives
 * (REF InternalAccountStatus). Checked against the process's copy of the platform's non-ACTIVE accounts (no statement;
 * a status change drops the copy on every process); without the invalidation channel, one read of the touched accounts,
 * in the caller's transaction when it passes one (`db`): a read on another connection from inside a transaction could
 * wait for the pool that transaction holds.
 * Errors: 400 INVALID_INPUT naming the field and the account's status (the same answer POST /quotes gives).
 */
export async function assertAccountsCanMove(ctx: Ctx, sides: readonly MovingAccount[], db: Pick<TenantTx, 'internalAccount'> = ctx.db): Promise<void> {
  const ids = sides.map((s) => s.accountId).filter((id): id is string => !!id && id.startsWith('InternalAccount:'));
  if (ids.length === 0) return;
  const rows = ctx.bus?.live
    ? [...(await blockedAccounts(ctx))].filter(([id]) => ids.includes(id)).map(([id, status]) => ({ id, status }))
    : await db.internalAccount.findMany({ where: { id: { in: ids } }, select: { id: true, status: true } });
  const blocked = rows.filter((r) => !canMoveMoney(r.status));
  if (blocked.length === 0) return;
  throw new ValidationError(
    blocked.map((r) => {
      const side = sides.find((s) => s.accountId === r.id)!;
      return { field: side.field, message: `The internal account ${r.id} is ${r.status}: it can neither send nor receive money.` };
    }),
  );
}
