import type { AppDeps, Ctx } from '../../deps.js';
import { ctxFor } from '../../deps.js';
import type { TenantTx } from '../../platform/db.js';
import type { Transaction } from '../../generated/prisma/client.js';
import { dueQuoteChallenges, expireQuoteChallenge, openQuoteChallenge } from '../sca/index.js';
import { transitionTransaction } from './transactions.repo.js';

/*
 * The payment's side of strong customer authentication (spec Authentication 4, decisions B§4.2, B§4.4): the
 * statuses are this domain's; the challenges are src/domains/sca's, which opens and verifies them. The
 * execution after a verified code is `beginExecution` with `{ by: 'AUTHORIZE' }` (authorizeQuote).
 */

/**
 * In the caller's transaction: the transaction (and its quote) → PENDING_AUTHORIZATION, and a challenge for it.
 * Returns what to run after the commit (sending the SMS code: never inside a transaction).
 */
export async function requireQuoteAuthorization(ctx: Ctx, tx: TenantTx, t: Transaction): Promise<() => Promise<void>> {
  await transitionTransaction(ctx, tx, t, 'requireAuthorization');
  return openQuoteChallenge(ctx, tx, { customerId: t.customerId!, quoteId: t.quoteId!, purpose: t.destinationKind === 'INTERNAL' ? 'TRANSFER' : 'PAYOUT' });
}

/**
 * Sweep: a quote's challenge past `expiresAt` becomes EXPIRED and a payment still awaiting authorization fails
 * with SCA_NOT_COMPLETED (decisions B§4.2), in one transaction. Bounded by SCA_SWEEP_BATCH; each item is its
 * own transaction.
 */
export async function expireQuoteAuthorizations(deps: AppDeps): Promise<number> {
  const due = await dueQuoteChallenges(deps, deps.config.SCA_SWEEP_BATCH);
  for (const c of due) {
    const ctx = ctxFor(deps, c.platformId);
    await ctx.db
      .$transaction(async (tx) => {
        if (!(await expireQuoteChallenge(ctx, tx, c.id))) return;
        const t = await tx.transaction.findFirst({ where: { quoteId: c.quoteId } });
        if (t?.status === 'PENDING_AUTHORIZATION') await transitionTransaction(ctx, tx, t, 'authorizationExpired', { failureReason: 'SCA_NOT_COMPLETED' }, 'SCA_NOT_COMPLETED');
      })
      .catch((err) => deps.logger.warn({ err, challengeId: c.id }, 'SCA challenge expiry failed'));
  }
  return due.length;
}
