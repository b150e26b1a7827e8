import type { Ctx } from '../../deps.js';
import { custodyFor } from '../../adapters/custody/index.js';
import { NotFoundError, ValidationError } from '../../platform/errors.js';
import { newId } from '../../platform/ids.js';
import type { AuthCredential, AuthSession } from '../../generated/prisma/client.js';
import type { SignatureHeaders } from '../signing/index.js';
import { compressedP256 } from '../../adapters/custody/hpke.js';
import { getWalletAccount, liveSessions } from './wallet.repo.js';
import { signedWalletAction } from './wallet.service.js';

/**
 * Sessions: a client-held P-256 key that may stamp the account's signed requests until `expiresAt`
 * (WALLET_SESSION_TTL_SECONDS, REF's 15 minutes) unless revoked. Every check reads Postgres, so a
 * revocation holds on every process at once.
 */

/** The client's key as the session stores it (compressed); 400 when it is not a P-256 point. */
export function sessionKeyOf(clientPublicKey: string, field = 'clientPublicKey'): string {
  try {
    return compressedP256(clientPublicKey);
  } catch {
    throw new ValidationError([{ field, message: 'Must be a P-256 public key in SEC1 hex (66 characters compressed, 130 uncompressed).' }]);
  }
}

/** Opens a session for a verified credential, in the caller's flow after the proof was checked. */
export async function openSession(ctx: Ctx, credential: AuthCredential, clientPublicKey: string): Promise<AuthSession> {
  const publicKey = sessionKeyOf(clientPublicKey);
  const w = await getWalletAccount(ctx, credential.accountId);
  const now = ctx.clock.now();
  const id = newId('AuthSession');
  const expiresAt = new Date(now.getTime() + ctx.config.WALLET_SESSION_TTL_SECONDS * 1000);
  await custodyFor(ctx).createSession({ scope: { platformId: ctx.platformId }, custodyRef: w.wallet.custodyRef, sessionId: id, publicKey, expiresAt });
  return ctx.db.$transaction(async (tx) => {
    await tx.authCredential.updateMany({ where: { id: credential.id }, data: { verifiedAt: now, updatedAt: now } });
    return tx.authSession.create({ data: { id, accountId: credential.accountId, credentialId: credential.id, type: credential.type, publicKey, expiresAt, createdAt: now } as any });
  });
}

/** GET /auth/sessions?accountId=: the live sessions. Errors: 404. */
export async function listSessions(ctx: Ctx, accountId: string): Promise<AuthSession[]> {
  await getWalletAccount(ctx, accountId);
  return liveSessions(ctx.db, accountId, ctx.clock.now());
}

async function getLiveSession(ctx: Ctx, id: string): Promise<AuthSession> {
  const s = await ctx.db.authSession.findFirst({ where: { id } });
  if (!s || s.revokedAt || s.expiresAt <= ctx.clock.now()) throw new NotFoundError('NOT_FOUND', 'Session not found or no longer active.');
  return s;
}

/** DELETE /auth/sessions/{id}: signed (a session may revoke itself). Errors: 401 WALLET_SIGNATURE_*; 404; 409. */
export async function revokeSession(ctx: Ctx, id: string, headers: SignatureHeaders) {
  const s = await getLiveSession(ctx, id);
  const w = await getWalletAccount(ctx, s.accountId);
  return signedWalletAction(ctx, w, { resourceId: id, action: 'DELETE /auth/sessions/{id}', body: {} }, headers, async () => {
    await ctx.db.authSession.updateMany({ where: { id, revokedAt: null }, data: { revokedAt: ctx.clock.now() } });
    await custodyFor(ctx).revokeSession({ scope: { platformId: ctx.platformId }, custodyRef: w.wallet.custodyRef, sessionId: id });
    return { type: s.type };
  });
}

/**
 * POST /auth/sessions/{id}/revoke (this service's extension, docs/decisions.md anchor 28b): the platform ends a
 * session without the customer's signature — the dashboard's revoke button, a platform reacting to a lost
 * device. Revoking only takes a way in away; it never moves money. Idempotent on an ended session. Errors: 404.
 */
export async function revokeSessionAsPlatform(ctx: Ctx, id: string): Promise<AuthSession> {
  const s = await ctx.db.authSession.findFirst({ where: { id } });
  if (!s) throw new NotFoundError('NOT_FOUND', 'Session not found.');
  const w = await getWalletAccount(ctx, s.accountId);
  if (s.revokedAt) return s;
  await ctx.db.authSession.updateMany({ where: { id, revokedAt: null }, data: { revokedAt: ctx.clock.now() } });
  await custodyFor(ctx).revokeSession({ scope: { platformId: ctx.platformId }, custodyRef: w.wallet.custodyRef, sessionId: id });
  return ctx.db.authSession.findFirstOrThrow({ where: { id } });
}

/** POST /auth/sessions/{id}/refresh {clientPublicKey}: signed; a new session for the same credential (201). */
export async function refreshSession(ctx: Ctx, id: string, body: { clientPublicKey: string }, headers: SignatureHeaders) {
  const s = await getLiveSession(ctx, id);
  sessionKeyOf(body.clientPublicKey);
  const w = await getWalletAccount(ctx, s.accountId);
  return signedWalletAction(ctx, w, { resourceId: id, action: 'POST /auth/sessions/{id}/refresh', body }, headers, async () => {
    const credential = await ctx.db.authCredential.findFirst({ where: { id: s.credentialId } });
    if (!credential || credential.revokedAt) throw new NotFoundError('NOT_FOUND', 'The session\'s credential was revoked.');
    return { credential, session: await openSession(ctx, credential, body.clientPublicKey) };
  });
}
