import { createHmac, randomBytes, randomInt, timingSafeEqual } from 'node:crypto';
import type { Ctx } from '../../deps.js';
import { BadRequestError, ConflictError } from '../../platform/errors.js';
import type { ChannelState, ContactChannel } from './customers.model.js';
import { getActiveCustomer, getCustomer, moveChannel } from './customers.service.js';
import type { CustomerView } from './customers.resource.js';

/** Decision A2: the documented sandbox code. */
export const SANDBOX_CONTACT_CODE = '123456';

const DB_CHANNEL = { email: 'EMAIL', phone: 'PHONE' } as const;

function hashCode(code: string, salt: string): string {
  return `${salt}$${createHmac('sha256', salt).update(code).digest('hex')}`;
}

function codeMatches(code: string, stored: string): boolean {
  const [salt] = stored.split('$');
  const a = Buffer.from(hashCode(code, salt ?? ''));
  const b = Buffer.from(stored);
  return a.length === b.length && timingSafeEqual(a, b);
}

function channelState(c: { emailVerification: string | null; phoneVerification: string | null }, channel: ContactChannel): ChannelState {
  return (channel === 'email' ? c.emailVerification : c.phoneVerification) as ChannelState;
}

function assertOpenChannel(state: ChannelState, channel: ContactChannel): void {
  if (state === null) throw new ConflictError('CONFLICT', `This customer's region does not require ${channel} verification.`);
  if (state === 'VERIFIED') throw new ConflictError('CONFLICT', `The customer's ${channel} is already verified.`);
}

/**
 * POST /customers/{id}/verify-email | verify-phone: issues a fresh one-time code (replacing any
 * earlier one) and hands it to the notifier. Only a salted hash is stored. Errors: 404, 410,
 * 409 CONFLICT when the channel is not required or already verified.
 */
export async function sendContactCode(ctx: Ctx, customerId: string, channel: ContactChannel): Promise<void> {
  const c = await getActiveCustomer(ctx, customerId);
  assertOpenChannel(channelState(c, channel), channel);
  const to = channel === 'email' ? c.email : c.phoneNumber;
  if (!to) throw new ConflictError('CONFLICT', `The customer has no ${channel === 'email' ? 'email' : 'phoneNumber'} to verify.`);
  const code = ctx.config.SVC_ENV === 'sandbox' ? SANDBOX_CONTACT_CODE : String(randomInt(0, 1_000_000)).padStart(6, '0');
  const now = ctx.clock.now();
  const expiresAt = new Date(now.getTime() + ctx.config.CONTACT_CODE_TTL_SECONDS * 1000);
  const codeHash = hashCode(code, randomBytes(16).toString('hex'));
  const key = { platformId_customerId_channel: { platformId: ctx.platformId, customerId, channel: DB_CHANNEL[channel] } };
  await ctx.db.contactVerificationCode.upsert({
    where: key,
    create: { customerId, channel: DB_CHANNEL[channel], codeHash, attempts: 0, expiresAt, createdAt: now } as any,
    update: { codeHash, attempts: 0, expiresAt, createdAt: now },
  });
  // After the commit: a notifier is never called inside a database transaction.
  await ctx.adapters.notifier.sendContactCode({ customerId, channel, to, code, expiresAt });
}

const badCode = (message: string, details: Record<string, unknown> = {}) =>
  new BadRequestError('INVALID_INPUT', message, { errors: [{ field: 'code', message }], ...details });

/**
 * POST /customers/{id}/verify-email/confirm | verify-phone/confirm. A right code moves the channel
 * PENDING → VERIFIED and is used up. Errors: 400 INVALID_INPUT (wrong, expired, none issued, or
 * attempts exhausted: CONTACT_CODE_MAX_ATTEMPTS wrong tries burn the code), 404, 409, 410.
 */
export async function confirmContactCode(ctx: Ctx, customerId: string, channel: ContactChannel, code: string): Promise<CustomerView> {
  const c = await getActiveCustomer(ctx, customerId);
  assertOpenChannel(channelState(c, channel), channel);
  const key = { platformId_customerId_channel: { platformId: ctx.platformId, customerId, channel: DB_CHANNEL[channel] } };
  const row = await ctx.db.contactVerificationCode.findUnique({ where: key });
  const now = ctx.clock.now();
  const max = ctx.config.CONTACT_CODE_MAX_ATTEMPTS;
  if (!row) throw badCode('No code was sent for this channel; request one first.');
  if (row.expiresAt <= now) throw badCode('The code has expired; request a new one.');
  if (row.attempts >= max) throw badCode('Too many wrong attempts; request a new code.', { attemptsRemaining: 0 });
  if (!codeMatches(code, row.codeHash)) {
    // Counted with a guard, so parallel guesses cannot exceed the limit.
    const res = await ctx.db.contactVerificationCode.updateMany({
      where: { customerId, channel: DB_CHANNEL[channel], codeHash: row.codeHash, attempts: { lt: max } },
      data: { attempts: { increment: 1 } },
    });
    const remaining = res.count === 1 ? Math.max(0, max - row.attempts - 1) : 0;
    throw badCode(remaining > 0 ? 'The code is wrong.' : 'The code is wrong; no attempts remain, request a new code.', { attemptsRemaining: remaining });
  }
  await ctx.db.$transaction(async (tx) => {
    const used = await tx.contactVerificationCode.deleteMany({ where: { customerId, channel: DB_CHANNEL[channel], codeHash: row.codeHash } });
    if (used.count !== 1) throw badCode('The code was already used; request a new one.');
    await moveChannel(ctx, tx, c, channel, 'confirm', now);
  });
  return getCustomer(ctx, customerId);
}

/** Spec: kyc-link is refused while any present contact channel is not VERIFIED. */
export function unverifiedChannels(c: { emailVerification: string | null; phoneVerification: string | null }): ContactChannel[] {
  return (['email', 'phone'] as const).filter((ch) => channelState(c, ch) === 'PENDING');
}
