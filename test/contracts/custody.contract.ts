import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CustodyError, type WalletCustody } from '../../src/adapters/custody/port.js';
import { envelopeData, hpkeOpen, hpkeSeal, newP256KeyPair, signP256, verifyP256Der } from '../../src/adapters/custody/hpke.js';

/** What every wallet-custody provider must do (docs/adapters.md "Wallet custody"). */
export interface CustodyContractHarness {
  adapter: WalletCustody;
  platformId: string;
  /** Makes an on-chain credit arrive on a wallet (the provider's own simulation); the adapter's simulateCredit when absent. */
  credit?(req: { scope: { platformId: string }; custodyRef: string; reference: string; amount: bigint; currency: string; senderAddress?: string }): Promise<void>;
  close?(): Promise<void>;
}

export function describeCustodyContract(name: string, factory: () => Promise<CustodyContractHarness>): void {
  describe(`wallet custody contract: ${name}`, () => {
    let h: CustodyContractHarness;
    beforeAll(async () => {
      h = await factory();
    });
    afterAll(async () => {
      await h?.close?.();
    });
    const scope = () => ({ platformId: h.platformId });

    it('creates a wallet once per wallet id (same ref and address on a repeat)', async () => {
      const walletId = `InternalAccount:${randomUUID()}`;
      const a = await h.adapter.createWallet({ scope: scope(), walletId });
      const b = await h.adapter.createWallet({ scope: scope(), walletId });
      expect(b).toEqual(a);
      expect(a.address.length).toBeGreaterThan(10);
    });

    it('issues an HPKE OTP target and opens only attempts sealed to it', async () => {
      const target = await h.adapter.issueOtpTarget({ scope: scope(), challengeId: `AuthChallenge:${randomUUID()}`, expiresAt: new Date(Date.now() + 60_000) });
      const tek = newP256KeyPair();
      const { targetPublic } = envelopeData<{ targetPublic: string }>(target.targetBundle);
      const sealed = await hpkeSeal(targetPublic, new TextEncoder().encode(JSON.stringify({ otp_code: '000000', public_key: tek.publicKeyUncompressed })));
      await expect(h.adapter.openOtpAttempt({ scope: scope(), targetRef: target.targetRef, encryptedOtpBundle: JSON.stringify(sealed) })).resolves.toEqual({ otpCode: '000000', publicKey: tek.publicKey });
      const elsewhere = await hpkeSeal(newP256KeyPair().publicKey, new TextEncoder().encode('{}'));
      await expect(h.adapter.openOtpAttempt({ scope: scope(), targetRef: target.targetRef, encryptedOtpBundle: JSON.stringify(elsewhere) })).rejects.toMatchObject({ reason: 'OTP_BUNDLE_INVALID' });
    });

    it('signs a transfer only with a valid stamp by an allowed key', async () => {
      const { custodyRef } = await h.adapter.createWallet({ scope: scope(), walletId: `InternalAccount:${randomUUID()}` });
      const session = newP256KeyPair();
      const payload = JSON.stringify({ quote: randomUUID() });
      const transfer = { idempotencyKey: `Quote:${randomUUID()}`, amount: 100n, currency: 'USDB', destination: 'x' };
      const good = { publicKey: session.publicKey, signature: signP256(session.privateKey, payload) };
      await expect(h.adapter.signTransfer({ scope: scope(), custodyRef, payload, stamp: good, allowedPublicKeys: [], transfer })).rejects.toBeInstanceOf(CustodyError);
      await expect(h.adapter.signTransfer({ scope: scope(), custodyRef, payload: `${payload} `, stamp: good, allowedPublicKeys: [session.publicKey], transfer })).rejects.toMatchObject({ reason: 'STAMP_INVALID' });
      const a = await h.adapter.signTransfer({ scope: scope(), custodyRef, payload, stamp: good, allowedPublicKeys: [session.publicKey], transfer });
      const b = await h.adapter.signTransfer({ scope: scope(), custodyRef, payload, stamp: good, allowedPublicKeys: [session.publicKey], transfer });
      expect(b.reference).toBe(a.reference);
    });

    it('exports the wallet sealed to the client key', async () => {
      const { custodyRef } = await h.adapter.createWallet({ scope: scope(), walletId: `InternalAccount:${randomUUID()}` });
      const client = newP256KeyPair();
      const out = await h.adapter.exportWallet({ scope: scope(), custodyRef, clientPublicKey: client.publicKeyUncompressed });
      const opened = new TextDecoder().decode(await hpkeOpen(client.privateKey, envelopeData(out.encryptedWalletCredentials)));
      expect(opened.split(' ').length).toBeGreaterThanOrEqual(12);
      await expect(h.adapter.exportWallet({ scope: scope(), custodyRef, clientPublicKey: '04' + '00'.repeat(64) })).rejects.toMatchObject({ reason: 'INVALID_KEY' });
    });

    it('toggles privacy; delegated signers sign until revoked', async () => {
      const { custodyRef } = await h.adapter.createWallet({ scope: scope(), walletId: `InternalAccount:${randomUUID()}` });
      await expect(h.adapter.setPrivacy({ scope: scope(), custodyRef, enabled: true })).resolves.toBeUndefined();
      const signer = await h.adapter.createDelegatedSigner({ scope: scope(), custodyRef, idempotencyKey: `DelegatedKey:${randomUUID()}` });
      const stamp = await h.adapter.signWithDelegatedSigner({ scope: scope(), signerRef: signer.signerRef, payload: 'auth' });
      expect(stamp.publicKey).toBe(signer.publicKey);
      expect(verifyP256Der(signer.publicKey, 'auth', stamp.signature)).toBe(true);
      await h.adapter.revokeDelegatedSigner({ scope: scope(), signerRef: signer.signerRef });
      await expect(h.adapter.signWithDelegatedSigner({ scope: scope(), signerRef: signer.signerRef, payload: 'auth' })).rejects.toMatchObject({ reason: 'SIGNER_REVOKED' });
    });

    it('re-points an OTP credential at a new contact, and back (anchor 28b)', async () => {
      const { custodyRef } = await h.adapter.createWallet({ scope: scope(), walletId: `InternalAccount:${randomUUID()}` });
      const credentialId = `AuthMethod:${randomUUID()}`;
      await h.adapter.registerCredential({ scope: scope(), custodyRef, credential: { credentialId, type: 'EMAIL_OTP' } });
      await expect(h.adapter.updateCredentialContact({ scope: scope(), custodyRef, credentialId, type: 'EMAIL_OTP', contact: 'new@example.com' })).resolves.toBeUndefined();
      await expect(h.adapter.updateCredentialContact({ scope: scope(), custodyRef, credentialId, type: 'EMAIL_OTP', contact: 'old@example.com' })).resolves.toBeUndefined();
    });

    it('reports on-chain credits to a wallet, each reference once, amounts exact (anchor 28b)', async () => {
      const { custodyRef } = await h.adapter.createWallet({ scope: scope(), walletId: `InternalAccount:${randomUUID()}` });
      await expect(h.adapter.listCredits({ scope: scope(), custodyRef, limit: 10 })).resolves.toEqual([]);
      const credit = h.credit ?? h.adapter.simulateCredit?.bind(h.adapter);
      if (!credit) return;
      const reference = `spark-${randomUUID()}`;
      const big = 9_007_199_254_740_993n; // beyond a double's integers: must survive the wire
      await credit({ scope: scope(), custodyRef, reference, amount: big, currency: 'USDB', senderAddress: 'sparkrt1sender' });
      await credit({ scope: scope(), custodyRef, reference, amount: big, currency: 'USDB', senderAddress: 'sparkrt1sender' });
      const listed = await h.adapter.listCredits({ scope: scope(), custodyRef, limit: 10 });
      expect(listed).toEqual([expect.objectContaining({ reference, amount: big, currency: 'USDB', senderAddress: 'sparkrt1sender' })]);
      expect(listed[0]!.receivedAt).toBeInstanceOf(Date);
    });

    it('says whether its keys are enclave-backed', () => {
      expect(typeof h.adapter.enclaveBacked).toBe('boolean');
    });
  });
}
