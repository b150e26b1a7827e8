import { createHash } from 'node:crypto';
import { generateMnemonic } from '@scure/bip39';
import { wordlist } from '@scure/bip39/wordlists/english';
import type { PrismaClient } from '../../../platform/db.js';
import { compressedP256, envelope, hpkeOpen, hpkeSeal, newP256KeyPair, signP256, uncompressedP256, verifyP256Der } from '../hpke.js';
import { CustodyError, type CustodyScope, type WalletCustody } from '../port.js';
import { seal, unseal } from '../sealing.js';

/**
 * The sandbox custody provider: wallet mnemonics, OTP target keys and delegated signer keys live in
 * `sandbox_custody_secrets`, sealed (AES-256-GCM) with the server's key. The operator can therefore read
 * them: this provider is custodial and says so (`enclaveBacked: false`). It runs the real cryptography
 * (HPKE, P-256 stamps) so clients built against it work against an enclave-backed provider unchanged.
 * Transfers move in the service's ledger; "submit" records nothing beyond the checked stamp.
 *
 * Deterministic where it matters: a wallet's address is derived from our wallet id, and creating a
 * wallet or a signer twice with the same id returns the first. Simulated on-chain credits (kind CREDIT,
 * keyed by wallet and reference, `publicKey` holding the wallet's ref) are recorded once per reference.
 */
/** A contact change the sandbox provider refuses (PATCH /customers/{id} → 424 EMAIL_OTP_CREDENTIAL_SYNC_FAILED). */
export const SYNC_FAIL_MAGIC = 'custody-sync-fail';

export function createSandboxCustody(deps: { prisma: PrismaClient; sealingKey: Buffer; now: () => Date }): WalletCustody {
  const { prisma, sealingKey } = deps;
  const store = prisma.sandboxCustodySecret;

  async function put(scope: CustodyScope, id: string, kind: string, secret: string, publicKey?: string, expiresAt?: Date) {
    await store.createMany({ data: [{ id, platformId: scope.platformId, kind, sealed: seal(sealingKey, secret), publicKey: publicKey ?? null, expiresAt: expiresAt ?? null }], skipDuplicates: true });
    return store.findFirstOrThrow({ where: { id, platformId: scope.platformId, kind } });
  }

  async function secretOf(scope: CustodyScope, id: string, kind: string) {
    const row = await store.findFirst({ where: { id, platformId: scope.platformId, kind } });
    if (!row) throw new CustodyError(kind === 'WALLET' ? 'WALLET_NOT_FOUND' : kind === 'SIGNER' ? 'SIGNER_REVOKED' : 'OTP_BUNDLE_INVALID', `${kind.toLowerCase()} not found`);
    return { row, secret: unseal(sealingKey, row.sealed) };
  }

  return {
    id: 'sandbox',
    enclaveBacked: false,

    async createWallet({ scope, walletId }) {
      const custodyRef = `sbw_${createHash('sha256').update(walletId).digest('hex').slice(0, 32)}`;
      await put(scope, custodyRef, 'WALLET', generateMnemonic(wordlist, 256));
      return { custodyRef, address: `sparkrt1${createHash('sha256').update(`addr:${walletId}`).digest('hex').slice(0, 58)}` };
    },
    async registerCredential() {},
    async revokeCredential() {},

    async issueOtpTarget({ scope, challengeId, expiresAt }) {
      const pair = newP256KeyPair();
      const targetRef = `sbt_${challengeId}`;
      await put(scope, targetRef, 'OTP_TARGET', pair.privateKey, pair.publicKeyUncompressed, expiresAt);
      return { targetRef, targetBundle: envelope({ targetPublic: pair.publicKeyUncompressed }) };
    },

    async openOtpAttempt({ scope, targetRef, encryptedOtpBundle }) {
      const { row, secret } = await secretOf(scope, targetRef, 'OTP_TARGET');
      if (row.expiresAt && row.expiresAt <= deps.now()) throw new CustodyError('OTP_BUNDLE_INVALID', 'the OTP target expired');
      let attempt: { otp_code?: unknown; public_key?: unknown };
      try {
        const sealed = JSON.parse(encryptedOtpBundle) as { encappedPublic: string; ciphertext: string };
        attempt = JSON.parse(new TextDecoder().decode(await hpkeOpen(secret, sealed)));
      } catch {
        throw new CustodyError('OTP_BUNDLE_INVALID', 'encryptedOtpBundle does not open with this OTP target');
      }
      if (typeof attempt.otp_code !== 'string' || typeof attempt.public_key !== 'string') throw new CustodyError('OTP_BUNDLE_INVALID', 'the attempt lacks otp_code or public_key');
      try {
        return { otpCode: attempt.otp_code, publicKey: compressedP256(attempt.public_key) };
      } catch {
        throw new CustodyError('INVALID_KEY', 'public_key is not a P-256 point');
      }
    },

    async createSession() {},
    async revokeSession() {},

    async signTransfer({ payload, stamp, allowedPublicKeys, transfer }) {
      if (stamp !== 'SANDBOX') {
        if (!allowedPublicKeys.includes(stamp.publicKey)) throw new CustodyError('STAMP_INVALID', 'the stamping key holds no live session');
        if (!verifyP256Der(stamp.publicKey, payload, stamp.signature)) throw new CustodyError('STAMP_INVALID', 'the stamp does not verify over the payload');
      }
      return { reference: `sbx_${createHash('sha256').update(transfer.idempotencyKey).digest('hex').slice(0, 24)}` };
    },

    async exportWallet({ scope, custodyRef, clientPublicKey }) {
      const { secret } = await secretOf(scope, custodyRef, 'WALLET');
      let recipient: string;
      try {
        recipient = uncompressedP256(clientPublicKey);
      } catch {
        throw new CustodyError('INVALID_KEY', 'clientPublicKey is not a P-256 point');
      }
      const sealed = await hpkeSeal(recipient, new TextEncoder().encode(secret));
      return { encryptedWalletCredentials: envelope({ ...sealed, organizationId: scope.platformId }) };
    },

    async setPrivacy({ scope, custodyRef }) {
      await secretOf(scope, custodyRef, 'WALLET');
    },

    async createDelegatedSigner({ scope, idempotencyKey }) {
      const pair = newP256KeyPair();
      const row = await put(scope, `sbs_${idempotencyKey}`, 'SIGNER', pair.privateKey, pair.publicKey);
      return { signerRef: row.id, publicKey: row.publicKey! };
    },

    async revokeDelegatedSigner({ scope, signerRef }) {
      await store.updateMany({ where: { id: signerRef, platformId: scope.platformId, kind: 'SIGNER', revokedAt: null }, data: { revokedAt: deps.now() } });
    },

    async updateCredentialContact({ contact }) {
      // Magic value (docs/adapters.md "Wallet custody"): a contact containing `custody-sync-fail` is refused.
      if (contact.toLowerCase().includes(SYNC_FAIL_MAGIC)) throw new CustodyError('CREDENTIAL_UPDATE_FAILED', 'the provider refused the contact change');
    },

    async simulateCredit({ scope, custodyRef, reference, amount, currency, senderAddress }) {
      await secretOf(scope, custodyRef, 'WALLET');
      const id = `sbc_${createHash('sha256').update(`${custodyRef}\n${reference}`).digest('hex').slice(0, 32)}`;
      await put(scope, id, 'CREDIT', JSON.stringify({ custodyRef, reference, amount: amount.toString(), currency, senderAddress: senderAddress ?? null, receivedAt: deps.now().toISOString() }), custodyRef);
    },

    async listCredits({ scope, custodyRef, limit }) {
      const rows = await store.findMany({ where: { platformId: scope.platformId, kind: 'CREDIT', publicKey: custodyRef }, orderBy: { createdAt: 'desc' }, take: limit });
      return rows.map((r) => {
        const c = JSON.parse(unseal(sealingKey, r.sealed)) as { reference: string; amount: string; currency: string; senderAddress: string | null; receivedAt: string };
        return { reference: c.reference, amount: BigInt(c.amount), currency: c.currency, receivedAt: new Date(c.receivedAt), ...(c.senderAddress ? { senderAddress: c.senderAddress } : {}) };
      });
    },

    async signWithDelegatedSigner({ scope, signerRef, payload }) {
      const { row, secret } = await secretOf(scope, signerRef, 'SIGNER');
      if (row.revokedAt) throw new CustodyError('SIGNER_REVOKED', 'the delegated signer was revoked');
      return { publicKey: row.publicKey!, signature: signP256(secret, payload) };
    },
  };
}
