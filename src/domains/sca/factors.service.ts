import type { Ctx } from '../../deps.js';
import { ConflictError, NotFoundError, NotImplementedError, ValidationError } from '../../platform/errors.js';
import { newId } from '../../platform/ids.js';
import { getScaCustomer } from './sca.customers.js';
import { statusColumn, tryTransition } from '../../platform/state-machine.js';
import { matchTotp, newRecoveryCodes, newTotpSecret, scaFactorLifecycle, totpUri } from './sca.model.js';

/** Factor enrollment (decisions A15, B§6.5). SMS_OTP is implicit (the customer's phone) and never enrolled. */

export interface TotpEnrollment {
  type: 'TOTP';
  secret: string;
  secretBase32Encoded: string;
  totpUri: string;
}

const factorStatus = statusColumn(scaFactorLifecycle, 'sca_factors', 'status');

const passkeysNotImplemented = () => new NotImplementedError('Passkeys are not available yet; enroll TOTP or use SMS_OTP.');

/**
 * POST /sca/factors {type}. TOTP: a new secret (replacing a half-done enrollment), confirmed by
 * /sca/factors/confirm. Errors: 404, 409 (outside SCA; TOTP already enrolled), 410, 501 PASSKEY.
 */
export async function startFactorEnrollment(ctx: Ctx, customerId: string, type: 'TOTP' | 'PASSKEY'): Promise<TotpEnrollment> {
  const customer = await getScaCustomer(ctx, customerId);
  if (type === 'PASSKEY') throw passkeysNotImplemented();
  const existing = await ctx.db.scaFactor.findUnique({ where: { platformId_customerId_type: { platformId: ctx.platformId, customerId, type } } });
  if (existing?.status === 'ACTIVE') throw new ConflictError('CONFLICT', 'TOTP is already enrolled; delete it or reset it first.', { credentialId: existing.id });
  const secret = newTotpSecret();
  const now = ctx.clock.now();
  await ctx.db.scaFactor.upsert({
    where: { platformId_customerId_type: { platformId: ctx.platformId, customerId, type } },
    create: { id: newId('ScaFactor'), customerId, type, status: 'PENDING', secret, createdAt: now } as any,
    update: { id: newId('ScaFactor'), status: 'PENDING', secret, lastUsedStep: null, recoveryCodes: [], confirmedAt: null, createdAt: now },
  });
  const platform = await ctx.db.platform.findFirstOrThrow({ select: { name: true } });
  return { type: 'TOTP', secret, secretBase32Encoded: secret, totpUri: totpUri(secret, customer.email ?? customer.platformCustomerId, platform.name) };
}

/**
 * POST /sca/factors/confirm {type: TOTP, secret, code}: the first valid code activates the factor and
 * returns ten recovery codes, once. Errors: 400 (no pending enrollment with this secret, wrong code), 404,
 * 409, 410, 501 PASSKEY.
 */
export async function confirmFactorEnrollment(ctx: Ctx, customerId: string, input: { type: 'TOTP' | 'PASSKEY'; secret?: string; code?: string }): Promise<{ type: 'TOTP'; recoveryCodes: string[] }> {
  await getScaCustomer(ctx, customerId);
  if (input.type === 'PASSKEY') throw passkeysNotImplemented();
  const pending = await ctx.db.scaFactor.findUnique({ where: { platformId_customerId_type: { platformId: ctx.platformId, customerId, type: 'TOTP' } } });
  if (!pending || pending.status !== 'PENDING' || pending.secret !== input.secret) {
    throw new ValidationError([{ field: 'secret', message: 'No pending TOTP enrollment with this secret; call POST /sca/factors first.' }]);
  }
  const now = ctx.clock.now();
  const step = matchTotp(pending.secret, input.code ?? '', now);
  if (step === null) throw new ValidationError([{ field: 'code', message: 'Not a current code of this secret.' }]);
  const { codes, hashes } = newRecoveryCodes();
  const done = await tryTransition(ctx.db, ctx, factorStatus, 'confirm', pending.id, { set: { confirmedAt: now, lastUsedStep: BigInt(step), recoveryCodes: hashes } });
  if (!done) throw new ConflictError('CONFLICT', 'The enrollment was confirmed or replaced meanwhile.');
  return { type: 'TOTP', recoveryCodes: codes };
}

export interface FactorView {
  factor: 'SMS_OTP' | 'TOTP' | 'PASSKEY';
  credentialId?: string;
  name?: string;
}

/** GET /sca/factors: SMS_OTP when the customer has a phone number, plus every ACTIVE enrolled factor. */
export async function listFactors(ctx: Ctx, customerId: string): Promise<FactorView[]> {
  const customer = await getScaCustomer(ctx, customerId);
  const enrolled = await ctx.db.scaFactor.findMany({ where: { customerId, status: 'ACTIVE' }, orderBy: { id: 'asc' } });
  return [
    ...(customer.phoneNumber ? [{ factor: 'SMS_OTP' as const }] : []),
    ...enrolled.map((f) => ({ factor: f.type as 'TOTP' | 'PASSKEY', credentialId: f.id, name: f.type === 'TOTP' ? 'Authenticator app' : 'Passkey' })),
  ];
}

/** DELETE /sca/factors/{credentialId}. Errors: 404 (no such factor of this customer), 409, 410. */
export async function deleteFactor(ctx: Ctx, customerId: string, credentialId: string): Promise<void> {
  await getScaCustomer(ctx, customerId);
  const deleted = await ctx.db.scaFactor.deleteMany({ where: { id: credentialId, customerId } });
  if (deleted.count !== 1) throw new NotFoundError('NOT_FOUND', 'SCA factor not found.');
}

/** The customer's ACTIVE TOTP factor, if any. */
export async function activeTotp(ctx: Ctx, customerId: string) {
  const f = await ctx.db.scaFactor.findUnique({ where: { platformId_customerId_type: { platformId: ctx.platformId, customerId, type: 'TOTP' } } });
  return f?.status === 'ACTIVE' ? f : null;
}

/**
 * Checks a TOTP code and records its time step with a compare-and-set, so one code is accepted once even
 * under concurrent use. Returns false for a wrong, stale or replayed code.
 */
export async function consumeTotpCode(ctx: Ctx, customerId: string, code: string): Promise<boolean> {
  const f = await activeTotp(ctx, customerId);
  if (!f) return false;
  const step = matchTotp(f.secret, code, ctx.clock.now());
  if (step === null) return false;
  const used = await ctx.db.scaFactor.updateMany({
    where: { id: f.id, status: 'ACTIVE', OR: [{ lastUsedStep: null }, { lastUsedStep: { lt: BigInt(step) } }] },
    data: { lastUsedStep: BigInt(step) },
  });
  return used.count === 1;
}
