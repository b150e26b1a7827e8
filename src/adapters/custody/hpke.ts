import { Aes256Gcm, CipherSuite, DhkemP256HkdfSha256, HkdfSha256 } from '@hpke/core';
import { p256 } from '@noble/curves/nist';

/**
 * HPKE (RFC 9180) as REF's Global Accounts use it: DHKEM(P-256, HKDF-SHA256), HKDF-SHA256, AES-256-GCM,
 * info "turnkey_hpke", AAD = encappedPublic || recipientPublic (both uncompressed SEC1). Bundles travel as
 * REF's envelope `{version, data: hex(JSON), dataSignature, enclaveQuorumPublic}`; the sandbox leaves the
 * attestation fields empty, as REF's sandbox does.
 */

const suite = new CipherSuite({ kem: new DhkemP256HkdfSha256(), kdf: new HkdfSha256(), aead: new Aes256Gcm() });
const INFO = new TextEncoder().encode('turnkey_hpke');
export const ENVELOPE_VERSION = 'v1.0.0';

/** Any SEC1 P-256 public key (compressed or not) as uncompressed hex; throws on a point off the curve. */
export function uncompressedP256(publicKeyHex: string): string {
  return p256.ProjectivePoint.fromHex(publicKeyHex.toLowerCase()).toHex(false);
}

export function compressedP256(publicKeyHex: string): string {
  return p256.ProjectivePoint.fromHex(publicKeyHex.toLowerCase()).toHex(true);
}

const aadOf = (enc: Uint8Array, recipient: Uint8Array) => Buffer.concat([Buffer.from(enc), Buffer.from(recipient)]);

/** Seals `plaintext` to a P-256 public key (hex). Returns `{encappedPublic, ciphertext}` in hex. */
export async function hpkeSeal(recipientPublicHex: string, plaintext: Uint8Array): Promise<{ encappedPublic: string; ciphertext: string }> {
  const recipient = Buffer.from(uncompressedP256(recipientPublicHex), 'hex');
  const recipientPublicKey = await suite.kem.deserializePublicKey(recipient);
  const sender = await suite.createSenderContext({ recipientPublicKey, info: INFO });
  const enc = new Uint8Array(sender.enc);
  const ct = await sender.seal(plaintext, aadOf(enc, recipient));
  return { encappedPublic: Buffer.from(enc).toString('hex'), ciphertext: Buffer.from(ct).toString('hex') };
}

/** Opens what hpkeSeal made, with the recipient's raw 32-byte private key (hex). Throws when it does not open. */
export async function hpkeOpen(recipientPrivateHex: string, sealed: { encappedPublic: string; ciphertext: string }): Promise<Uint8Array> {
  const priv = Buffer.from(recipientPrivateHex, 'hex');
  const recipientPublic = Buffer.from(p256.getPublicKey(priv, false));
  const recipientKey = await suite.kem.deserializePrivateKey(priv);
  const enc = Buffer.from(sealed.encappedPublic, 'hex');
  const ctx = await suite.createRecipientContext({ recipientKey, enc, info: INFO });
  return new Uint8Array(await ctx.open(Buffer.from(sealed.ciphertext, 'hex'), aadOf(enc, recipientPublic)));
}

/** REF's signed-bundle envelope around a JSON payload. */
export function envelope(data: unknown, signature = '', quorumPublic = ''): string {
  return JSON.stringify({ version: ENVELOPE_VERSION, data: Buffer.from(JSON.stringify(data), 'utf8').toString('hex'), dataSignature: signature, enclaveQuorumPublic: quorumPublic });
}

/** The JSON inside an envelope's `data`. Throws on anything else. */
export function envelopeData<T>(bundle: string): T {
  const { data } = JSON.parse(bundle) as { data?: unknown };
  if (typeof data !== 'string' || !/^([0-9a-f]{2})+$/i.test(data)) throw new Error('envelope data is not hex');
  return JSON.parse(Buffer.from(data, 'hex').toString('utf8')) as T;
}

/** A fresh P-256 key pair: raw private key hex, compressed and uncompressed public hex. */
export function newP256KeyPair(): { privateKey: string; publicKey: string; publicKeyUncompressed: string } {
  const priv = p256.utils.randomPrivateKey();
  return { privateKey: Buffer.from(priv).toString('hex'), publicKey: Buffer.from(p256.getPublicKey(priv, true)).toString('hex'), publicKeyUncompressed: Buffer.from(p256.getPublicKey(priv, false)).toString('hex') };
}

/** ECDSA P-256 / SHA-256 over the UTF-8 bytes of `payload`, DER. */
export function signP256(privateKeyHex: string, payload: string): Buffer {
  const sig = p256.sign(new TextEncoder().encode(payload), Buffer.from(privateKeyHex, 'hex'), { prehash: true });
  return Buffer.from(sig.toDERRawBytes());
}

/** Verifies a DER signature over the UTF-8 bytes of `payload`; anything malformed is simply false. */
export function verifyP256Der(publicKeyHex: string, payload: string, der: Buffer): boolean {
  try {
    return p256.verify(der, new TextEncoder().encode(payload), publicKeyHex, { prehash: true, format: 'der' });
  } catch {
    return false;
  }
}
