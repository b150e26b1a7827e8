import type { AppDeps, Ctx } from '../../deps.js';
import { ctxFor } from '../../deps.js';
import type { TenantTx } from '../../platform/db.js';
import { ConflictError, ValidationError } from '../../platform/errors.js';
import type { Quote } from '../../generated/prisma/client.js';
import { scaApplies, assertNotLocked, recordFailedProof, recordSuccessfulProof } from './sca.customers.js';
import { activeTotp, consumeTotpCode } from './factors.service.js';
import { requireScaSession } from './login.service.js';
import { hashCode, newOneTimeCode } from './sca.model.js';
import { challengeView, codeMatches, findOutstandingChallenge, insertChallenge, resolveChallenge, resolveChallengeCtes, sendChallengeCode, type ScaChallengeView } from './challenges.js';
import type { StatementPart } from '../../platform/one-statement.js';
import { perPlatformGroup } from '../../platform/platform-groups.js';

/**
 * Per-payment authorization challenges (spec "Quote and transaction": POST /quotes for an SCA customer →
 * PENDING_AUTHORIZATION with `scaChallenge`; decisions B§4.2, B§4.4). This domain only opens and verifies the
 * challenges; the payment's status is the payments domain's (src/domains/payments/quotes.authorization.ts):
 * it moves the transaction to PENDING_AUTHORIZATION when it opens the challenge, begins the execution
 * (→ PROCESSING) in the transaction that consumes a verified one, and fails the payment (`failureReason`
 * SCA_NOT_COMPLETED) when the challenge expires. Nothing is held before authorization, so nothing is refunded.
 */

/** What a payment's challenge is for: the quote and its customer; TRANSFER between internal accounts, else PAYOUT. */
export interface QuoteChallengeRequest {
  customerId: string;
  quoteId: string;
  purpose: 'PAYOUT' | 'TRANSFER';
}

/**
 * In the caller's transaction: an outstanding challenge for the quote's payment. Returns what to run after the
 * commit (sending the SMS code: never inside a transaction).
 */
export async function openQuoteChallenge(ctx: Ctx, tx: TenantTx, r: QuoteChallengeRequest): Promise<() => Promise<void>> {
  const customer = await tx.customer.findFirstOrThrow({ where: { id: r.customerId } });
  const totp = await activeTotp(ctx, customer.id);
  const availableFactors: Array<'SMS_OTP' | 'TOTP'> = [...(customer.phoneNumber || !totp ? ['SMS_OTP' as const] : []), ...(totp ? ['TOTP' as const] : [])];
  const { row, code } = await insertChallenge(ctx, tx, customer.id, { purpose: r.purpose, quoteId: r.quoteId, availableFactors });
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
  const customer = quote.customerId ? await ctx.db.customer.findFirst({ where: { id: quote.customerId } }) : null;
  if (!customer || !(await scaApplies(ctx, customer))) throw new ConflictError('CONFLICT', 'The quote is not a payment of a customer under strong customer authentication.');
  await requireScaSession(ctx, customer);
  if (quote.status !== 'PENDING_AUTHORIZATION') throw new ConflictError('CONFLICT', `The quote is ${quote.status}; nothing awaits authorization.`, { status: quote.status });
  return customer;
}

/** A right code for a quote's challenge, to be consumed in the transaction that begins the payment's execution. */
export interface VerifiedQuoteChallenge {
  challengeId: string;
}

/**
 * POST /quotes/{id}/authorize {code}, the proof: a right code is the SMS code, or a current TOTP code where TOTP is
 * available. A wrong one counts towards the lockout. Errors: 400 INVALID_INPUT (wrong or expired code); 409
 * CONFLICT, SCA_SESSION_REQUIRED; 423 ACCOUNT_LOCKED.
 */
export async function verifyQuoteChallenge(ctx: Ctx, quote: Quote, code: string): Promise<VerifiedQuoteChallenge> {
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
  return { challengeId: challenge.id };
}

/**
 * A verified challenge used up by the statement that begins the payment (the payments domain's one writer,
 * money-path.repo.ts startPaymentIn): CTE `sca`, the challenge's compare-and-set, required before anything
 * else of the statement; `refusal` maps the statement's refusal to the request's error (409 CONFLICT: a
 * concurrent request used it).
 */
export function quoteChallengeConsumption(ctx: Ctx, verified: VerifiedQuoteChallenge): StatementPart {
  return {
    add(s) {
      resolveChallengeCtes(ctx, s, verified.challengeId, 'SUCCEEDED', 'sca');
      s.require('sca', 1, 'SCA_CHALLENGE_USED');
    },
    refusal: (code) => (code === 'SCA_CHALLENGE_USED' ? new ConflictError('CONFLICT', 'The challenge was used by a concurrent request.') : undefined),
  };
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
 * Sweep: outstanding login challenges past `expiresAt` become EXPIRED. A quote's challenge is expired by the
 * payments domain's sweep (dueQuoteChallenges, expireQuoteChallenge), in the transaction that fails its payment.
 * Bounded by SCA_SWEEP_BATCH.
 */
export async function expireScaChallenges(deps: AppDeps): Promise<number> {
  const now = deps.clock.now();
  // Issue 29 (29a): per platform group, each read on one shard.
  return perPlatformGroup(deps.prisma, 'sca_challenges', async (platforms) => {
    const due = await deps.prisma.scaChallenge.findMany({
      where: { platformId: { in: platforms }, status: 'OUTSTANDING', quoteId: null, expiresAt: { lt: now } },
      select: { id: true, platformId: true },
      orderBy: { expiresAt: 'asc' },
      take: deps.config.SCA_SWEEP_BATCH,
    });
    for (const c of due) {
      const ctx = ctxFor(deps, c.platformId);
      await resolveChallenge(ctx, ctx.db, c.id, 'EXPIRED').catch((err) => deps.logger.warn({ err, challengeId: c.id }, 'SCA challenge expiry failed'));
    }
    return due.length;
  });
}

/** Outstanding quote challenges past `expiresAt`, oldest first, at most `limit` (SCA_SWEEP_BATCH). */
export async function dueQuoteChallenges(deps: AppDeps, limit: number): Promise<Array<{ id: string; platformId: string; quoteId: string }>> {
  // Issue 29 (29a): per platform group, each read on one shard (at most `limit` per group).
  const out: Array<{ id: string; platformId: string; quoteId: string }> = [];
  await perPlatformGroup(deps.prisma, 'sca_challenges', async (platforms) => {
    const due = await deps.prisma.scaChallenge.findMany({
      where: { platformId: { in: platforms }, status: 'OUTSTANDING', quoteId: { not: null }, expiresAt: { lt: deps.clock.now() } },
      select: { id: true, platformId: true, quoteId: true },
      orderBy: { expiresAt: 'asc' },
      take: limit,
    });
    out.push(...due.map((c) => ({ id: c.id, platformId: c.platformId, quoteId: c.quoteId! })));
    return due.length;
  });
  return out;
}

/** In the caller's transaction: the challenge → EXPIRED; false when it was resolved meanwhile. */
export function expireQuoteChallenge(ctx: Ctx, tx: TenantTx, challengeId: string): Promise<boolean> {
  return resolveChallenge(ctx, tx, challengeId, 'EXPIRED');
}
