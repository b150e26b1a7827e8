import type { AppDeps, Ctx } from '../../deps.js';
import { ctxFor } from '../../deps.js';
import { ConflictError, NotFoundError } from '../../platform/errors.js';
import { IllegalTransitionError, statusColumn, transition } from '../../platform/state-machine.js';
import { invalidatePlatformSettings } from '../platforms/index.js';
import {
  OPERATOR_EVENT_FOR, stablecoinEnablementLifecycle, type StablecoinEnablementEvent, type StablecoinEnablementStatus,
} from './stablecoin.model.js';

export interface StablecoinEnablement {
  status: StablecoinEnablementStatus;
  updatedAt: Date;
}

const platformNotFound = () => new NotFoundError('NOT_FOUND', 'Platform not found.');

async function read(ctx: Ctx): Promise<StablecoinEnablement> {
  const p = await ctx.db.platform.findFirst({ select: { stablecoinEnablementStatus: true, stablecoinEnablementUpdatedAt: true, createdAt: true } });
  if (!p) throw platformNotFound();
  return { status: p.stablecoinEnablementStatus as StablecoinEnablementStatus, updatedAt: p.stablecoinEnablementUpdatedAt ?? p.createdAt };
}

/** GET /stablecoin-enablement: NOT_ENABLED until requested; `updatedAt` is the last change (creation before). */
export const getStablecoinEnablement = read;

const enablementStatus = statusColumn(stablecoinEnablementLifecycle, 'platforms', 'stablecoin_enablement_status', { notFound: platformNotFound });

/** transition() on the platform row (compare-and-set and history row in one statement). */
async function move(ctx: Ctx, event: StablecoinEnablementEvent, current: StablecoinEnablementStatus): Promise<StablecoinEnablement> {
  const moved = await transition(ctx.db, ctx, enablementStatus, event, ctx.platformId, { from: current, set: { stablecoinEnablementUpdatedAt: ctx.clock.now() } });
  await invalidatePlatformSettings(ctx);
  return { status: moved.stablecoinEnablementStatus as StablecoinEnablementStatus, updatedAt: moved.stablecoinEnablementUpdatedAt ?? moved.createdAt };
}

const notRequestable = (status: string) =>
  new ConflictError('STABLECOIN_GRID_ENABLEMENT_NOT_REQUESTABLE', `Enablement can be requested only from NOT_ENABLED; it is ${status}.`, { status });

/**
 * POST /stablecoin-enablement: NOT_ENABLED → PENDING_APPROVAL; while PENDING_APPROVAL a repeat succeeds
 * unchanged. Errors: 409 STABLECOIN_GRID_ENABLEMENT_NOT_REQUESTABLE from any other status (also for a
 * concurrent request that lost the race after the status moved on).
 */
export async function requestStablecoinEnablement(ctx: Ctx): Promise<StablecoinEnablement> {
  const current = await read(ctx);
  if (current.status === 'PENDING_APPROVAL') return current;
  if (current.status !== 'NOT_ENABLED') throw notRequestable(current.status);
  try {
    return await move(ctx, 'request', current.status);
  } catch (err) {
    if (!(err instanceof IllegalTransitionError)) throw err;
    const now = await read(ctx);
    if (now.status === 'PENDING_APPROVAL') return now;
    throw notRequestable(now.status);
  }
}

/** The operator path (CLI): ENABLING, ENABLED or DISABLED. Errors: 404 unknown platform; 409 INVALID_STATE_TRANSITION. */
export async function operatorSetStablecoinEnablement(deps: AppDeps, platformId: string, target: keyof typeof OPERATOR_EVENT_FOR): Promise<StablecoinEnablement> {
  const ctx = ctxFor(deps, platformId);
  const current = await read(ctx);
  return move(ctx, OPERATOR_EVENT_FOR[target], current.status);
}

export function stablecoinEnablementResource(e: StablecoinEnablement) {
  return { status: e.status, updatedAt: e.updatedAt.toISOString() };
}
