import type { Ctx } from '../../deps.js';
import { custodyFor } from '../../adapters/custody/index.js';
import { CustodyError } from '../../adapters/custody/port.js';
import { BadRequestError, ConflictError, RateLimitedError, ValidationError } from '../../platform/errors.js';
import { isUniqueViolation } from '../../platform/db.js';
import { newId } from '../../platform/ids.js';
import type { AuthCredential } from '../../generated/prisma/client.js';
import type { SignatureHeaders } from '../signing/index.js';
import { authFailure, verifyOidcToken, verifyPasskeyRegistration, type PasskeyAttestation } from './credential-proofs.js';
import { getCredential, getWalletAccount, liveCredentials, liveSessions, walletConfigOf } from './wallet.repo.js';
import { newOtpCode, otpHash, passkeyChallengeFor, retryAfterSeconds, type AuthMethodType } from './wallet.model.js';
import { signedWalletAction, walletSigners } from './wallet.service.js';

/**
 * Credentials (REF AuthMethod): adding, listing, revoking, and issuing OTP / passkey challenges.
 * Verification (sessions) is in verify.service.ts.
 */

export type CreateCredentialBody =
  | { type: 'EMAIL_OTP' | 'SMS_OTP'; accountId: string }
  | { type: 'OAUTH'; accountId: string; oidcToken: string }
  | { type: 'PASSKEY'; accountId: string; nickname: string; challenge: string; attestation: PasskeyAttestation };

const ALREADY_EXISTS: Record<string, string> = {
  EMAIL_OTP: 'EMAIL_OTP_CREDENTIAL_ALREADY_EXISTS',
  SMS_OTP: 'SMS_OTP_CREDENTIAL_ALREADY_EXISTS',
  PASSKEY: 'PASSKEY_CREDENTIAL_ALREADY_EXISTS',
};

/** Spec: one EMAIL_OTP and one SMS_OTP per internal account; a passkey once (400 *_ALREADY_EXISTS). */
async function assertCanAdd(ctx: Ctx, body: CreateCredentialBody, customer: { email: string | null; phone: string | null }) {
  const live = await liveCredentials(ctx.db, body.accountId);
  if ((body.type === 'EMAIL_OTP' || body.type === 'SMS_OTP') && live.some((c) => c.type === body.type)) {
    throw new BadRequestError(ALREADY_EXISTS[body.type]!, `The account already has an ${body.type} credential.`);
  }
  if (body.type === 'PASSKEY' && live.some((c) => c.credentialId === body.attestation.credentialId)) {
    throw new BadRequestError('PASSKEY_CREDENTIAL_ALREADY_EXISTS', 'This passkey is already registered on the account.');
  }
  if (body.type === 'EMAIL_OTP' && !customer.email) throw new BadRequestError('INVALID_INPUT', 'The customer has no email address.');
  if (body.type === 'SMS_OTP' && !customer.phone) throw new BadRequestError('INVALID_INPUT', 'The customer has no phone number.');
  if (body.type === 'EMAIL_OTP' && (await ctx.db.authCredential.findFirst({ where: { type: 'EMAIL_OTP', contact: customer.email!.toLowerCase(), revokedAt: null } }))) {
    throw new ConflictError('EMAIL_OTP_EMAIL_ALREADY_EXISTS', 'Another embedded wallet of the platform already uses this email for EMAIL_OTP.');
  }
}

/** The contact of the customer the wallet belongs to (read-only view of the customer row). */
async function contactOf(ctx: Ctx, customerId: string) {
  const c = await ctx.db.customer.findFirst({ where: { id: customerId }, select: { email: true, phoneNumber: true } });
  return { email: c?.email ?? null, phone: c?.phoneNumber ?? null };
}

/**
 * POST /auth/credentials: a signed retry by a live session of the account (none needed while the account
 * has no credential at all). Errors: 400 *_CREDENTIAL_ALREADY_EXISTS, INVALID_INPUT; 401 (proof or signature,
 * `details.reason`); 404; 409 EMAIL_OTP_EMAIL_ALREADY_EXISTS, EMAIL_OTP_CREDENTIAL_SET_CHANGED.
 */
export async function createCredential(ctx: Ctx, body: CreateCredentialBody, headers: SignatureHeaders) {
  const w = await getWalletAccount(ctx, body.accountId);
  const customer = await contactOf(ctx, w.wallet.customerId);
  await assertCanAdd(ctx, body, customer);
  const add = () => insertCredential(ctx, w.wallet.customerId, body, customer);
  if ((await liveCredentials(ctx.db, body.accountId)).length === 0) return { kind: 'DONE' as const, result: await add() };
  return signedWalletAction(ctx, w, { resourceId: body.accountId, action: 'POST /auth/credentials', body }, headers, add);
}

async function proofFields(ctx: Ctx, body: CreateCredentialBody, customer: { email: string | null; phone: string | null }) {
  switch (body.type) {
    case 'EMAIL_OTP':
      return { nickname: customer.email!, contact: customer.email!.toLowerCase() };
    case 'SMS_OTP':
      return { nickname: customer.phone!, contact: customer.phone! };
    case 'OAUTH': {
      const id = await verifyOidcToken(ctx.config, body.oidcToken, ctx.clock.now(), {});
      return { nickname: id.email ?? id.subject, oidcIssuer: id.issuer, oidcAudience: id.audience, oidcSubject: id.subject };
    }
    case 'PASSKEY': {
      const k = await verifyPasskeyRegistration(ctx.config, body.attestation, body.challenge);
      return { nickname: body.nickname, credentialId: k.credentialId, publicKey: k.publicKey, signCount: BigInt(k.counter), transports: body.attestation.transports ?? [] };
    }
  }
}

async function insertCredential(ctx: Ctx, customerId: string, body: CreateCredentialBody, customer: { email: string | null; phone: string | null }) {
  const fields = await proofFields(ctx, body, customer);
  const now = ctx.clock.now();
  let created: AuthCredential;
  try {
    created = await ctx.db.authCredential.create({ data: { id: newId('AuthMethod'), accountId: body.accountId, customerId, type: body.type, ...fields, createdAt: now, updatedAt: now } as any });
  } catch (err) {
    // A concurrent add won the partial unique index: the same answer as the check above.
    if (!isUniqueViolation(err)) throw err;
    if (body.type === 'EMAIL_OTP' && String((err as any)?.meta?.target ?? (err as Error).message).includes('email')) throw new ConflictError('EMAIL_OTP_EMAIL_ALREADY_EXISTS', 'Another embedded wallet of the platform already uses this email for EMAIL_OTP.');
    throw new BadRequestError(ALREADY_EXISTS[body.type] ?? 'CONFLICT', `The account already has this ${body.type} credential.`);
  }
  const w = await getWalletAccount(ctx, body.accountId);
  await custodyFor(ctx).registerCredential({ scope: { platformId: ctx.platformId }, custodyRef: w.wallet.custodyRef, credential: { credentialId: created.id, type: body.type, ...(created.publicKey ? { publicKey: created.publicKey } : {}) } });
  // REF: the OTP is triggered on the signed retry of an OTP credential.
  if (body.type === 'EMAIL_OTP' || body.type === 'SMS_OTP') return { credential: created, otpEncryptionTargetBundle: (await issueOtp(ctx, created)).targetBundle };
  return { credential: created };
}

/** GET /auth/credentials?accountId=. Errors: 404. */
export async function listCredentials(ctx: Ctx, accountId: string): Promise<AuthCredential[]> {
  await getWalletAccount(ctx, accountId);
  return liveCredentials(ctx.db, accountId);
}

/**
 * DELETE /auth/credentials/{id}: signed by a session of a *different* credential; the last credential
 * cannot be revoked. Its sessions end with it. Errors: 400 INVALID_INPUT (last); 401; 404; 409.
 */
export async function revokeCredential(ctx: Ctx, id: string, headers: SignatureHeaders) {
  const credential = await getCredential(ctx, id);
  const w = await getWalletAccount(ctx, credential.accountId);
  if ((await liveCredentials(ctx.db, credential.accountId)).length <= 1) throw new BadRequestError('INVALID_INPUT', 'The last credential of an account cannot be revoked.');
  const base = walletSigners(ctx, w.account.id);
  const signers = {
    ...base,
    allows: async (pk: string) => (await liveSessions(ctx.db, w.account.id, ctx.clock.now())).some((s) => s.publicKey === pk && s.credentialId !== id),
  };
  const target = { resourceId: id, action: 'DELETE /auth/credentials/{id}', body: {} };
  return signedWalletAction(ctx, w, target, headers, async () => {
    const now = ctx.clock.now();
    await ctx.db.$transaction(async (tx) => {
      await tx.authCredential.updateMany({ where: { id, revokedAt: null }, data: { revokedAt: now, updatedAt: now } });
      await tx.authSession.updateMany({ where: { credentialId: id, revokedAt: null }, data: { revokedAt: now } });
    });
    await custodyFor(ctx).revokeCredential({ scope: { platformId: ctx.platformId }, custodyRef: w.wallet.custodyRef, credentialId: id });
    return { type: credential.type as AuthMethodType };
  }, signers);
}

// ------------------------------------------------------------------------------ challenges

/**
 * Rate limit of one credential (Postgres-counted, so every process sees the same count): at most
 * WALLET_CHALLENGE_MAX challenges and WALLET_VERIFY_MAX_ATTEMPTS failed attempts per window. 429 RATE_LIMITED.
 */
export async function assertWithinLimits(ctx: Ctx, credentialId: string, what: 'challenge' | 'verify') {
  const now = ctx.clock.now();
  const windowMs = ctx.config.WALLET_RATE_WINDOW_SECONDS * 1000;
  const recent = await ctx.db.authChallenge.findMany({ where: { credentialId, createdAt: { gt: new Date(now.getTime() - windowMs) } }, select: { createdAt: true, attempts: true } });
  const count = what === 'challenge' ? recent.length : recent.reduce((n, c) => n + c.attempts, 0);
  const max = what === 'challenge' ? ctx.config.WALLET_CHALLENGE_MAX : ctx.config.WALLET_VERIFY_MAX_ATTEMPTS;
  if (count >= max) {
    const times = what === 'challenge' ? recent.map((c) => c.createdAt) : recent.filter((c) => c.attempts > 0).map((c) => c.createdAt);
    throw new RateLimitedError(retryAfterSeconds(times, windowMs, now), 'RATE_LIMITED', `Too many ${what === 'challenge' ? 'challenges' : 'failed attempts'} for this credential; try again later.`);
  }
}

/** A new OTP: stored hashed, its custody target issued, the code sent through the notifier (branded). */
async function issueOtp(ctx: Ctx, credential: AuthCredential) {
  await assertWithinLimits(ctx, credential.id, 'challenge');
  const brand = await walletConfigOf(ctx);
  const now = ctx.clock.now();
  const expiresAt = new Date(now.getTime() + (brand?.expirationSeconds ?? ctx.config.WALLET_OTP_TTL_SECONDS) * 1000);
  const id = newId('AuthChallenge');
  const code = newOtpCode(brand?.otpLength ?? 6, brand?.alphanumeric ?? false, ctx.config.SVC_ENV === 'sandbox');
  const target = await custodyFor(ctx).issueOtpTarget({ scope: { platformId: ctx.platformId }, challengeId: id, expiresAt });
  await ctx.db.authChallenge.create({ data: { id, credentialId: credential.id, kind: 'OTP', secretHash: otpHash(id, code), targetRef: target.targetRef, expiresAt, createdAt: now } as any });
  await ctx.adapters.notifier.sendContactCode({
    customerId: credential.customerId, channel: credential.type === 'SMS_OTP' ? 'phone' : 'email', to: credential.contact ?? credential.nickname, code, expiresAt,
    ...(brand ? { brand } : {}),
  });
  return target;
}

/**
 * POST /auth/credentials/{id}/challenge: a new OTP with its target bundle, or a passkey challenge bound to
 * `clientPublicKey`. Errors: 400 (OAuth; passkey without key); 404; 429 RATE_LIMITED.
 */
export async function challengeCredential(ctx: Ctx, id: string, body: { clientPublicKey?: string }) {
  const credential = await getCredential(ctx, id);
  if (credential.type === 'OAUTH') throw new BadRequestError('INVALID_INPUT', 'OAuth credentials authenticate with POST /auth/credentials/{id}/verify.');
  if (credential.type !== 'PASSKEY') return { kind: 'OTP' as const, credential, otpEncryptionTargetBundle: (await issueOtp(ctx, credential)).targetBundle };
  if (!body.clientPublicKey) throw new ValidationError([{ field: 'clientPublicKey', message: 'Required for a PASSKEY challenge.' }]);
  await assertWithinLimits(ctx, credential.id, 'challenge');
  const now = ctx.clock.now();
  const requestId = newId('Request');
  const challenge = passkeyChallengeFor({ requestId, accountId: credential.accountId, credentialId: credential.id, clientPublicKey: body.clientPublicKey });
  const expiresAt = new Date(now.getTime() + ctx.config.WALLET_OTP_TTL_SECONDS * 1000);
  await ctx.db.authChallenge.create({ data: { id: requestId, credentialId: credential.id, kind: 'PASSKEY', secretHash: challenge, clientPublicKey: body.clientPublicKey, expiresAt, createdAt: now } as any });
  return { kind: 'PASSKEY' as const, credential, challenge, requestId, expiresAt };
}

