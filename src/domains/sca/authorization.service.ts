import type { AppDeps, Ctx } from '../../deps.js';
import { ctxFor } from '../../deps.js';
import type { TenantTx } from '../../platform/db.js';
import { ConflictError, ValidationError } from '../../platform/errors.js';
import type { Quote, Transaction } from '../../generated/prisma/client.js';
import { transitionTransaction } from '../payments/transactions.repo.js';
import { enqueueSubmit } from '../payments/transactions.jobs.js';
import { scaApplies, assertNotLocked, recordFailedProof, recordSuccessfulProof } from './sca.customers.js';
import { activeTotp, consumeTotpCode } from './factors.service.js';
import { requireScaSession } from './login.service.js';
import { hashCode, newOneTimeCode } from './sca.model.js';
import { challengeView, codeMatches, findOutstandingChallenge, insertChallenge, resolveChallenge, sendChallengeCode, type ScaChallengeView } from './challenges.js';

/**
 * Per-payment authorization (spec "Quote and transaction": POST /quotes for an SCA customer → PENDING_AUTHORIZATION
 * with `scaChallenge`; decisions B§4.2, B§4.4). The quote's transaction moves PENDING → PENDING_AUTHORIZATION
 * in the transaction that creates it; POST /quotes/{id}/authorize with the code holds the funds and starts the
 * payout (→ PROCESSING) through the quotes module's hold path; a challenge left to expire fails the payment
 * (`failureReason` SCA_NOT_COMPLETED) in the sweep. Nothing is held before authorization, so nothing is refunded.
 */

/**
 * In the caller's transaction: the transaction (and its quote) → PENDING_AUTHORIZATION, plus a challenge.
 * Returns what to run after the commit (sending the SMS code: never inside a transaction).
 */
export async function requireQuoteAuthorization(ctx: Ctx, tx: TenantTx, t: Transaction): Promise<() => Promise<void>> {
  const customer = await tx.customer.findUniqueOrThrow({ where: { id: t.customerId! } });
  const totp = await activeTotp(ctx, customer.id);
  const availableFactors: Array<'SMS_OTP' | 'TOTP'> = [...(customer.phoneNumber || !totp ? ['SMS_OTP' as const] : []), ...(totp ? ['TOTP' as const] : [])];
  await transitionTransaction(ctx, tx, t, 'requireAuthorization');
  const { row, code } = await insertChallenge(ctx, tx, customer.id, { purpose: t.destinationKind === 'INTERNAL' ? 'TRANSFER' : 'PAYOUT', quoteId: t.quoteId, availableFactors });
  return () => (availableFactors.includes('SMS_OTP') ? sendChallengeCode(ctx, customer, row, code) : Promise.resolve());
}

/** The `scaChallenge` of a quote awaiting authorization, for its resource; undefined otherwise. */
export async function quoteScaChallenge(ctx: Ctx, quote: Quote): Promise<ScaChallengeView | undefined> {
  if (quote.status !== 'PENDING_AUTHORIZATION' || !quote.customerId) return undefined;
  const c = await ctx.db.scaChallenge.findFirst({ where: { quoteId: quote.id, status: 'OUTSTANDING' }, orderBy: { id: 'desc' } });
  return c ? challengeView(c) : undefined;
}

/** Errors shared by authorize and resend: 409 CONFLICT (not an SCA customer, nothing to authorize), 409 SCA_SESSION_REQUIRED. */
async function quoteAwaitingAuthorization(ctx: Ctx, quote: Quote) {
  const customer = quote.customerId ? await ctx.db.customer.findUnique({ where: { id: quote.customerId } }) : null;
  if (!customer || !(await scaApplies(ctx, customer))) throw new ConflictError('CONFLICT', 'The quote is not a payment of a customer under strong customer authentication.');
  await requireScaSession(ctx, customer);
  if (quote.status !== 'PENDING_AUTHORIZATION') throw new ConflictError('CONFLICT', `The quote is ${quote.status}; nothing awaits authorization.`, { status: quote.status });
  return customer;
}

/**
 * POST /quotes/{id}/authorize {code}. A right code (the SMS code, or a current TOTP code where TOTP is
 * available) holds the funds and moves the payment to PROCESSING; the submission is queued after the commit.
 * Errors: 400 INVALID_INPUT (wrong or expired code), INSUFFICIENT_FUNDS; 404 QUOTE_NOT_FOUND; 409 CONFLICT,
 * SCA_SESSION_REQUIRED; 423 ACCOUNT_LOCKED.
 */
export async function authorizeQuote(
  ctx: Ctx,
  quote: Quote,
  code: string,
  release: (tx: TenantTx, t: Transaction) => Promise<unknown>,
): Promise<void> {
  const customer = await quoteAwaitingAuthorization(ctx, quote);
  await assertNotLocked(ctx, customer.id);
  const challenge = await findOutstandingChallenge(ctx, customer.id, { quoteId: quote.id });
  if (!challenge) throw new ValidationError([{ field: 'code', message: 'The authorization challenge expired; the payment will fail. Create a new quote.' }]);
  const ok = codeMatches(challenge, code) || (challenge.availableFactors.includes('TOTP') && (await consumeTotpCode(ctx, customer.id, code)));
  if (!ok) {
    const locked = await recordFailedProof(ctx, customer.id);
    if (locked) throw locked;
    throw new ValidationError([{ field: 'code', message: 'Wrong code.' }]);
  }
  await recordSuccessfulProof(ctx, customer.id);
  await ctx.db.$transaction(async (tx) => {
    if (!(await resolveChallenge(ctx, tx, challenge.id, 'SUCCEEDED'))) throw new ConflictError('CONFLICT', 'The challenge was used by a concurrent request.');
    const t = await tx.transaction.findUniqueOrThrow({ where: { id: quote.transactionId } });
    await release(tx, t);
  });
  await enqueueSubmit(ctx, { platformId: ctx.platformId, transactionId: quote.transactionId });
}

/**
 * POST /quotes/{id}/authorize/resend: a new code on the same challenge (only hashes are kept, so the old code
 * cannot be re-sent); `expiresAt` is not extended. Errors: 404; 409 (no outstanding SMS challenge, CONFLICT,
 * SCA_SESSION_REQUIRED).
 */
export async function resendQuoteChallenge(ctx: Ctx, quote: Quote): Promise<void> {
  const customer = await quoteAwaitingAuthorization(ctx, quote);
  const challenge = await findOutstandingChallenge(ctx, customer.id, { quoteId: quote.id });
  if (!challenge || !challenge.availableFactors.includes('SMS_OTP') || !customer.phoneNumber) {
    throw new ConflictError('CONFLICT', 'No SMS challenge is outstanding for this quote.');
  }
  const { code } = await rotateCode(ctx, challenge.id);
  await sendChallengeCode(ctx, customer, challenge, code);
}

async function rotateCode(ctx: Ctx, challengeId: string): Promise<{ code: string }> {
  const code = newOneTimeCode(ctx.config.SVC_ENV === 'sandbox');
  await ctx.db.scaChallenge.updateMany({ where: { id: challengeId, status: 'OUTSTANDING' }, data: { codeHash: hashCode(challengeId, code) } });
  return { code };
}

/**
 * Sweep: outstanding challenges past `expiresAt` become EXPIRED; a quote still awaiting authorization fails
 * with SCA_NOT_COMPLETED (decisions B§4.2). Bounded by SCA_SWEEP_BATCH; each item is its own transaction.
 */
export async function expireScaChallenges(deps: AppDeps): Promise<number> {
  const now = deps.clock.now();
  const due = await deps.prisma.scaChallenge.findMany({
    where: { status: 'OUTSTANDING', expiresAt: { lt: now } },
    select: { id: true, platformId: true, quoteId: true },
    orderBy: { expiresAt: 'asc' },
    take: deps.config.SCA_SWEEP_BATCH,
  });
  for (const c of due) {
    const ctx = ctxFor(deps, c.platformId);
    await ctx.db
      .$transaction(async (tx) => {
        if (!(await resolveChallenge(ctx, tx, c.id, 'EXPIRED')) || !c.quoteId) return;
        const t = await tx.transaction.findUnique({ where: { quoteId: c.quoteId } });
        if (t?.status === 'PENDING_AUTHORIZATION') await transitionTransaction(ctx, tx, t, 'authorizationExpired', { failureReason: 'SCA_NOT_COMPLETED' }, 'SCA_NOT_COMPLETED');
      })
      .catch((err) => deps.logger.warn({ err, challengeId: c.id }, 'SCA challenge expiry failed'));
  }
  return due.length;
}
