import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/**
 * AES-256-GCM sealing of the sandbox custody's secrets with the server's key: `v1:<base64(iv|tag|ct)>`.
 * The same construction as account identifiers at rest (external-accounts/account-info.sealing.ts).
 */
const IV_BYTES = 12;
const TAG_BYTES = 16;

export function sealingKeyOf(base64Key: string | undefined, sandbox: boolean): Buffer {
  if (base64Key) {
    const key = Buffer.from(base64Key, 'base64');
    if (key.length !== 32) throw new Error('WALLET_SEALING_KEY must be 32 bytes (base64)');
    return key;
  }
  if (!sandbox) throw new Error('WALLET_SEALING_KEY (or EXTERNAL_ACCOUNT_ENCRYPTION_KEY) is required for sandbox custody outside SVC_ENV=sandbox');
  // Sandbox without a key: a fixed, documented key. Sandbox wallets hold no real funds.
  return createHash('sha256').update('svc-payments sandbox custody key').digest();
}

export function seal(key: Buffer, plaintext: string): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const ct = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return `v1:${Buffer.concat([iv, cipher.getAuthTag(), ct]).toString('base64')}`;
}

export function unseal(key: Buffer, sealed: string): string {
  if (!sealed.startsWith('v1:')) throw new Error('unknown sealing version');
  const raw = Buffer.from(sealed.slice(3), 'base64');
  const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, IV_BYTES));
  decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
  return Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
}
