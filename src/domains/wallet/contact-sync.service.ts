import type { Ctx } from '../../deps.js';
import { custodyFor } from '../../adapters/custody/index.js';
import { CustodyError } from '../../adapters/custody/port.js';
import { BadRequestError, ConflictError, DomainError } from '../../platform/errors.js';
import { isUniqueViolation, type TenantTx } from '../../platform/db.js';
import type { AuthCredential } from '../../generated/prisma/client.js';
import {
  consumeSignedChallenge, hasSignatureHeaders, issueSignedChallenge, signatureHeadersOf, verifySignedRetry,
  type SignatureHeaders, type SignedRequestChallenge, type SignerSource,
} from '../signing/index.js';
import { credentialSetHash } from './wallet.model.js';

/**
 * A customer's email or phone change tied to embedded-wallet OTP credentials (issue 28, anchor 28b; REF
 * `PATCH /customers/{customerId}`): a signed retry by a live session of one of the customer's wallets,
 * after which the customer's contact and every tied credential change together or not at all. The
 * custody provider is told first, outside any transaction; the database then changes in the customers
 * domain's one transaction (customer row, credentials, the challenge consumed); if that transaction
 * fails, the provider is told the old contact again (`undo`).
 */

export type ContactGate =
  | { kind: 'NONE' }
  | { kind: 'CHALLENGE'; challenge: SignedRequestChallenge }
  | { kind: 'SIGNED'; apply(tx: TenantTx): Promise<void>; undo(): Promise<void> };

const ACTION = 'PATCH /customers/{id}';
const FAILED = 'EMAIL_OTP_CREDENTIAL_SYNC_FAILED';

interface Change {
  customer: { id: string; email: string | null; phoneNumber: string | null };
  next: { email: string | null; phoneNumber: string | null };
  /** The request's update fields, bound into the challenge (REF: the retry must carry the same). */
  body: unknown;
}

/** The credentials the change touches: EMAIL_OTP when the email changes, SMS_OTP when the phone does. */
async function tiedCredentials(ctx: Ctx, c: Change): Promise<AuthCredential[]> {
  const types = [...(c.next.email !== c.customer.email ? ['EMAIL_OTP'] : []), ...(c.next.phoneNumber !== c.customer.phoneNumber ? ['SMS_OTP'] : [])];
  if (types.length === 0) return [];
  return ctx.db.authCredential.findMany({ where: { customerId: c.customer.id, revokedAt: null, type: { in: types } }, orderBy: { createdAt: 'asc' } });
}

/** The new contact of a credential: emails compared lower-cased (as the EMAIL_OTP uniqueness rule does). */
const contactFor = (c: AuthCredential, next: Change['next']) => (c.type === 'EMAIL_OTP' ? next.email! : next.phoneNumber!);
const stored = (type: string, contact: string) => (type === 'EMAIL_OTP' ? contact.toLowerCase() : contact);

/** REF: email and phone in separate calls; a tied contact cannot be removed; 409 when another credential holds it. */
async function assertChangeAllowed(ctx: Ctx, c: Change, tied: AuthCredential[]): Promise<void> {
  if (c.next.email !== c.customer.email && c.next.phoneNumber !== c.customer.phoneNumber) {
    throw new BadRequestError('INVALID_INPUT', 'Update email and phoneNumber in separate PATCH calls: the customer has embedded-wallet OTP credentials.', { errors: [{ field: 'phoneNumber', message: 'Change it in a separate call.' }] });
  }
  const field = tied[0]!.type === 'EMAIL_OTP' ? 'email' : 'phoneNumber';
  const value = tied[0]!.type === 'EMAIL_OTP' ? c.next.email : c.next.phoneNumber;
  if (!value) throw new BadRequestError('INVALID_INPUT', `The ${field} authenticates the customer's embedded wallet and cannot be removed.`, { errors: [{ field, message: 'Required while an OTP credential uses it.' }] });
  const taken = await ctx.db.authCredential.findFirst({ where: { type: tied[0]!.type, contact: stored(tied[0]!.type, value), revokedAt: null, customerId: { not: c.customer.id } }, select: { id: true } });
  if (taken) throw duplicate(tied[0]!.type);
}

function duplicate(type: string): DomainError {
  return type === 'EMAIL_OTP'
    ? new ConflictError('EMAIL_OTP_EMAIL_ALREADY_EXISTS', 'The email is already associated with an EMAIL_OTP credential.')
    : new ConflictError('CONFLICT', 'The phone number is already associated with an SMS_OTP credential.');
}

/** Any live session of the customer's wallets may sign; the challenge commits to the tied credential set. */
function customerWalletSigners(ctx: Ctx, customerId: string, types: string[]): SignerSource {
  return {
    setHash: async () => credentialSetHash((await ctx.db.authCredential.findMany({ where: { customerId, revokedAt: null, type: { in: types } }, select: { id: true } })).map((r) => r.id)),
    allows: async (publicKey) => (await ctx.db.authSession.count({ where: { publicKey, revokedAt: null, expiresAt: { gt: ctx.clock.now() }, accountId: { in: (await ctx.db.embeddedWallet.findMany({ where: { customerId }, select: { id: true } })).map((w) => w.id) } } })) > 0,
    setChangedCode: 'EMAIL_OTP_CREDENTIAL_SET_CHANGED',
  };
}

/**
 * Called by PATCH /customers/{id} before it writes. NONE: no tied credential, the PATCH goes on as usual.
 * CHALLENGE: answer 202. SIGNED: the retry verified and the provider updated; the caller runs `apply` in its
 * transaction and `undo` if that transaction fails. Errors: 400 INVALID_INPUT; 401 WALLET_SIGNATURE_*;
 * 409 EMAIL_OTP_EMAIL_ALREADY_EXISTS, CONFLICT (phone), EMAIL_OTP_CREDENTIAL_SET_CHANGED; 424 EMAIL_OTP_CREDENTIAL_SYNC_FAILED.
 * Takes the request's raw headers (the customers domain cannot read the signing domain's: it sits below it).
 */
export async function gateContactChange(ctx: Ctx, c: Change, rawHeaders: Record<string, string | string[] | undefined>): Promise<ContactGate> {
  const headers: SignatureHeaders = signatureHeadersOf(rawHeaders);
  const tied = await tiedCredentials(ctx, c);
  if (tied.length === 0) return { kind: 'NONE' };
  await assertChangeAllowed(ctx, c, tied);
  const target = { customerId: c.customer.id, resourceId: c.customer.id, action: ACTION, body: c.body ?? {}, signers: customerWalletSigners(ctx, c.customer.id, [...new Set(tied.map((t) => t.type))]) };
  if (!hasSignatureHeaders(headers)) return { kind: 'CHALLENGE', challenge: await issueSignedChallenge(ctx, target) };
  const requestId = await verifySignedRetry(ctx, target, headers);
  const undo = await syncCustody(ctx, tied, c.next);
  return {
    kind: 'SIGNED',
    undo,
    async apply(tx) {
      await consumeSignedChallenge(ctx, tx, requestId);
      for (const t of tied) {
        const contact = contactFor(t, c.next);
        try {
          // A savepoint-free write: a unique violation aborts the customers transaction, which is what we want.
          await tx.authCredential.updateMany({ where: { id: t.id, revokedAt: null }, data: { contact: stored(t.type, contact), nickname: contact, updatedAt: ctx.clock.now() } });
        } catch (err) {
          if (isUniqueViolation(err)) throw duplicate(t.type);
          throw err;
        }
      }
    },
  };
}

/**
 * Points every tied credential at the new contact at the provider. One refusal: those already changed are
 * changed back and the PATCH answers 424 (nothing written). Returns the undo of a complete sync.
 */
async function syncCustody(ctx: Ctx, tied: AuthCredential[], next: Change['next']): Promise<() => Promise<void>> {
  const custody = custodyFor(ctx);
  const scope = { platformId: ctx.platformId };
  const refs = new Map((await ctx.db.embeddedWallet.findMany({ where: { id: { in: tied.map((t) => t.accountId) } }, select: { id: true, custodyRef: true } })).map((w) => [w.id, w.custodyRef]));
  const point = (t: AuthCredential, contact: string) => custody.updateCredentialContact({ scope, custodyRef: refs.get(t.accountId)!, credentialId: t.id, type: t.type as 'EMAIL_OTP' | 'SMS_OTP', contact });
  const done: AuthCredential[] = [];
  const undo = async () => {
    for (const t of done) await point(t, t.contact ?? t.nickname).catch((err) => ctx.logger.error({ err, credentialId: t.id }, 'custody contact not restored after a failed customer update'));
  };
  for (const t of tied) {
    try {
      await point(t, contactFor(t, next));
      done.push(t);
    } catch (err) {
      await undo();
      if (err instanceof CustodyError) throw new DomainError(424, FAILED, 'Failed to update one or more tied EMAIL_OTP credentials; the customer was not changed.', { failedCredentialIds: [t.id], reason: err.reason });
      throw err;
    }
  }
  return undo;
}
