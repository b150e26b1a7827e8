import type { Ctx } from '../../deps.js';
import { custodyFor } from '../../adapters/custody/index.js';
import { CustodyError, type Stamp } from '../../adapters/custody/port.js';
import { verifyP256Der } from '../../adapters/custody/hpke.js';
import { BadRequestError, ConflictError, NotFoundError } from '../../platform/errors.js';
import { isUniqueViolation } from '../../platform/db.js';
import { newId } from '../../platform/ids.js';
import { statusColumn, transition } from '../../platform/state-machine.js';
import type { DelegatedKey } from '../../generated/prisma/client.js';
import type { SignatureHeaders } from '../signing/index.js';
import { getWalletAccount } from './wallet.repo.js';
import { delegatedKeyLifecycle, type DelegatedKeyEvent } from './wallet.model.js';
import { signedWalletAction } from './wallet.service.js';

/**
 * Delegated keys (REF): a custody-held signer a wallet-funded card spends through, so card
 * authorizations are signed without the customer present. PENDING → ACTIVE → REVOKED through
 * transition(); one ACTIVE per (card, funding account), enforced by a partial unique index too.
 */

const keyStatus = statusColumn(delegatedKeyLifecycle, 'delegated_keys', 'status', { notFound: () => new NotFoundError('NOT_FOUND', 'Delegated key not found.') });

async function move(ctx: Ctx, key: DelegatedKey, event: DelegatedKeyEvent): Promise<DelegatedKey> {
  return ctx.db.$transaction((tx) => transition(tx, ctx, keyStatus, event, key.id, { from: key.status }));
}

/** The card as this domain needs it (a read of the cards table: cards depends on this domain, not back). */
async function cardFundedBy(ctx: Ctx, cardId: string, accountId: string) {
  const card = await ctx.db.card.findFirst({ where: { id: cardId }, select: { id: true, fundingSources: true, state: true } });
  if (!card) throw new NotFoundError('NOT_FOUND', 'Card not found.');
  if (!card.fundingSources.includes(accountId)) throw new BadRequestError('FUNDING_SOURCE_INELIGIBLE', 'The embedded wallet is not a funding source of this card.');
  return card;
}

/**
 * POST /auth/delegated-keys {cardId, internalAccountId, nickname}: signed by a session of the wallet. The
 * signer is created at the custody provider (PENDING), then activated. Errors: 400 FUNDING_SOURCE_INELIGIBLE;
 * 401; 404; 409 DELEGATED_KEY_ALREADY_ACTIVE, EMAIL_OTP_CREDENTIAL_SET_CHANGED.
 */
export async function createDelegatedKey(ctx: Ctx, body: { cardId: string; internalAccountId: string; nickname: string }, headers: SignatureHeaders) {
  const w = await getWalletAccount(ctx, body.internalAccountId);
  await cardFundedBy(ctx, body.cardId, body.internalAccountId);
  const active = () => ctx.db.delegatedKey.findFirst({ where: { cardId: body.cardId, fundingSourceId: body.internalAccountId, status: 'ACTIVE' } });
  if (await active()) throw new ConflictError('DELEGATED_KEY_ALREADY_ACTIVE', 'The card funding source already has an ACTIVE delegated key; revoke it first.');
  return signedWalletAction(ctx, w, { resourceId: body.internalAccountId, action: 'POST /auth/delegated-keys', body }, headers, async () => {
    const id = newId('DelegatedKey');
    const signer = await custodyFor(ctx).createDelegatedSigner({ scope: { platformId: ctx.platformId }, custodyRef: w.wallet.custodyRef, idempotencyKey: id });
    const now = ctx.clock.now();
    const pending = await ctx.db.delegatedKey.create({
      data: { id, accountId: body.internalAccountId, cardId: body.cardId, fundingSourceId: body.internalAccountId, publicKey: signer.publicKey, signerRef: signer.signerRef, nickname: body.nickname, status: 'PENDING', createdAt: now, updatedAt: now } as any,
    });
    try {
      return await move(ctx, pending, 'activate');
    } catch (err) {
      // A concurrent create won the one-ACTIVE index: this one stays PENDING (REF: the policy leg never completed).
      if (isUniqueViolation(err)) throw new ConflictError('DELEGATED_KEY_ALREADY_ACTIVE', 'The card funding source already has an ACTIVE delegated key.');
      throw err;
    }
  });
}

export async function listDelegatedKeys(ctx: Ctx, q: { accountId?: string; fundingSourceId?: string; cardId?: string }): Promise<DelegatedKey[]> {
  return ctx.db.delegatedKey.findMany({
    where: { ...(q.accountId ? { accountId: q.accountId } : {}), ...(q.fundingSourceId ? { fundingSourceId: q.fundingSourceId } : {}), ...(q.cardId ? { cardId: q.cardId } : {}) },
    orderBy: { createdAt: 'desc' },
    take: 200,
  });
}

export async function getDelegatedKey(ctx: Ctx, id: string): Promise<DelegatedKey> {
  const k = await ctx.db.delegatedKey.findFirst({ where: { id } });
  if (!k) throw new NotFoundError('NOT_FOUND', 'Delegated key not found.');
  return k;
}

/**
 * DELETE /auth/delegated-keys/{id}: only while ACTIVE (409 INVALID_STATE_TRANSITION otherwise). Not a signed retry:
 * REF revokes with platform credentials alone (204; "Grid uses the custodied delegated key to authorize deleting its
 * own signer identity"), and its CLI has no signature options for it (issue 25, decisions anchor 25c).
 */
export async function revokeDelegatedKey(ctx: Ctx, id: string): Promise<DelegatedKey> {
  const key = await getDelegatedKey(ctx, id);
  if (key.status !== 'ACTIVE') throw new ConflictError('INVALID_STATE_TRANSITION', `The delegated key is ${key.status}; only an ACTIVE key can be revoked.`);
  const revoked = await move(ctx, key, 'revoke');
  await custodyFor(ctx).revokeDelegatedSigner({ scope: { platformId: ctx.platformId }, signerRef: key.signerRef });
  return revoked;
}

/**
 * For card authorization (the cards domain): the ACTIVE delegated key of a wallet-funded card, with a
 * function that signs an authorization payload through the custody provider, or null when the customer
 * granted none (the authorization then needs the customer's own signature, or is declined).
 */
export async function delegatedKeyFor(ctx: Ctx, cardId: string, accountId: string): Promise<{ id: string; publicKey: string; sign(payload: string): Promise<Stamp> } | null> {
  const key = await ctx.db.delegatedKey.findFirst({ where: { cardId, fundingSourceId: accountId, status: 'ACTIVE' } });
  if (!key) return null;
  return {
    id: key.id,
    publicKey: key.publicKey,
    sign: (payload) => custodyFor(ctx).signWithDelegatedSigner({ scope: { platformId: ctx.platformId }, signerRef: key.signerRef, payload }),
  };
}

/**
 * A wallet-funded card's authorization, signed without the customer present (issue 28 item 4, anchor 28b):
 * the card's ACTIVE delegated key signs the authorization at the custody provider, the stamp is checked
 * against the key's public key (the provider is not trusted blindly) and recorded once per processor token.
 * Returns false when the card has no ACTIVE delegated key or the signer was revoked: the cards domain then
 * declines (the wallet's money cannot move unsigned). A repeat of the same token reuses the first signature.
 */
export async function signCardAuthorization(ctx: Ctx, a: { cardId: string; accountId: string; issuerTransactionToken: string; amount: bigint; currency: string }): Promise<boolean> {
  if (await ctx.db.delegatedKeySignature.findFirst({ where: { issuerTransactionToken: a.issuerTransactionToken }, select: { id: true } })) return true;
  const key = await delegatedKeyFor(ctx, a.cardId, a.accountId);
  if (!key) return false;
  // Fixed key order: the payload is the exact string signed and stored.
  const payload = JSON.stringify({ type: 'CARD_AUTHORIZATION', cardId: a.cardId, fundingSourceId: a.accountId, issuerTransactionToken: a.issuerTransactionToken, amount: a.amount.toString(), currency: a.currency });
  let stamp: Stamp;
  try {
    stamp = await key.sign(payload);
  } catch (err) {
    if (err instanceof CustodyError && err.reason === 'SIGNER_REVOKED') return false;
    throw err;
  }
  if (stamp.publicKey !== key.publicKey || !verifyP256Der(key.publicKey, payload, stamp.signature)) {
    ctx.logger.error({ delegatedKeyId: key.id }, 'custody answered a delegated-key stamp that does not verify: authorization declined');
    return false;
  }
  await ctx.db.delegatedKeySignature.createMany({
    data: [{ id: newId('DelegatedKeySignature'), delegatedKeyId: key.id, cardId: a.cardId, issuerTransactionToken: a.issuerTransactionToken, payload, publicKey: stamp.publicKey, signature: stamp.signature.toString('hex'), createdAt: ctx.clock.now() }] as never,
    skipDuplicates: true,
  });
  return true;
}
