import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import type { AppConfig } from '../../config.js';
import { invariant } from '../../platform/errors.js';

/**
 * Provider API secrets at rest: AES-256-GCM under EXTERNAL_ACCOUNT_ENCRYPTION_KEY (the key that seals
 * account identifiers, required in production), stored as `enc:v1:<base64(iv | tag | ciphertext)>`, the
 * same envelope as account-info.sealing.ts. Unlike account identifiers a secret is never stored in clear:
 * a sandbox without the key seals under a fixed, published sandbox key (sandbox credentials are fake;
 * production refuses to start without the real key). The platform id is bound as associated data, so a
 * sealed secret copied onto another platform's row does not open.
 */
const PREFIX = 'enc:v1:';
const IV_BYTES = 12;
const TAG_BYTES = 16;
const SANDBOX_KEY = createHash('sha256').update('svc-payments sandbox stablecoin credentials').digest();

function keyOf(config: Pick<AppConfig, 'EXTERNAL_ACCOUNT_ENCRYPTION_KEY' | 'SVC_ENV'>): Buffer {
  if (!config.EXTERNAL_ACCOUNT_ENCRYPTION_KEY) {
    invariant(config.SVC_ENV === 'sandbox', 'EXTERNAL_ACCOUNT_ENCRYPTION_KEY is required to seal provider credentials');
    return SANDBOX_KEY;
  }
  const key = Buffer.from(config.EXTERNAL_ACCOUNT_ENCRYPTION_KEY, 'base64');
  invariant(key.length === 32, 'EXTERNAL_ACCOUNT_ENCRYPTION_KEY must be 32 bytes');
  return key;
}

export function sealSecret(config: Pick<AppConfig, 'EXTERNAL_ACCOUNT_ENCRYPTION_KEY' | 'SVC_ENV'>, platformId: string, secret: string): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', keyOf(config), iv);
  cipher.setAAD(Buffer.from(platformId, 'utf8'));
  const ciphertext = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
  return PREFIX + Buffer.concat([iv, cipher.getAuthTag(), ciphertext]).toString('base64');
}

export function openSecret(config: Pick<AppConfig, 'EXTERNAL_ACCOUNT_ENCRYPTION_KEY' | 'SVC_ENV'>, platformId: string, sealed: string): string {
  invariant(sealed.startsWith(PREFIX), 'provider secret is not sealed');
  const raw = Buffer.from(sealed.slice(PREFIX.length), 'base64');
  const decipher = createDecipheriv('aes-256-gcm', keyOf(config), raw.subarray(0, IV_BYTES));
  decipher.setAAD(Buffer.from(platformId, 'utf8'));
  decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
  return Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
}
