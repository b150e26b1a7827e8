import { createHmac, createPrivateKey, createPublicKey, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import type { PrismaClient } from './db.js';

const KEY_ID = 'webhook-signing';

export interface Signer {
  publicKeyPem: string;
  /** The `X-Svc-Signature` value: `{"v":"1","s":"<base64 DER ECDSA P-256 SHA-256 over body>"}` (decision A6). */
  signatureHeader(body: string | Buffer): string;
  /** Raw DER signature, for other signed exchanges (the http rail bridge). */
  signRaw(body: string | Buffer): Buffer;
  /**
   * Standard Webhooks headers (STANDARD_WEBHOOKS_SECRET set): `webhook-id`, `webhook-timestamp` (now,
   * Unix seconds, signed) and `webhook-signature` (`v1,<base64 HMAC-SHA256 of id.timestamp.body>`).
   */
  standardWebhookHeaders?(id: string, body: string): Record<string, string>;
}

function standardWebhooks(secret: string): Signer['standardWebhookHeaders'] {
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  return (id, body) => {
    const timestamp = Math.floor(Date.now() / 1000).toString();
    const signature = createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64');
    return { 'webhook-id': id, 'webhook-timestamp': timestamp, 'webhook-signature': `v1,${signature}` };
  };
}

function makeSigner(privateKey: KeyObject): Signer {
  const details = privateKey.asymmetricKeyDetails;
  if (privateKey.asymmetricKeyType !== 'ec' || details?.namedCurve !== 'prime256v1') {
    throw new Error('WEBHOOK_SIGNING_KEY must be an EC P-256 (prime256v1) private key in PEM');
  }
  const publicKeyPem = createPublicKey(privateKey).export({ type: 'spki', format: 'pem' }).toString();
  const signRaw = (body: string | Buffer) => sign('sha256', typeof body === 'string' ? Buffer.from(body) : body, privateKey);
  return {
    publicKeyPem,
    signRaw,
    signatureHeader: (body) => JSON.stringify({ v: '1', s: signRaw(body).toString('base64') }),
  };
}

/**
 * The key comes from WEBHOOK_SIGNING_KEY; without it (sandbox only, enforced in config.ts) one key
 * is generated and kept in the database so every process and every restart signs with the same key.
 */
export async function loadSigner(prisma: PrismaClient, pem: string | undefined, standardWebhooksSecret?: string): Promise<Signer> {
  const signer = await loadKeySigner(prisma, pem);
  return standardWebhooksSecret ? { ...signer, standardWebhookHeaders: standardWebhooks(standardWebhooksSecret) } : signer;
}

async function loadKeySigner(prisma: PrismaClient, pem: string | undefined): Promise<Signer> {
  if (pem) return makeSigner(createPrivateKey(pem.replace(/\\n/g, '\n')));
  const existing = await prisma.serviceKey.findUnique({ where: { id: KEY_ID } });
  if (existing) return makeSigner(createPrivateKey(existing.privateKeyPem));
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const privateKeyPem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  const publicKeyPem = publicKey.export({ type: 'spki', format: 'pem' }).toString();
  // Two processes starting together: the first insert wins, both then read the winner.
  await prisma.serviceKey.createMany({ data: [{ id: KEY_ID, privateKeyPem, publicKeyPem }], skipDuplicates: true });
  const row = await prisma.serviceKey.findUniqueOrThrow({ where: { id: KEY_ID } });
  return makeSigner(createPrivateKey(row.privateKeyPem));
}
