import type { Ctx } from '../../deps.js';
import { ConflictError } from '../../platform/errors.js';
import type { Customer } from '../../generated/prisma/client.js';
import { getConfig } from '../platforms/index.js';
import { getActiveCustomer } from '../customers/index.js';
import { AccountLockedError, isScaCustomer, lockoutFor } from './sca.model.js';

/** Whether SCA applies to this customer (A8). Errors: 404 USER_NOT_FOUND, 410 CUSTOMER_DELETED. */
export async function scaApplies(ctx: Ctx, customer: Customer): Promise<boolean> {
  const { platform } = await getConfig(ctx);
  return isScaCustomer(customer, platform.scaRegion);
}

/**
 * The customer of an SCA endpoint. Errors: 404 USER_NOT_FOUND; 410 CUSTOMER_DELETED; 409 CONFLICT for a customer
 * outside the SCA regions (spec Authentication 4: "SCA endpoints return 409 for them").
 */
export async function getScaCustomer(ctx: Ctx, customerId: string): Promise<Customer> {
  const customer = await getActiveCustomer(ctx, customerId);
  if (!(await scaApplies(ctx, customer))) {
    throw new ConflictError('CONFLICT', 'Strong customer authentication does not apply to this customer (not in an SCA region).', { customerId });
  }
  return customer;
}

// ---------------------------------------------------------------------------------------- lockout

/** Errors: 423 ACCOUNT_LOCKED while locked or suspended. */
export async function assertNotLocked(ctx: Ctx, customerId: string): Promise<void> {
  const row = await ctx.db.scaLockout.findUnique({ where: { platformId_customerId: { platformId: ctx.platformId, customerId } } });
  if (!row) return;
  if (row.suspended || (row.lockedUntil && row.lockedUntil.getTime() > ctx.clock.now().getTime())) {
    throw new AccountLockedError({ lockedUntil: row.lockedUntil?.toISOString() ?? null, failedAttempts: row.failedAttempts, suspended: row.suspended });
  }
}

/**
 * Counts one failed proof (an atomic increment, so concurrent failures all count) and applies the ladder.
 * Returns the 423 to throw when this failure locked the customer, else undefined (the caller answers 400).
 */
export async function recordFailedProof(ctx: Ctx, customerId: string): Promise<AccountLockedError | undefined> {
  const now = ctx.clock.now();
  const [row] = await ctx.prisma.$queryRaw<Array<{ failed_attempts: number }>>`
    INSERT INTO sca_lockouts (platform_id, customer_id, failed_attempts, updated_at) VALUES (${ctx.platformId}, ${customerId}, 1, ${now})
    ON CONFLICT (platform_id, customer_id) DO UPDATE SET failed_attempts = sca_lockouts.failed_attempts + 1, updated_at = EXCLUDED.updated_at
    RETURNING failed_attempts`;
  const failedAttempts = row!.failed_attempts;
  const lock = lockoutFor(failedAttempts, now);
  if (!lock.lockedUntil && !lock.suspended) return undefined;
  await ctx.db.scaLockout.updateMany({ where: { customerId, failedAttempts }, data: { lockedUntil: lock.lockedUntil, suspended: lock.suspended } });
  return new AccountLockedError({ lockedUntil: lock.lockedUntil?.toISOString() ?? null, failedAttempts, suspended: lock.suspended });
}

/** A successful proof clears the count (a suspension is cleared only by a completed factor reset). */
export async function recordSuccessfulProof(ctx: Ctx, customerId: string): Promise<void> {
  await ctx.db.scaLockout.updateMany({ where: { customerId, suspended: false }, data: { failedAttempts: 0, lockedUntil: null, updatedAt: ctx.clock.now() } });
}
