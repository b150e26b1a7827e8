import type { Ctx } from '../../deps.js';
import { ConflictError, NotImplementedError, ValidationError } from '../../platform/errors.js';
import { newId } from '../../platform/ids.js';
import type { Customer } from '../../generated/prisma/client.js';
import { assertNotLocked, getScaCustomer, recordFailedProof, recordSuccessfulProof, scaApplies } from './sca.customers.js';
import { activeTotp, consumeTotpCode } from './factors.service.js';
import { checkSmsChallenge, issueSmsChallenge } from './challenges.js';

/** SCA login (decisions A15, B§6.5): a proof by SMS_OTP or TOTP opens a session of SCA_SESSION_TTL_DAYS. */

export interface LoginStart {
  factor: 'SMS_OTP' | 'TOTP';
  challengeId?: string;
  expiresAt?: string;
}

/**
 * POST /sca/login/start {factor}. SMS_OTP sends a code (sandbox 123456) and names the challenge; TOTP needs
 * an enrolled authenticator and sends nothing. Errors: 400 (no phone number / no TOTP enrolled), 404, 409,
 * 410, 423 ACCOUNT_LOCKED, 501 PASSKEY.
 */
export async function startLogin(ctx: Ctx, customerId: string, factor: 'SMS_OTP' | 'TOTP' | 'PASSKEY'): Promise<LoginStart> {
  const customer = await getScaCustomer(ctx, customerId);
  await assertNotLocked(ctx, customerId);
  if (factor === 'PASSKEY') throw new NotImplementedError('Passkeys are not available yet; use SMS_OTP or TOTP.');
  if (factor === 'TOTP') {
    if (!(await activeTotp(ctx, customerId))) throw new ValidationError([{ field: 'factor', message: 'No TOTP authenticator is enrolled for this customer.' }]);
    return { factor };
  }
  const challenge = await issueSmsChallenge(ctx, customer, { purpose: 'LOGIN', quoteId: null, availableFactors: ['SMS_OTP'] });
  return { factor, challengeId: challenge.id, expiresAt: challenge.expiresAt.toISOString() };
}

export interface LoginCompleteInput {
  factor: 'SMS_OTP' | 'TOTP' | 'PASSKEY';
  endUserIpAddress: string;
  challengeId?: string;
  code?: string;
}

/**
 * POST /sca/login/complete. A valid proof opens a session; a wrong one counts towards the lockout ladder
 * (400, or 423 ACCOUNT_LOCKED when it locks). Errors: 400, 404, 409, 410, 423, 501 PASSKEY.
 */
export async function completeLogin(ctx: Ctx, customerId: string, input: LoginCompleteInput): Promise<{ status: 'SUCCESS'; sessionExpiresAt: string }> {
  await getScaCustomer(ctx, customerId);
  await assertNotLocked(ctx, customerId);
  if (input.factor === 'PASSKEY') throw new NotImplementedError('Passkeys are not available yet; use SMS_OTP or TOTP.');
  if (!input.code) throw new ValidationError([{ field: 'code', message: 'Required.' }]);
  const ok = input.factor === 'TOTP'
    ? await consumeTotpCode(ctx, customerId, input.code)
    : await checkSmsChallenge(ctx, customerId, { purpose: 'LOGIN', challengeId: input.challengeId, code: input.code });
  if (!ok) {
    const locked = await recordFailedProof(ctx, customerId);
    if (locked) throw locked;
    throw new ValidationError([{ field: 'code', message: 'The code is wrong or expired.' }]);
  }
  await recordSuccessfulProof(ctx, customerId);
  const now = ctx.clock.now();
  const expiresAt = new Date(now.getTime() + ctx.config.SCA_SESSION_TTL_DAYS * 86_400_000);
  await ctx.db.scaSession.create({ data: { id: newId('ScaSession'), customerId, factor: input.factor, endUserIpAddress: input.endUserIpAddress, expiresAt, createdAt: now } as any });
  return { status: 'SUCCESS', sessionExpiresAt: expiresAt.toISOString() };
}

/** The customer holds an unexpired, unrevoked session. */
export async function hasLiveSession(ctx: Ctx, customerId: string): Promise<boolean> {
  const live = await ctx.db.scaSession.findFirst({ where: { customerId, revokedAt: null, expiresAt: { gt: ctx.clock.now() } }, select: { id: true } });
  return live !== null;
}

export const scaSessionRequired = (customerId: string) =>
  new ConflictError('SCA_SESSION_REQUIRED', 'The customer needs a live SCA session for money movement; complete /sca/login and retry.', { customerId });

/**
 * Spec Authentication 4, for money movement from a customer's account: true when SCA applies (and a live
 * session exists), false for customers outside SCA regions and for platform-owned sources.
 * Errors: 409 SCA_SESSION_REQUIRED when SCA applies and no session is live.
 */
export async function requireScaSession(ctx: Ctx, customer: Customer | string | null): Promise<boolean> {
  if (!customer) return false;
  const c = typeof customer === 'string' ? await ctx.db.customer.findFirst({ where: { id: customer } }) : customer;
  if (!c || !(await scaApplies(ctx, c))) return false;
  if (!(await hasLiveSession(ctx, c.id))) throw scaSessionRequired(c.id);
  return true;
}

/** A completed factor reset ends every session: the old factor may have been in other hands. */
export async function revokeSessions(ctx: Ctx, customerId: string): Promise<void> {
  await ctx.db.scaSession.updateMany({ where: { customerId, revokedAt: null }, data: { revokedAt: ctx.clock.now() } });
}
