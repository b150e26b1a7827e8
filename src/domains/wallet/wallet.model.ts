import { createHash, randomInt } from 'node:crypto';
import { defineLifecycle, type EventOf, type StatusOf } from '../../platform/state-machine.js';

/**
 * Embedded wallets (issue 28, REF "Global Accounts"; docs/decisions.md anchor 28): credential types,
 * the delegated-key lifecycle and the pure rules of OTP codes, OIDC nonces and rate windows. No I/O.
 */

export const AUTH_METHOD_TYPES = ['OAUTH', 'EMAIL_OTP', 'SMS_OTP', 'PASSKEY'] as const;
export type AuthMethodType = (typeof AUTH_METHOD_TYPES)[number];

export const EMBEDDED_WALLET = 'EMBEDDED_WALLET';
/** The currency every embedded wallet holds (REF: a Spark wallet of USDB). */
export const WALLET_CURRENCY = 'USDB';
/** The wallet's account sits beside the customer's ordinary USDB account: one account per owner key and currency. */
export const walletOwnerKey = (customerId: string) => `${customerId}:${EMBEDDED_WALLET}`;

/** REF sandbox: the OTP is always 000000 (not SCA's 123456). */
export const SANDBOX_OTP_CODE = '000000';

/** REF's DelegatedKeyStatus: PENDING (the policy leg never completed) → ACTIVE → REVOKED. */
export const delegatedKeyLifecycle = defineLifecycle({
  name: 'delegated_key',
  label: 'The delegated key',
  statuses: ['PENDING', 'ACTIVE', 'REVOKED'],
  transitions: {
    activate: { from: ['PENDING'], to: 'ACTIVE' },
    revoke: { from: ['PENDING', 'ACTIVE'], to: 'REVOKED' },
  },
  terminal: ['REVOKED'],
});
export type DelegatedKeyEvent = EventOf<typeof delegatedKeyLifecycle>;

/** A one-time code of `length` characters: digits, or digits and upper-case letters. */
export function newOtpCode(length: number, alphanumeric: boolean, sandbox: boolean): string {
  if (sandbox) return SANDBOX_OTP_CODE;
  const alphabet = alphanumeric ? '0123456789ABCDEFGHJKLMNPQRSTUVWXYZ' : '0123456789';
  let out = '';
  for (let i = 0; i < length; i++) out += alphabet[randomInt(alphabet.length)];
  return out;
}

/** What is stored of an OTP: bound to its challenge so equal codes of two challenges hash apart. */
export const otpHash = (challengeId: string, code: string) => createHash('sha256').update(`${challengeId}\n${code.toUpperCase()}`).digest('hex');

/** REF: `nonce` of a verify-time ID token = lowercase hex sha256 of the exact clientPublicKey string. */
export const oidcNonceFor = (clientPublicKey: string) => createHash('sha256').update(clientPublicKey, 'utf8').digest('hex');

/** REF's PasskeyAuthChallenge.challenge: lowercase hex SHA-256 of the canonical session-creation body. */
export function passkeyChallengeFor(p: { requestId: string; accountId: string; credentialId: string; clientPublicKey: string }): string {
  const body = JSON.stringify({ accountId: p.accountId, clientPublicKey: p.clientPublicKey, credentialId: p.credentialId, requestId: p.requestId, type: 'SESSION_CREATE' });
  return createHash('sha256').update(body, 'utf8').digest('hex');
}

/** The hash a signed challenge commits to about the account's credentials (ids of the live ones). */
export const credentialSetHash = (ids: readonly string[]) => createHash('sha256').update(['wallet-credentials', ...[...ids].sort()].join('\n')).digest('hex');

/**
 * Seconds until a sliding window of `windowMs` frees a slot, given the times of the events in it
 * (at least 1: Retry-After is whole seconds).
 */
export function retryAfterSeconds(times: readonly Date[], windowMs: number, now: Date): number {
  const oldest = Math.min(...times.map((t) => t.getTime()));
  return Math.max(1, Math.ceil((oldest + windowMs - now.getTime()) / 1000));
}

/** REF's embeddedWalletConfig: how OTP messages are branded. */
export interface EmbeddedWalletConfig {
  appName?: string;
  otpLength?: number;
  alphanumeric?: boolean;
  expirationSeconds?: number;
  sendFromEmailAddress?: string;
  sendFromEmailSenderName?: string;
  replyToEmailAddress?: string;
  logoUrl?: string;
}
