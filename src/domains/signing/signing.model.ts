import { createHash, createPublicKey, verify } from 'node:crypto';

/**
 * Signed retries (decisions A14, B§6.6): the stamp a client sends in `Svc-Wallet-Signature`, and the
 * pure checks around it. No I/O here.
 */

/** The only scheme of the stamp: ECDSA P-256 over SHA-256, DER signature in hex (REF §6.6). */
export const STAMP_SCHEME = 'SIGNATURE_SCHEME_TK_API_P256';
/** Decision A2: in sandbox this literal header value passes as a valid signature. */
export const SANDBOX_VALID_SIGNATURE = 'sandbox-valid-signature';

/** Compressed SEC1 P-256 point: 02 or 03 then the 32-byte x coordinate, lower-case hex. */
export const COMPRESSED_P256_RE = /^0[23][0-9a-f]{64}$/;

export type ParsedStamp = { kind: 'SANDBOX' } | { kind: 'STAMP'; publicKey: string; scheme: string; signature: Buffer };

/** A header that is not a decodable stamp (nor the sandbox literal): 401 WALLET_SIGNATURE_MALFORMED. */
export class MalformedStampError extends Error {}

/**
 * `base64url(JSON {publicKey, scheme, signature})`. Accepts padded base64url and plain base64 too:
 * client libraries differ. Throws MalformedStampError for anything else.
 */
export function parseStamp(header: string, sandbox: boolean): ParsedStamp {
  const value = header.trim();
  if (sandbox && value === SANDBOX_VALID_SIGNATURE) return { kind: 'SANDBOX' };
  if (value.length === 0 || value.length > 4096 || !/^[A-Za-z0-9_\-+/]+=*$/.test(value)) throw new MalformedStampError('not base64url');
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(value.replace(/-/g, '+').replace(/_/g, '/'), 'base64').toString('utf8'));
  } catch {
    throw new MalformedStampError('not JSON');
  }
  if (!parsed || typeof parsed !== 'object') throw new MalformedStampError('not an object');
  const { publicKey, scheme, signature } = parsed as Record<string, unknown>;
  if (typeof publicKey !== 'string' || !COMPRESSED_P256_RE.test(publicKey.toLowerCase())) throw new MalformedStampError('publicKey');
  if (scheme !== STAMP_SCHEME) throw new MalformedStampError('scheme');
  if (typeof signature !== 'string' || !/^([0-9a-fA-F]{2}){8,80}$/.test(signature)) throw new MalformedStampError('signature');
  return { kind: 'STAMP', publicKey: publicKey.toLowerCase(), scheme, signature: Buffer.from(signature, 'hex') };
}

/** SubjectPublicKeyInfo header for an id-ecPublicKey / prime256v1 key with a 33-byte compressed point. */
const SPKI_P256_COMPRESSED_PREFIX = Buffer.from('3039301306072a8648ce3d020106082a8648ce3d030107032200', 'hex');

/** True when `publicKeyHex` is a point on P-256 (OpenSSL decompresses it or refuses). */
export function isValidP256PublicKey(publicKeyHex: string): boolean {
  if (!COMPRESSED_P256_RE.test(publicKeyHex)) return false;
  try {
    createPublicKey({ key: Buffer.concat([SPKI_P256_COMPRESSED_PREFIX, Buffer.from(publicKeyHex, 'hex')]), format: 'der', type: 'spki' });
    return true;
  } catch {
    return false;
  }
}

/** ECDSA P-256 / SHA-256 over the UTF-8 bytes of `payload`; a malformed signature is simply invalid. */
export function verifyP256(publicKeyHex: string, payload: string, derSignature: Buffer): boolean {
  try {
    const key = createPublicKey({ key: Buffer.concat([SPKI_P256_COMPRESSED_PREFIX, Buffer.from(publicKeyHex, 'hex')]), format: 'der', type: 'spki' });
    return verify('sha256', Buffer.from(payload, 'utf8'), { key, dsaEncoding: 'der' }, derSignature);
  } catch {
    return false;
  }
}

/** JSON with object keys sorted at every level: the same body however a client orders or spaces it. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

export const sha256Hex = (s: string) => createHash('sha256').update(s, 'utf8').digest('hex');

/** What the challenge commits to about the request body. */
export const bodyHashOf = (body: unknown) => sha256Hex(canonicalJson(body ?? {}));

/** What the challenge commits to about the customer's credentials: their sorted public keys. */
export const credentialSetHashOf = (publicKeys: readonly string[]) => sha256Hex([...publicKeys].sort().join('\n'));

/**
 * The text the client signs byte for byte. It names the request, the resource and action, the body
 * hash and the expiry, so a signature cannot be moved to another request, resource or body.
 */
export function payloadToSign(p: { requestId: string; customerId: string; action: string; resourceId: string; bodyHash: string; expiresAt: Date; extra?: Record<string, string> }): string {
  return JSON.stringify({
    ...p.extra,
    requestId: p.requestId,
    customerId: p.customerId,
    action: p.action,
    resourceId: p.resourceId,
    bodySha256: p.bodyHash,
    expiresAt: p.expiresAt.toISOString(),
  });
}
