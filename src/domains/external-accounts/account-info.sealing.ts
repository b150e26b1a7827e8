import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { invariant } from '../../platform/errors.js';

/**
 * Bank identifiers at rest: with EXTERNAL_ACCOUNT_ENCRYPTION_KEY set, the fields below are stored as
 * `enc:v1:<base64(iv | tag | ciphertext)>` (AES-256-GCM, random 96-bit IV) inside the JSONB account info,
 * so a database dump or backup does not hold account numbers. The rest of accountInfo (bank names,
 * beneficiary, wallet addresses, which are public on-chain) stays queryable JSON. Without a key values are
 * stored in clear; rows sealed under a key can only be read with that key (rotation: not yet supported).
 */

const SEALED_FIELDS = ['accountNumber', 'iban', 'clabeNumber', 'pixKey', 'vpa', 'taxId'] as const;
const PREFIX = 'enc:v1:';
const IV_BYTES = 12;
const TAG_BYTES = 16;

function keyOf(base64Key: string): Buffer {
  const key = Buffer.from(base64Key, 'base64');
  invariant(key.length === 32, 'EXTERNAL_ACCOUNT_ENCRYPTION_KEY must be 32 bytes');
  return key;
}

export function sealAccountInfo(info: Record<string, unknown>, base64Key: string | undefined): Record<string, unknown> {
  if (!base64Key) return info;
  const key = keyOf(base64Key);
  const out = { ...info };
  for (const field of SEALED_FIELDS) {
    const value = out[field];
    if (typeof value !== 'string' || value.startsWith(PREFIX)) continue;
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', key, iv);
    const ciphertext = Buffer.concat([cipher.update(value, 'utf8'), cipher.final()]);
    out[field] = PREFIX + Buffer.concat([iv, cipher.getAuthTag(), ciphertext]).toString('base64');
  }
  return out;
}

export function openAccountInfo(info: Record<string, unknown>, base64Key: string | undefined): Record<string, unknown> {
  let out: Record<string, unknown> | undefined;
  for (const field of SEALED_FIELDS) {
    const value = info[field];
    if (typeof value !== 'string' || !value.startsWith(PREFIX)) continue;
    invariant(base64Key, 'external account data is sealed but EXTERNAL_ACCOUNT_ENCRYPTION_KEY is not set');
    const raw = Buffer.from(value.slice(PREFIX.length), 'base64');
    const decipher = createDecipheriv('aes-256-gcm', keyOf(base64Key), raw.subarray(0, IV_BYTES));
    decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
    out ??= { ...info };
    out[field] = Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
  }
  return out ?? info;
}
