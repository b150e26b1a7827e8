import { generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { expect } from 'vitest';
import type { TestEnv, TestPlatform } from '../helpers/app.js';
import { anApprovedCustomer } from '../helpers/builders.js';

/** A customer's P-256 signing key, as a wallet or an API-key stamper holds it. */
export interface SigningKey {
  privateKey: KeyObject;
  /** Compressed SEC1, hex (what POST /customers/{id}/signing-credentials takes). */
  publicKeyHex: string;
}

export function newSigningKey(): SigningKey {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const jwk = publicKey.export({ format: 'jwk' });
  const x = Buffer.from(jwk.x!, 'base64url');
  const y = Buffer.from(jwk.y!, 'base64url');
  const prefix = (y[y.length - 1]! & 1) === 1 ? '03' : '02';
  return { privateKey, publicKeyHex: prefix + x.toString('hex') };
}

/** The Svc-Wallet-Signature stamp of decisions B§6.6, made exactly as a client library makes it. */
export function stamp(key: SigningKey, payloadToSign: string, publicKeyHex = key.publicKeyHex): string {
  const signature = sign('sha256', Buffer.from(payloadToSign, 'utf8'), key.privateKey).toString('hex');
  return Buffer.from(JSON.stringify({ publicKey: publicKeyHex, scheme: 'SIGNATURE_SCHEME_TK_API_P256', signature }), 'utf8').toString('base64url');
}

export async function registerKey(p: TestPlatform, customerId: string, key: SigningKey = newSigningKey()): Promise<SigningKey> {
  const res = await p.request({ method: 'POST', url: `/customers/${customerId}/signing-credentials`, payload: { publicKey: key.publicKeyHex } });
  expect(res.statusCode, res.body).toBe(201);
  return key;
}

/** An APPROVED cardholder with USDB and USD accounts and a registered signing key. */
export async function aCardholder(env: TestEnv, p: TestPlatform): Promise<{ customerId: string; usdb: string; usd: string; key: SigningKey }> {
  const c = await anApprovedCustomer(env, p, ['USDB', 'USD']);
  const key = await registerKey(p, c.customerId);
  return { customerId: c.customerId, usdb: c.accounts.USDB!, usd: c.accounts.USD!, key };
}

export async function aCard(p: TestPlatform, customerId: string, usdb: string): Promise<any> {
  const res = await p.request({ method: 'POST', url: '/cards', payload: { customerId, form: 'VIRTUAL', fundingSources: [usdb] } });
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
}

/** PATCH with the two-step signed retry; returns the retry's response. */
export async function signedPatch(p: TestPlatform, cardId: string, body: object, key: SigningKey) {
  const first = await p.request({ method: 'PATCH', url: `/cards/${cardId}`, payload: body });
  if (first.statusCode !== 202) return first;
  const { payloadToSign, requestId } = first.json();
  return p.request({ method: 'PATCH', url: `/cards/${cardId}`, payload: body, headers: { 'svc-wallet-signature': stamp(key, payloadToSign), 'request-id': requestId } });
}
