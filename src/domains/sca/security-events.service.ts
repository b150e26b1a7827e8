import type { Ctx } from '../../deps.js';
import { getScaCustomer, recordFailedProof } from './sca.customers.js';
import { revokeSessions } from './login.service.js';

/** REF RecordSecurityEventRequest.eventType. */
export const SECURITY_EVENT_TYPES = ['RESET_PASSWORD_COMPLETED', 'FAILED_LOGIN_ATTEMPT'] as const;
export type SecurityEventType = (typeof SECURITY_EVENT_TYPES)[number];

/** REF RecordSecurityEventResponse: the customer's login-security state after the event. */
export interface LoginSecurityState {
  eventType: SecurityEventType;
  suspended: boolean;
  lockedUntil: string | null;
  failedAttempts: number;
}

/**
 * POST /sca/record-event (REF): a client-side security event fed into the SCA lockout this service already keeps.
 *   FAILED_LOGIN_ATTEMPT      counts like a wrong SCA proof (one atomic increment) and climbs the same ladder:
 *                             5 → 15 min, 6 → 30 min, 7 → 1 h, 8 → 24 h, 9+ → suspended.
 *   RESET_PASSWORD_COMPLETED  ends every SCA session of the customer and clears the count, the lock and a suspension.
 * Recorded events always answer 200 with the resulting state (a lock included), so the integrator can show it; the
 * lock itself is enforced where the customer next proves a factor (423 ACCOUNT_LOCKED there).
 * Errors: 400 INVALID_INPUT; 404 USER_NOT_FOUND; 409 CONFLICT (customer outside the SCA regions); 410 CUSTOMER_DELETED.
 */
export async function recordSecurityEvent(ctx: Ctx, customerId: string, eventType: SecurityEventType): Promise<LoginSecurityState> {
  const customer = await getScaCustomer(ctx, customerId);
  if (eventType === 'FAILED_LOGIN_ATTEMPT') {
    await recordFailedProof(ctx, customer.id);
  } else {
    await revokeSessions(ctx, customer.id);
    await ctx.db.scaLockout.updateMany({ where: { customerId: customer.id }, data: { failedAttempts: 0, lockedUntil: null, suspended: false, updatedAt: ctx.clock.now() } });
  }
  return { eventType, ...(await loginSecurityState(ctx, customer.id)) };
}

async function loginSecurityState(ctx: Ctx, customerId: string): Promise<Omit<LoginSecurityState, 'eventType'>> {
  const row = await ctx.db.scaLockout.findUnique({ where: { platformId_customerId: { platformId: ctx.platformId, customerId } } });
  if (!row) return { suspended: false, lockedUntil: null, failedAttempts: 0 };
  const locked = !row.suspended && row.lockedUntil && row.lockedUntil.getTime() > ctx.clock.now().getTime();
  return { suspended: row.suspended, lockedUntil: locked ? row.lockedUntil!.toISOString() : null, failedAttempts: row.failedAttempts };
}
