import { verifyAuthenticationResponse, verifyRegistrationResponse } from '@simplewebauthn/server';
import { createRemoteJWKSet, decodeJwt, errors as joseErrors, jwtVerify, type JWTPayload } from 'jose';
import type { AppConfig } from '../../config.js';
import { DomainError } from '../../platform/errors.js';
import { oidcNonceFor } from './wallet.model.js';

/**
 * The proofs a credential offers, checked with well-kept libraries: WebAuthn registration and assertion
 * (@simplewebauthn/server) and OIDC ID tokens against the issuer's JWKS (jose). Every refusal is a 401
 * whose `details.reason` names the check that failed (REF).
 */

export const authFailure = (reason: string, message: string) => new DomainError(401, 'UNAUTHORIZED', message, { reason });

const list = (s: string) => s.split(',').map((x) => x.trim()).filter(Boolean);

// ------------------------------------------------------------------------------ WebAuthn

export interface PasskeyAttestation {
  credentialId: string;
  clientDataJson: string;
  attestationObject: string;
  transports?: string[];
}

export interface PasskeyAssertion {
  credentialId: string;
  clientDataJson: string;
  authenticatorData: string;
  signature: string;
  userHandle?: string;
}

/** A registration ceremony the client ran with its own challenge (REF). Returns the key to store. */
export async function verifyPasskeyRegistration(config: AppConfig, a: PasskeyAttestation, challenge: string) {
  let result;
  try {
    result = await verifyRegistrationResponse({
      response: { id: a.credentialId, rawId: a.credentialId, type: 'public-key', clientExtensionResults: {}, response: { clientDataJSON: a.clientDataJson, attestationObject: a.attestationObject, transports: (a.transports ?? []) as any } },
      expectedChallenge: challenge,
      expectedOrigin: list(config.WEBAUTHN_ORIGINS),
      expectedRPID: config.WEBAUTHN_RP_ID,
      requireUserVerification: false,
    });
  } catch (err) {
    throw authFailure('PASSKEY_ATTESTATION_INVALID', `The passkey attestation does not verify: ${(err as Error).message}`);
  }
  if (!result.verified) throw authFailure('PASSKEY_ATTESTATION_INVALID', 'The passkey attestation does not verify.');
  const c = result.registrationInfo.credential;
  return { credentialId: c.id, publicKey: Buffer.from(c.publicKey).toString('base64url'), counter: c.counter };
}

/** An assertion over `challenge` (REF: the UTF-8 bytes of the hex challenge string). Returns the new counter. */
export async function verifyPasskeyAssertion(config: AppConfig, a: PasskeyAssertion, stored: { credentialId: string; publicKey: string; counter: number }, challenge: string): Promise<number> {
  if (a.credentialId !== stored.credentialId) throw authFailure('PASSKEY_CREDENTIAL_MISMATCH', 'The assertion names another passkey.');
  let result;
  try {
    result = await verifyAuthenticationResponse({
      response: { id: a.credentialId, rawId: a.credentialId, type: 'public-key', clientExtensionResults: {}, response: { clientDataJSON: a.clientDataJson, authenticatorData: a.authenticatorData, signature: a.signature, ...(a.userHandle ? { userHandle: a.userHandle } : {}) } },
      expectedChallenge: Buffer.from(challenge, 'utf8').toString('base64url'),
      expectedOrigin: list(config.WEBAUTHN_ORIGINS),
      expectedRPID: config.WEBAUTHN_RP_ID,
      credential: { id: stored.credentialId, publicKey: new Uint8Array(Buffer.from(stored.publicKey, 'base64url')), counter: stored.counter },
      requireUserVerification: false,
    });
  } catch (err) {
    throw authFailure('PASSKEY_ASSERTION_INVALID', `The passkey assertion does not verify: ${(err as Error).message}`);
  }
  if (!result.verified) throw authFailure('PASSKEY_ASSERTION_INVALID', 'The passkey assertion does not verify.');
  return result.authenticationInfo.newCounter;
}

// ------------------------------------------------------------------------------ OIDC

/** `issuer=jwksUrl` pairs from WALLET_OIDC_ISSUERS. */
export function oidcIssuers(config: AppConfig): Map<string, string> {
  return new Map(list(config.WALLET_OIDC_ISSUERS).map((pair) => {
    const i = pair.indexOf('=');
    return [pair.slice(0, i), pair.slice(i + 1)] as [string, string];
  }));
}

const jwksCache = new Map<string, ReturnType<typeof createRemoteJWKSet>>();
function jwksFor(url: string) {
  let set = jwksCache.get(url);
  if (!set) jwksCache.set(url, (set = createRemoteJWKSet(new URL(url), { timeoutDuration: 5000, cooldownDuration: 30_000 })));
  return set;
}

export interface OidcIdentity {
  issuer: string;
  audience: string;
  subject: string;
  email?: string;
}

/**
 * Verifies an ID token: signature by the issuer's JWKS, issuer configured, audience allowed (and equal to
 * the credential's when one is given), subject, `iat` at most WALLET_OIDC_MAX_AGE_SECONDS old (5 s skew),
 * `exp` in the future, and (verify) `nonce = sha256(clientPublicKey)`.
 */
export async function verifyOidcToken(config: AppConfig, token: string, now: Date, expect: { identity?: OidcIdentity; clientPublicKey?: string }): Promise<OidcIdentity> {
  let unverified: JWTPayload;
  try {
    unverified = decodeJwt(token);
  } catch {
    throw new DomainError(400, 'INVALID_INPUT', 'oidcToken is not a JWT.', { errors: [{ field: 'oidcToken', message: 'Must be a JWT (header.payload.signature).' }] });
  }
  const jwksUrl = typeof unverified.iss === 'string' ? oidcIssuers(config).get(unverified.iss) : undefined;
  if (!jwksUrl) throw authFailure('OIDC_ISSUER_NOT_ALLOWED', 'The token issuer is not accepted.');
  let payload: JWTPayload;
  try {
    ({ payload } = await jwtVerify(token, jwksFor(jwksUrl), { issuer: unverified.iss!, currentDate: now, clockTolerance: 5 }));
  } catch (err) {
    if (err instanceof joseErrors.JWTExpired) throw authFailure('OIDC_TOKEN_EXPIRED', 'The token expired.');
    throw authFailure('OIDC_SIGNATURE_INVALID', "The token's signature does not verify against the issuer's keys.");
  }
  const audience = Array.isArray(payload.aud) ? (payload.aud.length === 1 ? payload.aud[0] : undefined) : payload.aud;
  const allowed = list(config.WALLET_OIDC_AUDIENCES);
  if (!audience || (allowed.length > 0 && !allowed.includes(audience))) throw authFailure('OIDC_AUDIENCE_INVALID', 'The token audience is not accepted.');
  if (!payload.sub) throw authFailure('OIDC_SUBJECT_MISSING', 'The token has no subject.');
  if (typeof payload.iat !== 'number' || payload.iat * 1000 < now.getTime() - config.WALLET_OIDC_MAX_AGE_SECONDS * 1000 - 5000) throw authFailure('OIDC_TOKEN_STALE', `The token was issued more than ${config.WALLET_OIDC_MAX_AGE_SECONDS} s ago.`);
  if (typeof payload.exp !== 'number') throw authFailure('OIDC_TOKEN_EXPIRED', 'The token has no expiry.');
  const identity: OidcIdentity = { issuer: payload.iss!, audience, subject: payload.sub, ...(typeof payload.email === 'string' ? { email: payload.email } : {}) };
  if (expect.identity && (expect.identity.issuer !== identity.issuer || expect.identity.audience !== identity.audience || expect.identity.subject !== identity.subject)) {
    throw authFailure('OIDC_IDENTITY_MISMATCH', "The token's issuer, audience or subject differs from the credential's.");
  }
  if (expect.clientPublicKey !== undefined && payload.nonce !== oidcNonceFor(expect.clientPublicKey)) throw authFailure('OIDC_NONCE_MISMATCH', 'The token nonce is not sha256(clientPublicKey).');
  return identity;
}
