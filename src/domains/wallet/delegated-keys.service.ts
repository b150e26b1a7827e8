import type { Ctx } from '../../deps.js';
import { custodyFor } from '../../adapters/custody/index.js';
import type { Stamp } from '../../adapters/custody/port.js';
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

/** DELETE /auth/delegated-keys/{id}: only while ACTIVE (409 INVALID_STATE_TRANSITION otherwise); signed. */
export async function revokeDelegatedKey(ctx: Ctx, id: string, headers: SignatureHeaders) {
  const key = await getDelegatedKey(ctx, id);
  if (key.status !== 'ACTIVE') throw new ConflictError('INVALID_STATE_TRANSITION', `The delegated key is ${key.status}; only an ACTIVE key can be revoked.`);
  const w = await getWalletAccount(ctx, key.accountId);
  return signedWalletAction(ctx, w, { resourceId: id, action: 'DELETE /auth/delegated-keys/{id}', body: {} }, headers, async () => {
    const revoked = await move(ctx, key, 'revoke');
    await custodyFor(ctx).revokeDelegatedSigner({ scope: { platformId: ctx.platformId }, signerRef: key.signerRef });
    return revoked;
  });
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
