import type { Ctx } from '../../deps.js';
import type { TenantTx } from '../../platform/db.js';
import { BadRequestError, ConflictError } from '../../platform/errors.js';
import type { Transaction } from '../../generated/prisma/client.js';
import { beginExecution } from './quotes.service.js';
import { releaseDailyUsage, settleActionOfTransaction } from '../agents/index.js';
import { failPayment, transitionTransaction } from './transactions.repo.js';
import { enqueueRefund } from './transactions.jobs.js';
import { getTransaction } from './transactions.service.js';
import { approveIncoming, rejectIncoming } from './incoming-approval.js'; // hook:25c

const notPendingApproval = () => new ConflictError('TRANSACTION_NOT_PENDING_PLATFORM_APPROVAL', 'The transaction is not waiting for platform approval (not pending, already decided, or timed out).');

function isAwaitingApproval(t: Transaction, now: Date, quoteExpiresAt: Date | null): boolean {
  return t.status === 'PENDING' && t.pendingReason === 'PLATFORM_APPROVAL' && (!quoteExpiresAt || quoteExpiresAt > now);
}

async function approvalState(ctx: Ctx, id: string): Promise<Transaction> {
  const t = await getTransaction(ctx, id);
  const quote = t.quoteId ? await ctx.db.quote.findFirst({ where: { id: t.quoteId }, select: { expiresAt: true } }) : null;
  if (!isAwaitingApproval(t, ctx.clock.now(), quote?.expiresAt ?? null)) throw notPendingApproval();
  return t;
}

/** A lost compare-and-set (decided concurrently) reads as "no longer pending approval". */
function mapRace(err: unknown, mapped: () => Error): never {
  if ((err as { code?: string })?.code === 'INVALID_STATE_TRANSITION') throw mapped();
  throw err;
}

/**
 * POST /transactions/{id}/approve (A17, B§6.2): an incoming payment waiting for the platform's decision proceeds
 * (REF's handshake, incoming-approval.ts); an agent payment waiting for the platform proceeds as an
 * execution would — funds held, PROCESSING, submitted. The quote's rate holds for the approval window
 * (AGENT_APPROVAL_WINDOW_SECONDS); after it the payment expires. Errors: 404 TRANSACTION_NOT_FOUND;
 * 409 TRANSACTION_NOT_PENDING_PLATFORM_APPROVAL; 400 INSUFFICIENT_FUNDS (it then stays pending).
 */
export async function approveTransaction(ctx: Ctx, id: string): Promise<Transaction> {
  const t = await approvalState(ctx, id);
  if (t.type === 'INCOMING') return approveIncoming(ctx, t); // hook:25c — REF's incoming-payment handshake
  const execution = await ctx.db
    .$transaction(async (tx) => {
      const fresh = await tx.transaction.findFirstOrThrow({ where: { id: t.id } });
      if (fresh.pendingReason !== 'PLATFORM_APPROVAL') throw notPendingApproval();
      await settleActionOfTransaction(ctx, tx, fresh.id, 'approve'); // issue 26: its AgentAction follows
      return beginExecution(ctx, tx, fresh, { by: 'APPROVAL' });
    })
    .catch((err) => mapRace(err, notPendingApproval));
  await execution.afterCommit();
  return getTransaction(ctx, id);
}

/**
 * POST /transactions/{id}/reject: the waiting agent payment fails (failureReason PLATFORM_REJECTED,
 * OUTGOING_PAYMENT.FAILED). Nothing was held, so nothing is refunded; the agent's daily limit gets the
 * amount back. `actionFailure`: the approval of its AgentAction failed with this code (issue 26; the action
 * becomes FAILED, not REJECTED). Errors: 404; 409 TRANSACTION_NOT_PENDING_PLATFORM_APPROVAL.
 */
export async function rejectTransaction(ctx: Ctx, id: string, reason?: string, actionFailure?: string): Promise<Transaction> {
  const t = await approvalState(ctx, id);
  if (t.type === 'INCOMING') return rejectIncoming(ctx, t, reason ?? 'PLATFORM_REJECTED'); // hook:25c
  await ctx.db
    .$transaction(async (tx) => {
      const fresh = await tx.transaction.findFirstOrThrow({ where: { id: t.id } });
      if (fresh.pendingReason !== 'PLATFORM_APPROVAL') throw notPendingApproval();
      await transitionTransaction(ctx, tx, fresh, 'reject', { failureReason: 'PLATFORM_REJECTED' }, reason ?? 'PLATFORM_REJECTED');
      await giveBackDailyUsage(ctx, tx, fresh);
      // Issue 26: its AgentAction follows — REJECTED, or FAILED when an approval's execution was refused (`actionFailure`).
      await settleActionOfTransaction(ctx, tx, fresh.id, actionFailure ? 'fail' : 'reject', actionFailure ?? reason);
    })
    .catch((err) => mapRace(err, notPendingApproval));
  return getTransaction(ctx, id);
}

async function giveBackDailyUsage(ctx: Ctx, tx: TenantTx, t: Transaction): Promise<void> {
  if (t.agentId && t.agentCountedAmount && t.approvalRequestedAt) await releaseDailyUsage(ctx, tx, t.agentId, t.agentCountedAmount, t.approvalRequestedAt);
}

const notCancellable = (status: string) => new ConflictError('TRANSACTION_NOT_CANCELLABLE', `The transaction is ${status}; only one not yet settled can be cancelled.`, { status });

/**
 * POST /transactions/{id}/cancel (B§6.2): stops an outgoing payment not yet settled. PENDING (quote not
 * executed, waiting for approval or SCA authorization) → FAILED with failureReason USER_CANCELLATION;
 * nothing was held, so there is no refund. PROCESSING → FAILED and a refund with reason
 * USER_CANCELLATION: the hold is released, or, once submitted, the rail is asked to return the payout.
 * Errors: 400 INVALID_INPUT (incoming payments); 404; 409 TRANSACTION_NOT_CANCELLABLE (settled, failed, expired).
 */
export async function cancelTransaction(ctx: Ctx, id: string, reason?: string): Promise<Transaction> {
  const t = await getTransaction(ctx, id);
  if (t.type !== 'OUTGOING') throw new BadRequestError('INVALID_INPUT', 'Only outgoing payments can be cancelled.');
  if (!['PENDING', 'PENDING_AUTHORIZATION', 'PROCESSING'].includes(t.status)) throw notCancellable(t.status);
  await ctx.db
    .$transaction(async (tx) => {
      // Row lock: serialises with the settlement job's submission claim (settlement.service.ts).
      await tx.$queryRaw`SELECT id FROM transactions WHERE id = ${t.id} AND platform_id = ${ctx.platformId} FOR UPDATE`;
      const fresh = await tx.transaction.findFirstOrThrow({ where: { id: t.id } });
      if (fresh.status === 'PROCESSING' && fresh.submittedAt && !fresh.railReference) throw notCancellable('being submitted to the rail; retry shortly');
      if (fresh.status === 'PROCESSING') await failPayment(ctx, tx, fresh, 'cancel', 'USER_CANCELLATION', reason ?? 'USER_CANCELLATION', 'USER_CANCELLATION');
      else await transitionTransaction(ctx, tx, fresh, 'cancel', { failureReason: 'USER_CANCELLATION' }, reason ?? 'USER_CANCELLATION');
      if (fresh.status !== 'PROCESSING' && fresh.pendingReason === 'PLATFORM_APPROVAL') {
        await giveBackDailyUsage(ctx, tx, fresh);
        await settleActionOfTransaction(ctx, tx, fresh.id, 'cancel'); // issue 26: its AgentAction follows
      }
    })
    .catch((err) => mapRace(err, () => notCancellable('already settled or decided')));
  const after = await getTransaction(ctx, id);
  // The refund job now rather than at the next sweep (the job is idempotent).
  if (after.refundStatus === 'PENDING') await enqueueRefund(ctx, { platformId: ctx.platformId, transactionId: after.id });
  return after;
}
