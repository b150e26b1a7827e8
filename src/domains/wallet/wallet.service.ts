import type { Ctx } from '../../deps.js';
import { newId } from '../../platform/ids.js';
import { recordEvent } from '../../platform/outbox.js';
import { custodyFor } from '../../adapters/custody/index.js';
import { CustodyError } from '../../adapters/custody/port.js';
import { ValidationError } from '../../platform/errors.js';
import { getInternalAccount, internalAccountResource } from '../ledger/index.js';
import {
  hasSignatureHeaders, issueSignedChallenge, verifySignedRetry, consumeSignedChallenge,
  type SignatureHeaders, type SignedRequestChallenge, type SignedTarget, type SignerSource,
} from '../signing/index.js';
import { credentialSetHashOf, getWalletAccount, liveSessions, walletConfigOf, type WalletAccount } from './wallet.repo.js';
import { EMBEDDED_WALLET, WALLET_CURRENCY, walletOwnerKey } from './wallet.model.js';

/**
 * The wallet itself: provisioning for a new customer, the signer source of every signed wallet action,
 * privacy and export (issue 28). Custody calls are made outside database transactions.
 */

/** Who may sign for a wallet: any live session's key; the challenge commits to the live credential set. */
export function walletSigners(ctx: Ctx, accountId: string): SignerSource {
  return {
    setHash: () => credentialSetHashOf(ctx.db, accountId),
    allows: async (publicKey) => (await liveSessions(ctx.db, accountId, ctx.clock.now())).some((s) => s.publicKey === publicKey),
    setChangedCode: 'EMAIL_OTP_CREDENTIAL_SET_CHANGED',
  };
}

export type Signed<T> = { kind: 'CHALLENGE'; challenge: SignedRequestChallenge } | { kind: 'DONE'; result: T };

/**
 * The one shape of a signed wallet action (decisions B§6.6, generalised from the card PATCH): the first
 * call answers a challenge bound to the action, resource and exact body; the retry is verified, then
 * `apply` runs and the challenge is consumed (single use) once it succeeded.
 */
export async function signedWalletAction<T>(
  ctx: Ctx, w: WalletAccount, target: Omit<SignedTarget, 'customerId' | 'signers'>, headers: SignatureHeaders, apply: () => Promise<T>, signers: SignerSource = walletSigners(ctx, w.account.id),
): Promise<Signed<T>> {
  const full: SignedTarget = { ...target, customerId: w.wallet.customerId, signers };
  if (!hasSignatureHeaders(headers)) return { kind: 'CHALLENGE', challenge: await issueSignedChallenge(ctx, full) };
  const requestId = await verifySignedRetry(ctx, full, headers);
  await ctx.db.$transaction((tx) => consumeSignedChallenge(ctx, tx, requestId));
  return { kind: 'DONE', result: await apply() };
}

/**
 * Opens the customer's EMBEDDED_WALLET account when the platform turned Global Accounts on
 * (embeddedWalletConfig set) and its currencies include USDB; the account starts with an EMAIL_OTP
 * credential on the customer's email (REF). Idempotent: a second call finds the wallet.
 */
export async function provisionEmbeddedWallet(ctx: Ctx, customer: { id: string; email: string | null; phone?: string | null }, platformCurrencies: readonly string[]): Promise<void> {
  if (!platformCurrencies.includes(WALLET_CURRENCY) || !(await walletConfigOf(ctx))) return;
  await openEmbeddedWallet(ctx, customer, newId('InternalAccount'));
}

/**
 * Opens the wallet under `accountId` (the custody provider's idempotency key: a retry with the same id
 * opens one wallet) unless the customer has one. Returns whether this call opened it. The account's
 * creation is announced as REF does for a new internal account (INTERNAL_ACCOUNT.STATUS_UPDATED, ACTIVE).
 */
export async function openEmbeddedWallet(ctx: Ctx, customer: { id: string; email: string | null }, accountId: string): Promise<boolean> {
  if (await ctx.db.embeddedWallet.findFirst({ where: { customerId: customer.id } })) return false;
  const custody = custodyFor(ctx);
  const created = await custody.createWallet({ scope: { platformId: ctx.platformId }, walletId: accountId });
  const now = ctx.clock.now();
  const credentialId = customer.email ? newId('AuthMethod') : null;
  await ctx.db.$transaction(async (tx) => {
    // The account row only: balances stay the ledger's to write.
    const account = await tx.internalAccount.create({ data: { id: accountId, customerId: customer.id, ownerKey: walletOwnerKey(customer.id), currency: WALLET_CURRENCY, type: EMBEDDED_WALLET, createdAt: now, updatedAt: now } as any });
    await recordEvent(tx, 'INTERNAL_ACCOUNT.STATUS_UPDATED', internalAccountResource(account));
    await tx.embeddedWallet.create({ data: { id: accountId, customerId: customer.id, custodyAdapter: custody.id, custodyRef: created.custodyRef, address: created.address, createdAt: now, updatedAt: now } as any });
    if (credentialId) {
      await tx.authCredential.create({ data: { id: credentialId, accountId, customerId: customer.id, type: 'EMAIL_OTP', nickname: customer.email!, contact: customer.email!.toLowerCase(), createdAt: now, updatedAt: now } as any });
    }
  });
  if (credentialId) await custody.registerCredential({ scope: { platformId: ctx.platformId }, custodyRef: created.custodyRef, credential: { credentialId, type: 'EMAIL_OTP' } });
  return true;
}

/** PATCH /internal-accounts/{id} {privateEnabled}: signed. Errors: 400; 401 WALLET_SIGNATURE_*; 404; 409 EMAIL_OTP_CREDENTIAL_SET_CHANGED. */
export async function setWalletPrivacy(ctx: Ctx, accountId: string, body: { privateEnabled: boolean }, headers: SignatureHeaders) {
  const w = await getWalletAccount(ctx, accountId);
  return signedWalletAction(ctx, w, { resourceId: accountId, action: 'PATCH /internal-accounts/{id}', body }, headers, async () => {
    await custodyFor(ctx).setPrivacy({ scope: { platformId: ctx.platformId }, custodyRef: w.wallet.custodyRef, enabled: body.privateEnabled });
    await ctx.db.embeddedWallet.updateMany({ where: { id: accountId }, data: { privateEnabled: body.privateEnabled, updatedAt: ctx.clock.now() } });
    return walletAccountResource(ctx, accountId);
  });
}

/** POST /internal-accounts/{id}/export {clientPublicKey}: signed; the mnemonic HPKE-sealed to the client key. */
export async function exportWallet(ctx: Ctx, accountId: string, body: { clientPublicKey: string }, headers: SignatureHeaders) {
  const w = await getWalletAccount(ctx, accountId);
  return signedWalletAction(ctx, w, { resourceId: accountId, action: 'POST /internal-accounts/{id}/export', body }, headers, async () => {
    try {
      const out = await custodyFor(ctx).exportWallet({ scope: { platformId: ctx.platformId }, custodyRef: w.wallet.custodyRef, clientPublicKey: body.clientPublicKey });
      return { id: accountId, encryptedWalletCredentials: out.encryptedWalletCredentials };
    } catch (err) {
      if (err instanceof CustodyError && err.reason === 'INVALID_KEY') throw new ValidationError([{ field: 'clientPublicKey', message: 'Must be a P-256 public key (SEC1 hex).' }]);
      throw err;
    }
  });
}

/** InternalAccount with REF's `privateEnabled` (and the wallet's address, informational). */
export async function walletAccountResource(ctx: Ctx, accountId: string) {
  const [account, wallet] = await Promise.all([getInternalAccount(ctx, accountId), ctx.db.embeddedWallet.findFirst({ where: { id: accountId } })]);
  return { ...internalAccountResource(account), privateEnabled: wallet?.privateEnabled ?? false };
}

export { walletConfigOf };
