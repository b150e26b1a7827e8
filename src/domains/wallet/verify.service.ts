import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { Ctx } from '../../deps.js';
import { custodyFor } from '../../adapters/custody/index.js';
import { CustodyError } from '../../adapters/custody/port.js';
import { BadRequestError } from '../../platform/errors.js';
import type { AuthChallenge, AuthCredential } from '../../generated/prisma/client.js';
import {
  consumeSignedChallenge, hasSignatureHeaders, issueSignedChallenge, verifySignedRetry,
  type SignatureHeaders, type SignedTarget,
} from '../signing/index.js';
import { authFailure, verifyOidcToken, verifyPasskeyAssertion, type PasskeyAssertion } from './credential-proofs.js';
import { assertWithinLimits } from './credentials.service.js';
import { openSession } from './sessions.service.js';
import { getCredential } from './wallet.repo.js';
import { otpHash } from './wallet.model.js';
import { createHash } from 'node:crypto';

/**
 * POST /auth/credentials/{id}/verify (REF): OTP in two legs — the HPKE-sealed attempt answers 202 with a
 * `verificationToken` bound to the client key sealed in it, and the retry stamped by that key opens the
 * session — while OAuth and passkey answer the session at once. Failed proofs count towards the
 * credential's rate limit and answer 401 with `details.reason`.
 */

export type VerifyBody =
  | { type: 'EMAIL_OTP' | 'SMS_OTP'; encryptedOtpBundle: string }
  | { type: 'OAUTH'; oidcToken: string; clientPublicKey: string }
  | { type: 'PASSKEY'; assertion: PasskeyAssertion };

const ACTION = 'POST /auth/credentials/{id}/verify';
const sameText = (a: string, b: string) => a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));

export async function verifyCredential(ctx: Ctx, id: string, body: VerifyBody, headers: SignatureHeaders) {
  const credential = await getCredential(ctx, id);
  if (body.type !== credential.type) throw new BadRequestError('INVALID_INPUT', `The credential is ${credential.type}; send type ${credential.type}.`);
  if (body.type === 'OAUTH') return { kind: 'SESSION' as const, ...(await verifyOauth(ctx, credential, body)) };
  if (body.type === 'PASSKEY') return { kind: 'SESSION' as const, ...(await verifyPasskey(ctx, credential, body.assertion, headers)) };
  return hasSignatureHeaders(headers) ? { kind: 'SESSION' as const, ...(await completeOtp(ctx, credential, body, headers)) } : { kind: 'CHALLENGE' as const, ...(await openOtp(ctx, credential, body)) };
}

async function failedAttempt(ctx: Ctx, challengeId: string) {
  await ctx.db.authChallenge.updateMany({ where: { id: challengeId }, data: { attempts: { increment: 1 } } });
}

/** The newest live challenge of the credential of `kind`. */
async function liveChallenge(ctx: Ctx, credentialId: string, kind: string): Promise<AuthChallenge> {
  const c = await ctx.db.authChallenge.findFirst({ where: { credentialId, kind, usedAt: null, expiresAt: { gt: ctx.clock.now() } }, orderBy: { createdAt: 'desc' } });
  if (!c) throw authFailure('CHALLENGE_EXPIRED', 'No live challenge: call POST /auth/credentials/{id}/challenge first.');
  return c;
}

/** The OTP's retry may be signed only by the key sealed with the code (REF's TEK). */
function tekSigner(boundKey: string): SignedTarget['signers'] {
  return { setHash: async () => `tek:${boundKey}`, allows: async (pk) => pk === boundKey };
}

const otpTarget = (credential: AuthCredential, body: VerifyBody, boundKey: string, token?: string): SignedTarget => ({
  customerId: credential.customerId, resourceId: credential.id, action: ACTION, body, signers: tekSigner(boundKey),
  ...(token ? { payloadExtra: { verificationToken: token, publicKey: boundKey } } : {}),
});

async function openOtp(ctx: Ctx, credential: AuthCredential, body: VerifyBody & { encryptedOtpBundle: string }) {
  await assertWithinLimits(ctx, credential.id, 'verify');
  const challenge = await liveChallenge(ctx, credential.id, 'OTP');
  let attempt;
  try {
    attempt = await custodyFor(ctx).openOtpAttempt({ scope: { platformId: ctx.platformId }, targetRef: challenge.targetRef!, encryptedOtpBundle: body.encryptedOtpBundle });
  } catch (err) {
    if (!(err instanceof CustodyError) || err.retryable) throw err;
    await failedAttempt(ctx, challenge.id);
    throw authFailure('OTP_BUNDLE_INVALID', 'encryptedOtpBundle does not open with the current OTP target.');
  }
  if (!challenge.secretHash || !sameText(otpHash(challenge.id, attempt.otpCode), challenge.secretHash)) {
    await failedAttempt(ctx, challenge.id);
    throw authFailure('OTP_CODE_INVALID', 'Invalid OTP code');
  }
  const used = await ctx.db.authChallenge.updateMany({ where: { id: challenge.id, usedAt: null }, data: { usedAt: ctx.clock.now(), clientPublicKey: attempt.publicKey } });
  if (used.count !== 1) throw authFailure('CHALLENGE_USED', 'The OTP was already used.');
  const token = createHash('sha256').update(`${challenge.id}:${attempt.publicKey}:${randomBytes(16).toString('hex')}`).digest('hex');
  const signed = await issueSignedChallenge(ctx, otpTarget(credential, body, attempt.publicKey, token));
  return { challenge: signed, type: credential.type };
}

async function completeOtp(ctx: Ctx, credential: AuthCredential, body: VerifyBody, headers: SignatureHeaders) {
  const pending = headers.requestId ? await ctx.db.signedRequest.findFirst({ where: { id: headers.requestId } }) : null;
  let boundKey = '';
  try {
    boundKey = pending ? String(JSON.parse(pending.payloadToSign).publicKey ?? '') : '';
  } catch {
    boundKey = '';
  }
  const requestId = await verifySignedRetry(ctx, otpTarget(credential, body, boundKey), headers);
  await ctx.db.$transaction((tx) => consumeSignedChallenge(ctx, tx, requestId));
  return { credential, session: await openSession(ctx, credential, boundKey) };
}

async function verifyOauth(ctx: Ctx, credential: AuthCredential, body: { oidcToken: string; clientPublicKey: string }) {
  await assertWithinLimits(ctx, credential.id, 'verify');
  const identity = { issuer: credential.oidcIssuer!, audience: credential.oidcAudience!, subject: credential.oidcSubject! };
  await verifyOidcToken(ctx.config, body.oidcToken, ctx.clock.now(), { identity, clientPublicKey: body.clientPublicKey });
  return { credential, session: await openSession(ctx, credential, body.clientPublicKey) };
}

/** The assertion is checked against the challenge named by Request-Id (single use), then the counter moves on. */
async function verifyPasskey(ctx: Ctx, credential: AuthCredential, assertion: PasskeyAssertion, headers: SignatureHeaders) {
  await assertWithinLimits(ctx, credential.id, 'verify');
  if (!headers.requestId) throw authFailure('REQUEST_ID_MISSING', 'Echo the requestId of POST /auth/credentials/{id}/challenge in Request-Id.');
  const c = await ctx.db.authChallenge.findFirst({ where: { id: headers.requestId } });
  if (!c || c.credentialId !== credential.id || c.kind !== 'PASSKEY') throw authFailure('CHALLENGE_UNKNOWN', 'Request-Id names no passkey challenge of this credential.');
  if (c.usedAt) throw authFailure('CHALLENGE_USED', 'The passkey challenge was already used.');
  if (c.expiresAt <= ctx.clock.now()) throw authFailure('CHALLENGE_EXPIRED', 'The passkey challenge expired.');
  let counter: number;
  try {
    counter = await verifyPasskeyAssertion(ctx.config, assertion, { credentialId: credential.credentialId!, publicKey: credential.publicKey!, counter: Number(credential.signCount) }, c.secretHash!);
  } catch (err) {
    await failedAttempt(ctx, c.id);
    throw err;
  }
  const used = await ctx.db.authChallenge.updateMany({ where: { id: c.id, usedAt: null }, data: { usedAt: ctx.clock.now() } });
  if (used.count !== 1) throw authFailure('CHALLENGE_USED', 'The passkey challenge was already used.');
  await ctx.db.authCredential.updateMany({ where: { id: credential.id }, data: { signCount: BigInt(counter) } });
  return { credential, session: await openSession(ctx, credential, c.clientPublicKey!) };
}
