import { timingSafeEqual } from 'node:crypto';
import type { Ctx } from '../../deps.js';
import type { TenantTx } from '../../platform/db.js';
import { newId } from '../../platform/ids.js';
import type { Customer, ScaChallenge as ScaChallengeRow } from '../../generated/prisma/client.js';
import { statusColumn, transitionCtes, tryTransition, type CteChain } from '../../platform/state-machine.js';
import { hashCode, newOneTimeCode, scaChallengeLifecycle } from './sca.model.js';

/**
 * One-time-code challenges (table sca_challenges): SMS login codes and per-quote authorizations. The code is
 * made here, only its salted hash stored, and handed to the notifier after the commit (never inside a
 * transaction). A wrong code does not consume the challenge: guessing is bounded by the lockout ladder.
 */

export type ChallengePurpose = 'LOGIN' | 'PAYOUT' | 'TRANSFER';

/** The spec's `scaChallenge` object (decisions B§6.5). */
export interface ScaChallengeView {
  id: string;
  expiresAt: string;
  factor: 'SMS_OTP' | 'TOTP' | 'PASSKEY';
  availableFactors: Array<'SMS_OTP' | 'TOTP' | 'PASSKEY'>;
  purpose: string | null;
}

export function challengeView(c: ScaChallengeRow): ScaChallengeView {
  return {
    id: c.id,
    expiresAt: c.expiresAt.toISOString(),
    factor: c.factor as ScaChallengeView['factor'],
    availableFactors: c.availableFactors as ScaChallengeView['availableFactors'],
    purpose: c.purpose === 'LOGIN' ? null : c.purpose,
  };
}

interface NewChallenge {
  purpose: ChallengePurpose;
  quoteId: string | null;
  availableFactors: Array<'SMS_OTP' | 'TOTP'>;
}

/** Inserts an outstanding challenge in `tx`; returns the row and the plain code to send after the commit. */
export async function insertChallenge(ctx: Ctx, tx: TenantTx | Ctx['db'], customerId: string, c: NewChallenge): Promise<{ row: ScaChallengeRow; code: string }> {
  const id = newId('ScaChallenge');
  const code = newOneTimeCode(ctx.config.SVC_ENV === 'sandbox');
  const now = ctx.clock.now();
  const row = await tx.scaChallenge.create({
    data: {
      id,
      customerId,
      purpose: c.purpose,
      quoteId: c.quoteId,
      factor: c.availableFactors[0]!,
      availableFactors: c.availableFactors,
      codeHash: hashCode(id, code),
      status: 'OUTSTANDING',
      expiresAt: new Date(now.getTime() + ctx.config.SCA_CHALLENGE_TTL_MS),
      createdAt: now,
    } as any,
  });
  return { row, code };
}

/** Sends the code by SMS to the customer's phone number (when it has one). */
export async function sendChallengeCode(ctx: Ctx, customer: Pick<Customer, 'id' | 'phoneNumber'>, challenge: ScaChallengeRow, code: string): Promise<void> {
  if (!customer.phoneNumber) return;
  await ctx.adapters.notifier.sendContactCode({ customerId: customer.id, channel: 'phone', to: customer.phoneNumber, code, expiresAt: challenge.expiresAt });
}

/** A new SMS challenge, committed, then its code sent. */
export async function issueSmsChallenge(ctx: Ctx, customer: Customer, c: NewChallenge): Promise<ScaChallengeRow> {
  const { row, code } = await insertChallenge(ctx, ctx.db, customer.id, c);
  await sendChallengeCode(ctx, customer, row, code);
  return row;
}

/** The newest outstanding, unexpired challenge of this purpose (and quote), or the named one. */
export async function findOutstandingChallenge(ctx: Ctx, customerId: string, where: { purpose?: ChallengePurpose; challengeId?: string; quoteId?: string }): Promise<ScaChallengeRow | null> {
  const c = await ctx.db.scaChallenge.findFirst({
    where: {
      customerId,
      status: 'OUTSTANDING',
      ...(where.challengeId ? { id: where.challengeId } : {}),
      ...(where.purpose ? { purpose: where.purpose } : {}),
      ...(where.quoteId ? { quoteId: where.quoteId } : {}),
    },
    orderBy: { id: 'desc' },
  });
  if (!c || c.expiresAt.getTime() <= ctx.clock.now().getTime()) return null;
  return c;
}

export function codeMatches(c: ScaChallengeRow, code: string): boolean {
  const expected = Buffer.from(c.codeHash ?? '', 'hex');
  const given = Buffer.from(hashCode(c.id, code), 'hex');
  return expected.length === given.length && timingSafeEqual(expected, given);
}

const challengeStatus = statusColumn(scaChallengeLifecycle, 'sca_challenges', 'status');
const EVENT_FOR = { SUCCEEDED: 'succeed', FAILED: 'fail', EXPIRED: 'expire' } as const;

/** Resolves an outstanding challenge (compare-and-set): false when another request resolved it first. */
export async function resolveChallenge(ctx: Ctx, tx: TenantTx | Ctx['db'], id: string, status: 'SUCCEEDED' | 'FAILED' | 'EXPIRED'): Promise<boolean> {
  return (await tryTransition(tx, ctx, challengeStatus, EVENT_FOR[status], id, { set: { resolvedAt: ctx.clock.now() } })) !== null;
}

/** resolveChallenge as CTEs of a larger statement: the compare-and-set `<name>` and its history row; the caller requires `<name>`. */
export function resolveChallengeCtes(ctx: Ctx, s: CteChain, id: string, status: 'SUCCEEDED' | 'FAILED' | 'EXPIRED', name: string): void {
  transitionCtes(s, ctx, challengeStatus, EVENT_FOR[status], id, { name, set: { resolvedAt: ctx.clock.now() } });
}

/** Checks an SMS code against the outstanding challenge and consumes it when right. */
export async function checkSmsChallenge(ctx: Ctx, customerId: string, q: { purpose: ChallengePurpose; challengeId?: string; code: string }): Promise<boolean> {
  const c = await findOutstandingChallenge(ctx, customerId, { purpose: q.purpose, challengeId: q.challengeId });
  if (!c || !codeMatches(c, q.code)) return false;
  return resolveChallenge(ctx, ctx.db, c.id, 'SUCCEEDED');
}
