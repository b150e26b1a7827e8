import type { Ctx } from '../../deps.js';
import type { TenantTx } from '../../platform/db.js';
import { isUniqueViolation } from '../../platform/db.js';
import { ConflictError, DomainError, NotFoundError, ValidationError } from '../../platform/errors.js';
import { newId } from '../../platform/ids.js';
import type { SigningCredential } from '../../generated/prisma/client.js';
import { getActiveCustomer } from '../customers/index.js';
import {
  bodyHashOf, credentialSetHashOf, isValidP256PublicKey, MalformedStampError, parseStamp, payloadToSign, verifyP256,
} from './signing.model.js';

// ------------------------------------------------------------------------------ signing credentials

/** POST /customers/{id}/signing-credentials. Errors: 400 INVALID_INPUT (not a P-256 point); 404; 409 CONFLICT (already registered); 410. */
export async function registerSigningCredential(ctx: Ctx, customerId: string, publicKey: string): Promise<SigningCredential> {
  await getActiveCustomer(ctx, customerId);
  const key = publicKey.toLowerCase();
  if (!isValidP256PublicKey(key)) {
    throw new ValidationError([{ field: 'publicKey', constraint: { format: 'sec1-compressed-p256-hex' }, message: 'Must be a compressed SEC1 P-256 public key in hex (66 characters, 02 or 03 first).' }]);
  }
  try {
    return await ctx.db.signingCredential.create({ data: { id: newId('SigningCredential'), customerId, publicKey: key, createdAt: ctx.clock.now() } as any });
  } catch (err) {
    if (isUniqueViolation(err)) throw new ConflictError('CONFLICT', 'This public key is already registered for the customer.');
    throw err;
  }
}

/** Errors: 404 USER_NOT_FOUND; 410. */
export async function listSigningCredentials(ctx: Ctx, customerId: string): Promise<SigningCredential[]> {
  await getActiveCustomer(ctx, customerId);
  return ctx.db.signingCredential.findMany({ where: { customerId }, orderBy: { id: 'asc' } });
}

/** DELETE: outstanding challenges bound to the old credential set stop verifying. Errors: 404 (credential or customer). */
export async function deleteSigningCredential(ctx: Ctx, customerId: string, credentialId: string): Promise<void> {
  await getActiveCustomer(ctx, customerId);
  const deleted = await ctx.db.signingCredential.deleteMany({ where: { id: credentialId, customerId } });
  if (deleted.count !== 1) throw new NotFoundError('NOT_FOUND', 'Signing credential not found.');
}

async function credentialKeys(db: Ctx['db'] | TenantTx, customerId: string): Promise<string[]> {
  const rows = await db.signingCredential.findMany({ where: { customerId }, select: { publicKey: true } });
  return rows.map((r) => r.publicKey);
}

// ------------------------------------------------------------------------------ signed retry

/** What a signed change is about: the customer who signs, the resource and the action, and the body. */
export interface SignedTarget {
  customerId: string;
  resourceId: string;
  /** e.g. `PATCH /cards/{id}`: a challenge of one action never authorises another. */
  action: string;
  body: unknown;
  /** Who may sign; default: the customer's registered signing credentials (decision A14). */
  signers?: SignerSource;
  /** More fields of payloadToSign (e.g. an OTP login's `verificationToken`). */
  payloadExtra?: Record<string, string>;
}

/**
 * Where the keys allowed to sign a target come from (issue 28): the customer's signing credentials
 * (card PATCH), the live sessions of an embedded wallet, or the one key an OTP login bound. `setHash`
 * names the credential set the challenge commits to; when it differs at retry the change is refused
 * with `setChangedStatus`/`setChangedCode` (409 EMAIL_OTP_CREDENTIAL_SET_CHANGED for wallets).
 */
export interface SignerSource {
  setHash(): Promise<string>;
  allows(publicKey: string): Promise<boolean>;
  setChangedCode?: string;
}

export interface SignedRequestChallenge {
  payloadToSign: string;
  requestId: string;
  expiresAt: string;
}

/** The signed-retry headers of a request; both absent means "first call". */
export interface SignatureHeaders {
  signature?: string;
  requestId?: string;
}

export const hasSignatureHeaders = (h: SignatureHeaders) => h.signature !== undefined || h.requestId !== undefined;

/**
 * Reads the stamp from REF's `Grid-Wallet-Signature` or the spec's `Svc-Wallet-Signature` (issue 25: a
 * platform on REF's clients sends the first), and `Request-Id`. Empty values count as absent.
 */
export function signatureHeadersOf(headers: Record<string, string | string[] | undefined>): SignatureHeaders {
  const one = (v: string | string[] | undefined) => {
    const s = Array.isArray(v) ? v[0] : v;
    return s === undefined || s.trim() === '' ? undefined : s.trim();
  };
  return { signature: one(headers['grid-wallet-signature']) ?? one(headers['svc-wallet-signature']), requestId: one(headers['request-id']) };
}

/**
 * The 202 of a sensitive change: a single-use challenge bound to the resource, the action, the body and the
 * customer's current credential set, expiring after SIGNED_REQUEST_TTL_MS (decision A14: 5 minutes).
 */
export async function issueSignedChallenge(ctx: Ctx, target: SignedTarget): Promise<SignedRequestChallenge> {
  const requestId = newId('Request');
  const now = ctx.clock.now();
  const expiresAt = new Date(now.getTime() + ctx.config.SIGNED_REQUEST_TTL_MS);
  const bodyHash = bodyHashOf(target.body);
  const payload = payloadToSign({ requestId, customerId: target.customerId, action: target.action, resourceId: target.resourceId, bodyHash, expiresAt, extra: target.payloadExtra });
  const credentialSetHash = target.signers ? await target.signers.setHash() : credentialSetHashOf(await credentialKeys(ctx.db, target.customerId));
  await ctx.db.signedRequest.create({
    data: { id: requestId, customerId: target.customerId, resourceId: target.resourceId, action: target.action, bodyHash, credentialSetHash, payloadToSign: payload, expiresAt, createdAt: now } as any,
  });
  return { payloadToSign: payload, requestId, expiresAt: expiresAt.toISOString() };
}

/** A 401 whose `details.reason` names the failed check (REF: "a reason field that names the specific check"). */
const unauthorized = (code: string, message: string, reason = code) => new DomainError(401, code, message, { reason });

/**
 * Checks a signed retry (decisions B§6.6) and returns the challenge id to consume. Order: headers present
 * (REQUEST_ID_MISSING, WALLET_SIGNATURE_MISSING), stamp decodable (WALLET_SIGNATURE_MALFORMED), a live
 * challenge for this resource and action (WALLET_SIGNATURE_INVALID: unknown, expired or used, decision A14),
 * the same body (WALLET_SIGNATURE_BODY_MISMATCH), the same credential set, a registered key and a valid
 * signature (WALLET_SIGNATURE_INVALID). Nothing is consumed here: `consumeSignedChallenge` does that in the
 * transaction that applies the change, so a change refused later (409) leaves the challenge usable.
 */
export async function verifySignedRetry(ctx: Ctx, target: SignedTarget, headers: SignatureHeaders): Promise<string> {
  if (headers.signature && !headers.requestId) throw unauthorized('REQUEST_ID_MISSING', 'The Request-Id header of the signed retry is missing.');
  if (!headers.signature) throw unauthorized('WALLET_SIGNATURE_MISSING', 'The Grid-Wallet-Signature (or Svc-Wallet-Signature) header is missing.');
  let stamp;
  try {
    stamp = parseStamp(headers.signature, ctx.config.SVC_ENV === 'sandbox');
  } catch (err) {
    if (err instanceof MalformedStampError) throw unauthorized('WALLET_SIGNATURE_MALFORMED', 'The wallet signature header is not a valid stamp (base64url JSON {publicKey, scheme, signature}).');
    throw err;
  }
  const challenge = await ctx.db.signedRequest.findFirst({ where: { id: headers.requestId! } });
  if (!challenge || challenge.resourceId !== target.resourceId || challenge.action !== target.action || challenge.customerId !== target.customerId) {
    throw unauthorized('WALLET_SIGNATURE_INVALID', 'Request-Id names no pending challenge of this request.', 'CHALLENGE_UNKNOWN');
  }
  if (challenge.usedAt) throw unauthorized('WALLET_SIGNATURE_INVALID', 'The challenge was already used; start again without signature headers.', 'CHALLENGE_USED');
  if (challenge.expiresAt.getTime() <= ctx.clock.now().getTime()) throw unauthorized('WALLET_SIGNATURE_INVALID', 'The challenge expired; start again without signature headers.', 'CHALLENGE_EXPIRED');
  if (bodyHashOf(target.body) !== challenge.bodyHash) {
    throw unauthorized('WALLET_SIGNATURE_BODY_MISMATCH', 'The body differs from the body of the challenged request.');
  }
  if (stamp.kind === 'SANDBOX') return challenge.id;
  if (target.signers) return checkSourceSignature(target.signers, challenge, stamp);
  const keys = await credentialKeys(ctx.db, target.customerId);
  if (credentialSetHashOf(keys) !== challenge.credentialSetHash) {
    throw unauthorized('WALLET_SIGNATURE_INVALID', "The customer's signing credentials changed after the challenge; start again.", 'CREDENTIAL_SET_CHANGED');
  }
  if (!keys.includes(stamp.publicKey)) throw unauthorized('WALLET_SIGNATURE_INVALID', 'The signing key is not registered for this customer.', 'SIGNER_NOT_AUTHORIZED');
  if (!verifyP256(stamp.publicKey, challenge.payloadToSign, stamp.signature)) {
    throw unauthorized('WALLET_SIGNATURE_INVALID', 'The signature does not verify against payloadToSign.', 'SIGNATURE_MISMATCH');
  }
  return challenge.id;
}

async function checkSourceSignature(signers: SignerSource, challenge: { id: string; credentialSetHash: string; payloadToSign: string }, stamp: { publicKey: string; signature: Buffer }): Promise<string> {
  if ((await signers.setHash()) !== challenge.credentialSetHash) {
    throw new ConflictError(signers.setChangedCode ?? 'EMAIL_OTP_CREDENTIAL_SET_CHANGED', 'The credentials changed after the challenge; start again without signature headers.');
  }
  if (!(await signers.allows(stamp.publicKey))) throw unauthorized('WALLET_SIGNATURE_INVALID', 'The signing key holds no live session of this account.', 'SIGNER_NOT_AUTHORIZED');
  if (!verifyP256(stamp.publicKey, challenge.payloadToSign, stamp.signature)) {
    throw unauthorized('WALLET_SIGNATURE_INVALID', 'The signature does not verify against payloadToSign.', 'SIGNATURE_MISMATCH');
  }
  return challenge.id;
}

/** Marks the challenge used (compare-and-set): a concurrent replay finds it used and gets 401. */
export async function consumeSignedChallenge(ctx: Ctx, tx: TenantTx, requestId: string): Promise<void> {
  const used = await tx.signedRequest.updateMany({ where: { id: requestId, usedAt: null }, data: { usedAt: ctx.clock.now() } });
  if (used.count !== 1) throw unauthorized('WALLET_SIGNATURE_INVALID', 'The challenge was already used; start again without signature headers.', 'CHALLENGE_USED');
}

export function signingCredentialResource(c: SigningCredential) {
  return { id: c.id, customerId: c.customerId, publicKey: c.publicKey, createdAt: c.createdAt.toISOString() };
}


/** The stamp of a header as the custody port takes it (the sandbox literal as 'SANDBOX'); 401 MALFORMED otherwise. */
export function parseWalletStamp(header: string, sandbox: boolean): { publicKey: string; signature: Buffer } | 'SANDBOX' {
  try {
    const s = parseStamp(header, sandbox);
    return s.kind === 'SANDBOX' ? 'SANDBOX' : { publicKey: s.publicKey, signature: s.signature };
  } catch {
    throw unauthorized('WALLET_SIGNATURE_MALFORMED', 'The wallet signature header is not a valid stamp.');
  }
}
