import type { AgentActor, Ctx } from '../../deps.js';
import type { TenantTx } from '../../platform/db.js';
import { NotFoundError } from '../../platform/errors.js';
import { newId } from '../../platform/ids.js';
import { recordEvent } from '../../platform/outbox.js';
import { statusColumn, transitionWhere, tryTransition } from '../../platform/state-machine.js';
import { Prisma, type AgentAction, type Transaction } from '../../generated/prisma/client.js';
import { agentActionLifecycle, needsApproval, type ActionEvent } from './agents.model.js';
import { convertForPolicy, countUsage } from './agents.policy.js';

export const actionNotFound = () => new NotFoundError('NOT_FOUND', 'Agent action not found.');
export const actionStatus = statusColumn(agentActionLifecycle, 'agent_actions', 'status', { notFound: actionNotFound });

/** What an agent's payment start decided: the action recorded and whether it waits for the platform. */
export interface Admission {
  action: AgentAction;
  needsApproval: boolean;
}

/**
 * An agent's payment start (its execute, a transfer-out, the deposit of its real-time quote), in the caller's
 * transaction — the one that writes the money movement: the amount is counted against the agent's limits
 * (exactly, under concurrency: agents.policy.ts countUsage), and REF's AgentAction recorded, APPROVED when the
 * policy lets it through, PENDING_APPROVAL when the platform must decide (announced by announcePendingAction once
 * the caller has set the payment waiting). A pending action expires with its quote: AGENT_APPROVAL_WINDOW_SECONDS,
 * the window the caller gives the quote. Errors: 403 VELOCITY_LIMIT_EXCEEDED; 400 QUOTE_REQUEST_FAILED (no rate).
 */
export async function admitAgentExecution(ctx: Ctx, tx: TenantTx, agent: AgentActor, t: Transaction, policyAmount: bigint, now: Date): Promise<Admission> {
  const threshold = agent.policy.approvalThresholds;
  const thresholdAmount = threshold?.amount == null ? null : threshold.currency === agent.policy.spendingLimits.currency ? policyAmount : await convertForPolicy(ctx, t.sentAmount, t.sendingCurrency, threshold.currency);
  const waits = needsApproval(agent.policy, t.sourceAccountId, thresholdAmount);
  await countUsage(ctx, tx, agent, policyAmount, now);
  const action = await tx.agentAction.create({
    data: {
      id: newId('AgentAction'),
      agentId: agent.agentId,
      customerId: agent.customerId,
      type: agent.actionType ?? 'EXECUTE_QUOTE',
      status: waits ? 'PENDING_APPROVAL' : 'APPROVED',
      quoteId: t.quoteId,
      transactionId: t.id,
      transferDetails: transferDetailsOf(t) as Prisma.InputJsonValue,
      expiresAt: waits ? new Date(now.getTime() + ctx.config.AGENT_APPROVAL_WINDOW_SECONDS * 1000) : null,
      createdAt: now,
      updatedAt: now,
    } as Prisma.AgentActionUncheckedCreateInput,
  });
  return { action, needsApproval: waits };
}

/** REF's AgentTransferDetails, kept for every action (the dashboard shows it; transfer actions answer it). */
function transferDetailsOf(t: Transaction) {
  return { amount: Number(t.sentAmount), currency: t.sendingCurrency, sourceAccountId: t.sourceAccountId, destinationAccountId: t.destinationAccountId };
}

/** AGENT_ACTION.PENDING_APPROVAL with the full AgentAction (REF); `quote`: the quote as the payments domain renders it. */
export async function announcePendingAction(tx: TenantTx, action: AgentAction, platformCustomerId: string | null, quote?: object): Promise<void> {
  await recordEvent(tx, 'AGENT_ACTION.PENDING_APPROVAL', agentActionResource(action, { platformCustomerId, quote }));
}

/**
 * Moves the action of an agent payment decided through the payments domain (POST /transactions/{id}/approve,
 * reject, cancel; the quote's expiry; an approval that failed), in the caller's transaction: approve → APPROVED;
 * reject → REJECTED with the reason; cancel and expire → FAILED (REF has no other end for an undecided action);
 * fail → APPROVED then FAILED (`reason`: why its execution failed). A payment with no pending action (a
 * platform's own, or one already decided) moves nothing.
 */
export async function settleActionOfTransaction(ctx: Ctx, tx: TenantTx, transactionId: string, event: 'approve' | 'reject' | 'cancel' | 'expire' | 'fail', reason?: string): Promise<void> {
  const match = Prisma.sql`"transaction_id" = ${transactionId}`;
  if (event === 'fail') {
    for (const a of await transitionWhere(tx, ctx, actionStatus, 'approve', match)) await transitionWhere(tx, ctx, actionStatus, 'fail', Prisma.sql`"id" = ${a.id}`, { set: { failureReason: reason ?? 'EXECUTION_FAILED' } });
    return;
  }
  const move: ActionEvent = event === 'cancel' ? 'expire' : event;
  const set = event === 'reject' ? { rejectionReason: reason ?? null } : event === 'cancel' ? { failureReason: 'USER_CANCELLATION' } : event === 'expire' ? { failureReason: 'QUOTE_EXPIRED' } : {};
  await transitionWhere(tx, ctx, actionStatus, move, match, { set });
}

/** One action's move (a compare-and-set; a lost race raises 409 AGENT_ACTION_NOT_PENDING). */
export async function moveAction(ctx: Ctx, tx: TenantTx, id: string, event: ActionEvent, set: Partial<Pick<AgentAction, 'rejectionReason' | 'failureReason'>> = {}, reason?: string): Promise<AgentAction | null> {
  return tryTransition(tx, ctx, actionStatus, event, id, { set, ...(reason ? { reason } : {}) });
}

/** REF's AgentAction; `quote` and `transaction` as the payments domain renders them. */
export function agentActionResource(a: AgentAction, o: { platformCustomerId: string | null; quote?: object; transaction?: object }) {
  const transfer = a.type !== 'EXECUTE_QUOTE' && a.transferDetails ? { transferDetails: a.transferDetails } : {};
  return {
    id: a.id,
    agentId: a.agentId,
    customerId: a.customerId,
    platformCustomerId: o.platformCustomerId ?? '',
    status: a.status,
    type: a.type,
    ...(a.type === 'EXECUTE_QUOTE' && o.quote ? { quote: o.quote } : {}),
    ...transfer,
    ...(o.transaction && a.status !== 'PENDING_APPROVAL' && a.status !== 'REJECTED' ? { transaction: o.transaction } : {}),
    ...(a.rejectionReason ? { rejectionReason: a.rejectionReason } : {}),
    ...(a.failureReason ? { failureReason: a.failureReason } : {}),
    createdAt: a.createdAt.toISOString(),
    updatedAt: a.updatedAt.toISOString(),
  };
}
