import { createHash, createSign, generateKeyPairSync, randomBytes, type KeyObject } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { expect } from 'vitest';
import type { TestEnv, TestPlatform } from '../helpers/app.js';
import { envelopeData, hpkeSeal, newP256KeyPair, signP256 } from '../../src/adapters/custody/hpke.js';

/** The client side of REF's Global Accounts, as a wallet SDK builds it: keys, stamps, sealed OTP attempts. */

export type ClientKey = ReturnType<typeof newP256KeyPair>;
export const newClientKey = newP256KeyPair;

/** REF's API-key stamp: base64url(JSON {publicKey (compressed), scheme, signature (DER hex)}). */
export function stampOf(key: ClientKey, payloadToSign: string): string {
  const signature = signP256(key.privateKey, payloadToSign).toString('hex');
  return Buffer.from(JSON.stringify({ publicKey: key.publicKey, scheme: 'SIGNATURE_SCHEME_TK_API_P256', signature })).toString('base64url');
}

/** HPKE-seals `{otp_code, public_key}` to the bundle's targetPublic (REF client-keys guide). */
export async function sealOtpAttempt(targetBundle: string, code: string, tek: ClientKey): Promise<string> {
  const { targetPublic } = envelopeData<{ targetPublic: string }>(targetBundle);
  const sealed = await hpkeSeal(targetPublic, new TextEncoder().encode(JSON.stringify({ otp_code: code, public_key: tek.publicKeyUncompressed })));
  return JSON.stringify(sealed);
}

/** Two-step signed call: the first answer must be 202; the retry carries the stamp (REF header). */
export async function signed(p: TestPlatform, key: ClientKey, opts: { method: 'POST' | 'PATCH' | 'DELETE'; url: string; payload?: object }) {
  const first = await p.request({ ...opts, ...(opts.payload ? { payload: opts.payload } : {}) } as any);
  expect(first.statusCode, first.body).toBe(202);
  const { payloadToSign, requestId } = first.json();
  return p.request({ ...opts, headers: { 'grid-wallet-signature': stampOf(key, payloadToSign), 'request-id': requestId } } as any);
}

/** A customer created through the API on a Global Accounts platform, approved, with its wallet account. */
export async function aWalletCustomer(env: TestEnv, p: TestPlatform, email = `ada.${randomBytes(4).toString('hex')}@example.com`) {
  const res = await p.request({ method: 'POST', url: '/customers', payload: { customerType: 'INDIVIDUAL', platformCustomerId: `pc_${randomBytes(4).toString('hex')}`, fullName: 'Ada Lovelace', email } });
  expect(res.statusCode, res.body).toBe(201);
  const customerId = res.json().id as string;
  await env.deps.prisma.customer.updateMany({ where: { id: customerId }, data: { status: 'APPROVED' } });
  const list = await p.request({ method: 'GET', url: `/customers/internal-accounts?customerId=${encodeURIComponent(customerId)}&type=EMBEDDED_WALLET` });
  expect(list.statusCode, list.body).toBe(200);
  const wallet = list.json().data[0];
  return { customerId, email, accountId: wallet?.id as string, wallet };
}

/** EMAIL_OTP login: challenge, sealed attempt (202), stamped retry (200 AuthSession). */
export async function otpLogin(p: TestPlatform, credentialId: string, code = '000000') {
  const ch = await p.request({ method: 'POST', url: `/auth/credentials/${credentialId}/challenge`, payload: {} });
  expect(ch.statusCode, ch.body).toBe(200);
  const tek = newClientKey();
  const body = { type: 'EMAIL_OTP', encryptedOtpBundle: await sealOtpAttempt(ch.json().otpEncryptionTargetBundle, code, tek) };
  const first = await p.request({ method: 'POST', url: `/auth/credentials/${credentialId}/verify`, payload: body });
  if (first.statusCode !== 202) return { first, tek };
  const second = await p.request({ method: 'POST', url: `/auth/credentials/${credentialId}/verify`, payload: body, headers: { 'grid-wallet-signature': stampOf(tek, first.json().payloadToSign), 'request-id': first.json().requestId } });
  return { first, second, tek };
}

// ------------------------------------------------------------------------------ a local OIDC issuer

export interface LocalIssuer {
  url: string;
  token(claims: Record<string, unknown>): Promise<string>;
  close(): Promise<void>;
}

export async function startIssuer(): Promise<LocalIssuer> {
  const { privateKey, publicKey } = await generateKeyPair('RS256');
  const jwk = { ...(await exportJWK(publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' };
  const server = http.createServer((req, res) => {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify(req.url === '/jwks' ? { keys: [jwk] } : {}));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    token: (claims) => new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid: 'k1' }).sign(privateKey),
    close: () => new Promise((r) => server.close(() => r())),
  };
}

export const nonceFor = (clientPublicKey: string) => createHash('sha256').update(clientPublicKey).digest('hex');

// ------------------------------------------------------------------------------ a software authenticator

/** Minimal CBOR (RFC 8949) for the attestation object: maps, text and byte strings, small ints. */
function cbor(v: unknown): Buffer {
  const head = (major: number, n: number) => (n < 24 ? Buffer.from([(major << 5) | n]) : n < 256 ? Buffer.from([(major << 5) | 24, n]) : Buffer.from([(major << 5) | 25, n >> 8, n & 0xff]));
  if (typeof v === 'number') return v >= 0 ? head(0, v) : head(1, -1 - v);
  if (typeof v === 'string') return Buffer.concat([head(3, Buffer.byteLength(v)), Buffer.from(v)]);
  if (Buffer.isBuffer(v)) return Buffer.concat([head(2, v.length), v]);
  if (v instanceof Map) return Buffer.concat([head(5, v.size), ...[...v].flatMap(([k, x]) => [cbor(k), cbor(x)])]);
  throw new Error('cbor: unsupported');
}

/** A platform authenticator holding one ES256 passkey, answering create() and get() as a browser would. */
export class SoftAuthenticator {
  readonly credentialId = randomBytes(32);
  private readonly key: KeyObject;
  private readonly jwk: { x: string; y: string };
  private counter = 0;
  constructor(readonly rpId = 'localhost', readonly origin = 'http://localhost:3000') {
    const pair = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    this.key = pair.privateKey;
    this.jwk = pair.publicKey.export({ format: 'jwk' }) as { x: string; y: string };
  }
  private authData(flags: number, attested: boolean): Buffer {
    const rpIdHash = createHash('sha256').update(this.rpId).digest();
    const count = Buffer.alloc(4);
    count.writeUInt32BE(++this.counter);
    if (!attested) return Buffer.concat([rpIdHash, Buffer.from([flags]), count]);
    const cose = cbor(new Map<number, unknown>([[1, 2], [3, -7], [-1, 1], [-2, Buffer.from(this.jwk.x, 'base64url')], [-3, Buffer.from(this.jwk.y, 'base64url')]]));
    const idLen = Buffer.from([this.credentialId.length >> 8, this.credentialId.length & 0xff]);
    return Buffer.concat([rpIdHash, Buffer.from([flags]), count, Buffer.alloc(16), idLen, this.credentialId, cose]);
  }
  private clientData(type: string, challenge: string): Buffer {
    return Buffer.from(JSON.stringify({ type, challenge, origin: this.origin, crossOrigin: false }));
  }
  /** navigator.credentials.create() with a base64url challenge, `none` attestation. */
  create(challengeB64url: string) {
    const attestationObject = cbor(new Map<string, unknown>([['fmt', 'none'], ['attStmt', new Map()], ['authData', this.authData(0x45, true)]]));
    return { credentialId: this.credentialId.toString('base64url'), clientDataJson: this.clientData('webauthn.create', challengeB64url).toString('base64url'), attestationObject: attestationObject.toString('base64url'), transports: ['internal'] };
  }
  /** navigator.credentials.get() over the UTF-8 bytes of REF's hex challenge. */
  get(hexChallenge: string) {
    const clientData = this.clientData('webauthn.get', Buffer.from(hexChallenge, 'utf8').toString('base64url'));
    const authenticatorData = this.authData(0x05, false);
    const signer = createSign('sha256');
    signer.update(Buffer.concat([authenticatorData, createHash('sha256').update(clientData).digest()]));
    return { credentialId: this.credentialId.toString('base64url'), clientDataJson: clientData.toString('base64url'), authenticatorData: authenticatorData.toString('base64url'), signature: signer.sign(this.key).toString('base64url') };
  }
}
