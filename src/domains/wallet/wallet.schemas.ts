import { z } from 'zod';
import type { AuthCredential, AuthSession, DelegatedKey } from '../../generated/prisma/client.js';

/** Request schemas of the Global Accounts operations (REF's names) and the resources they answer. */

const id = z.string().min(1).max(200);
const b64url = z.string().min(1).max(16_384).regex(/^[A-Za-z0-9_-]+={0,2}$/, 'Must be base64url.');
const p256Hex = z.string().regex(/^(0[23][0-9a-fA-F]{64}|04[0-9a-fA-F]{128})$/, 'Must be a P-256 public key in SEC1 hex (compressed or uncompressed).');

const attestation = z.strictObject({
  credentialId: b64url,
  clientDataJson: b64url,
  attestationObject: b64url,
  transports: z.array(z.enum(['usb', 'nfc', 'ble', 'internal', 'hybrid', 'smart-card', 'cable'])).max(8).optional(),
});
const assertion = z.strictObject({ credentialId: b64url, clientDataJson: b64url, authenticatorData: b64url, signature: b64url, userHandle: b64url.optional() });

export const createCredentialBody = z.discriminatedUnion('type', [
  z.strictObject({ type: z.enum(['EMAIL_OTP', 'SMS_OTP']), accountId: id }),
  z.strictObject({ type: z.literal('OAUTH'), accountId: id, oidcToken: z.string().min(1).max(8192) }),
  z.strictObject({ type: z.literal('PASSKEY'), accountId: id, nickname: z.string().min(1).max(256), challenge: z.string().min(16).max(1024), attestation }),
]);

export const verifyCredentialBody = z.discriminatedUnion('type', [
  z.strictObject({ type: z.enum(['EMAIL_OTP', 'SMS_OTP']), encryptedOtpBundle: z.string().min(1).max(8192) }),
  z.strictObject({ type: z.literal('OAUTH'), oidcToken: z.string().min(1).max(8192), clientPublicKey: p256Hex }),
  z.strictObject({ type: z.literal('PASSKEY'), assertion }),
]);

export const challengeBody = z.strictObject({ clientPublicKey: p256Hex.optional() });
export const refreshBody = z.strictObject({ clientPublicKey: p256Hex });
export const exportBody = z.strictObject({ clientPublicKey: p256Hex });
export const privacyBody = z.strictObject({ privateEnabled: z.boolean() });
export const delegatedKeyBody = z.strictObject({ cardId: id, internalAccountId: id, nickname: z.string().min(1).max(256) });
export const accountQuery = z.object({ accountId: id });
export const delegatedKeysQuery = z.object({ accountId: id.optional(), fundingSourceId: id.optional(), cardId: id.optional() });
export const idParams = z.object({ id });
export const accountParams = z.object({ accountId: id });

/** POST /sandbox/internal-accounts/{id}/receive: an on-chain credit (minor units); the same `reference` is the same credit. */
export const receiveBody = z.strictObject({
  amount: z.number().int().min(1).max(100_000_000_000),
  reference: z.string().min(1).max(200).optional(),
  senderAddress: z.string().min(1).max(200).optional(),
});

export function authMethodResource(c: AuthCredential) {
  return {
    id: c.id,
    accountId: c.accountId,
    type: c.type,
    ...(c.credentialId ? { credentialId: c.credentialId } : {}),
    nickname: c.nickname,
    createdAt: c.createdAt.toISOString(),
    updatedAt: c.updatedAt.toISOString(),
  };
}

/** REF's AuthSession: the credential's fields, the session's id and expiry (client-held key: no key material). */
export function authSessionResource(c: AuthCredential, s: AuthSession) {
  return { ...authMethodResource(c), id: s.id, expiresAt: s.expiresAt.toISOString() };
}

export function sessionListItem(s: AuthSession) {
  return {
    id: s.id, accountId: s.accountId, type: s.type, credentialId: s.credentialId, expiresAt: s.expiresAt.toISOString(), createdAt: s.createdAt.toISOString(),
    ...(s.revokedAt ? { revokedAt: s.revokedAt.toISOString() } : {}),
  };
}

export function delegatedKeyResource(k: DelegatedKey) {
  return {
    id: k.id, cardId: k.cardId, fundingSourceId: k.fundingSourceId, accountId: k.accountId, publicKey: k.publicKey, nickname: k.nickname, status: k.status,
    createdAt: k.createdAt.toISOString(), updatedAt: k.updatedAt.toISOString(),
  };
}
