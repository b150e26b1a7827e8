import type { AgentActor, AppDeps, Ctx } from '../../deps.js';
import { ctxFor } from '../../deps.js';
import { ConflictError, DomainError, NotFoundError, UnauthorizedError } from '../../platform/errors.js';
import { decodeCursor, toPage, type Page } from '../../platform/http/pagination.js';
import { newId } from '../../platform/ids.js';
import { noteIdempotentResource, withoutClaim } from '../../platform/idempotency.js';
import type { AgentAction, Prisma, Transaction } from '../../generated/prisma/client.js';
import {
  actionNotFound, agentActionResource, announcePendingAction, assertMayAct, assertWithinTransactionLimit, countUsage, moveAction, policyOf, releaseDailyUsage,
  convertForPolicy, needsApproval, settleActionOfTransaction, toPolicyAmount, type ActionType, type AgentPermission,
} from '../agents/index.js';
import { beginExecution, executeQuote, getQuote, quoteResource, rejectTransaction, transactionResource } from '../payments/index.js';
import { transferIn, transferOut } from '../ref-compat/index.js';
import { getInternalAccount } from '../ledger/index.js';
import type { SignatureHeaders } from '../signing/index.js';
import { perPlatformGroup, readPerPlatformGroup } from '../../platform/platform-groups.js';

/** The agent making this call; Basic credentials on an agent-only route are 401 (REF: AgentAuth only). */
export function agentOf(ctx: Ctx): AgentActor {
  if (!ctx.agent) throw new UnauthorizedError('UNAUTHORIZED', 'This endpoint is called by an agent with its Bearer access token.');
  return ctx.agent;
}

const notPending = (status: string) => new ConflictError('AGENT_ACTION_NOT_PENDING', `The action is ${status}; only a PENDING_APPROVAL action can be decided.`, { status });

// ------------------------------------------------------------------------------------ reading actions

/** Actions as REF shows them: with their quote, their transaction (once approved) and the customer's platform id. */
export async function actionViews(ctx: Ctx, actions: AgentAction[]) {
  const ids = (pick: (a: AgentAction) => string | null) => [...new Set(actions.map(pick).filter((x): x is string => x !== null))];
  const [quotes, transactions, customers] = await Promise.all([
    ctx.db.quote.findMany({ where: { id: { in: ids((a) => a.quoteId) } } }),
    ctx.db.transaction.findMany({ where: { id: { in: ids((a) => a.transactionId) } } }),
    ctx.db.customer.findMany({ where: { id: { in: ids((a) => a.customerId) } }, select: { id: true, platformCustomerId: true } }),
  ]);
  const byId = <T extends { id: string }>(rows: T[]) => new Map(rows.map((r) => [r.id, r]));
  const q = byId(quotes);
  const t = byId(transactions);
  const c = byId(customers);
  return actions.map((a) => {
    const quote = a.quoteId ? q.get(a.quoteId) : undefined;
    const transaction = a.transactionId ? t.get(a.transactionId) : undefined;
    return agentActionResource(a, { platformCustomerId: c.get(a.customerId)?.platformCustomerId ?? null, ...(quote ? { quote: quoteResource(quote) } : {}), ...(transaction ? { transaction: transactionResource(transaction) } : {}) });
  });
}

export async function actionView(ctx: Ctx, a: AgentAction) {
  return (await actionViews(ctx, [a]))[0]!;
}

interface ActionListQuery {
  limit: number;
  cursor?: string;
  status?: string;
  agentId?: string;
  customerId?: string;
  startDate?: Date;
  endDate?: Date;
  sortOrder?: 'asc' | 'desc';
}

async function listActions(ctx: Ctx, where: Prisma.AgentActionWhereInput, q: ActionListQuery): Promise<Page<AgentAction>> {
  const after = decodeCursor(q.cursor);
  const asc = q.sortOrder === 'asc';
  const created = q.startDate || q.endDate ? { createdAt: { ...(q.startDate ? { gte: q.startDate } : {}), ...(q.endDate ? { lte: q.endDate } : {}) } } : {};
  const rows = await ctx.db.agentAction.findMany({
    where: { ...where, ...created, ...(after ? { id: asc ? { gt: after } : { lt: after } } : {}) },
    orderBy: { id: asc ? 'asc' : 'desc' },
    take: q.limit + 1,
  });
  return toPage(rows, q.limit, (r) => r);
}

/** GET /agents/me/actions: the calling agent's own actions (filter `status`). */
export function listOwnActions(ctx: Ctx, q: ActionListQuery): Promise<Page<AgentAction>> {
  return listActions(ctx, { agentId: agentOf(ctx).agentId, ...(q.status ? { status: q.status } : {}) }, q);
}

/** GET /agents/approvals (REF): actions waiting for the platform, filtered by agent, customer and creation time. */
export function listApprovals(ctx: Ctx, q: ActionListQuery): Promise<Page<AgentAction>> {
  return listActions(ctx, { status: 'PENDING_APPROVAL', ...(q.agentId ? { agentId: q.agentId } : {}), ...(q.customerId ? { customerId: q.customerId } : {}) }, q);
}

/** Errors: 404 NOT_FOUND (also another agent's or another platform's action). */
export async function getAction(ctx: Ctx, agentId: string, id: string): Promise<AgentAction> {
  const a = await ctx.db.agentAction.findFirst({ where: { id } });
  if (!a || a.agentId !== agentId) throw actionNotFound();
  return a;
}

// ------------------------------------------------------------------------------------ the agent acts

/** The action recorded for a payment the agent started (agents.actions.ts admitAgentExecution wrote it). */
async function actionOfTransaction(ctx: Ctx, transactionId: string): Promise<AgentAction> {
  const a = await ctx.db.agentAction.findFirst({ where: { transactionId }, orderBy: { id: 'desc' } });
  if (!a) throw actionNotFound();
  return a;
}

/**
 * POST /agents/me/quotes/{quoteId}/execute (REF): the quote's execution through POST /quotes/{id}/execute's own
 * function; answers the AgentAction (APPROVED with its transaction, or PENDING_APPROVAL). Only the agent's own
 * quotes (REF: 404 for a quote another agent created). Errors: those of executeQuote; 403 FORBIDDEN (policy).
 */
export async function executeAsAgent(ctx: Ctx, quoteId: string, signature: SignatureHeaders): Promise<AgentAction> {
  const agent = agentOf(ctx);
  const quote = await getQuote(ctx, quoteId);
  if (quote.agentId !== agent.agentId) throw new NotFoundError('QUOTE_NOT_FOUND', 'Quote not found.');
  await executeQuote({ ...ctx, agent: { ...agent, actionType: 'EXECUTE_QUOTE' } }, quoteId, signature);
  return actionOfTransaction(ctx, quote.transactionId);
}

/** POST /agents/me/transfer-out (REF): transfer-out's quote, executed under the policy, recorded as TRANSFER_OUT. */
export async function transferOutAsAgent(ctx: Ctx, body: Parameters<typeof transferOut>[1]): Promise<AgentAction> {
  const agent = agentOf(ctx);
  const t = await transferOut({ ...ctx, agent: { ...agent, actionType: 'TRANSFER_OUT' } }, body);
  return actionOfTransaction(ctx, t.id);
}

type TransferInBody = Parameters<typeof transferIn>[1] & { amount: number };

/**
 * POST /agents/me/transfer-in (REF): a pull from the customer's external account into its internal account. Money
 * comes in, so it counts against no spending limit (decisions 26b); the per-transaction limit, account
 * restrictions and approval rules apply. Through the policy at once: recorded APPROVED, then pulled; else
 * PENDING_APPROVAL until the platform approves (the pull happens then). Errors: those of POST /transfer-in; 403.
 */
export async function transferInAsAgent(ctx: Ctx, body: TransferInBody): Promise<AgentAction> {
  const agent = agentOf(ctx);
  const internal = await getInternalAccount(ctx, body.destination.accountId);
  const policyAmount = await toPolicyAmount(ctx, agent, BigInt(body.amount), internal.currency);
  assertWithinTransactionLimit(agent, policyAmount, internal.id);
  const threshold = agent.policy.approvalThresholds;
  const thresholdAmount = threshold?.amount == null ? null : await convertForPolicy(ctx, BigInt(body.amount), internal.currency, threshold.currency);
  const waits = needsApproval(agent.policy, internal.id, thresholdAmount);
  const now = ctx.clock.now();
  const details = { amount: body.amount, currency: internal.currency, sourceAccountId: body.source.accountId, destinationAccountId: internal.id };
  const actionId = newId('AgentAction');
  // The Idempotency-Key record commits with the action: a retry answers this action (the sweep finishes a lost pull).
  noteIdempotentResource(ctx, actionId);
  const action = await ctx.db.$transaction(async (tx) => {
    const a = await tx.agentAction.create({
      data: {
        id: actionId, agentId: agent.agentId, customerId: agent.customerId, type: 'TRANSFER_IN', status: waits ? 'PENDING_APPROVAL' : 'APPROVED',
        transferDetails: details, expiresAt: waits ? new Date(now.getTime() + ctx.config.AGENT_APPROVAL_WINDOW_SECONDS * 1000) : null, createdAt: now, updatedAt: now,
      } as never,
    });
    if (waits) await announcePendingAction(tx, a, internal.customerId ? (await tx.customer.findFirst({ where: { id: internal.customerId } }))?.platformCustomerId ?? null : null);
    return a;
  });
  return waits ? action : pullFor(ctx, action, body);
}

/**
 * The pull's transaction id, derived from the action (26c): every attempt at one action's pull — the request's,
 * the approval's, the owed-work sweep's after a crash — writes the same transaction row, so it is written once.
 */
export const pullTransactionIdOf = (actionId: string) => `Transaction:${actionId.slice(actionId.indexOf(':') + 1)}`;

/**
 * An approved TRANSFER_IN's pull; a refused pull fails the action (APPROVED → FAILED). A pull another attempt
 * already wrote (its transaction id is taken) is linked, not repeated.
 */
async function pullFor(ctx: Ctx, action: AgentAction, body: TransferInBody): Promise<AgentAction> {
  const transactionId = pullTransactionIdOf(action.id);
  let t: Transaction | null = await ctx.db.transaction.findFirst({ where: { id: transactionId } });
  if (!t) {
    try {
      // The action (and the request's Idempotency-Key record) committed already: the pull is its own write.
      t = await transferIn(withoutClaim(ctx), body, { transactionId });
    } catch (err) {
      // Another attempt wrote this pull first (its id is taken; raw writes report that in several shapes): link it.
      const written = err instanceof DomainError ? null : await ctx.db.transaction.findFirst({ where: { id: transactionId } });
      if (written) t = written;
      else if (!(err instanceof DomainError)) throw err;
      else {
        await ctx.db.$transaction((tx) => moveAction(ctx, tx, action.id, 'fail', { failureReason: err.code }));
        throw err;
      }
    }
  }
  await ctx.db.agentAction.updateMany({ where: { id: action.id, transactionId: null }, data: { transactionId: t.id, updatedAt: ctx.clock.now() } });
  return ctx.db.agentAction.findFirstOrThrow({ where: { id: action.id } });
}

/**
 * The owed-work sweep (worker loop): a TRANSFER_IN action APPROVED whose pull never ran — the process died between
 * the approval's commit and the pull — is pulled now, once (the pull's id is the action's), after
 * AGENT_TRANSFER_IN_OWED_AFTER_MS so a request still running is not raced. Reads only such rows (partial index
 * agent_actions_pull_owed_idx), one statement per platform group (issue 29, 29d: one shard each on Citus).
 */
export async function finishOwedPulls(deps: AppDeps): Promise<number> {
  const owedBefore = new Date(deps.clock.now().getTime() - deps.config.AGENT_TRANSFER_IN_OWED_AFTER_MS);
  const due = await readPerPlatformGroup(deps.prisma, 'agent_actions', (platforms) => deps.prisma.agentAction.findMany({
    where: { platformId: { in: platforms }, type: 'TRANSFER_IN', status: 'APPROVED', transactionId: null, updatedAt: { lt: owedBefore } },
    orderBy: { updatedAt: 'asc' },
    take: deps.config.AGENT_ACTION_SWEEP_BATCH,
  }));
  for (const a of due) {
    const ctx = ctxFor(deps, a.platformId);
    const d = a.transferDetails as { amount: number; sourceAccountId: string; destinationAccountId: string };
    await pullFor(ctx, a, { source: { accountId: d.sourceAccountId }, destination: { accountId: d.destinationAccountId }, amount: d.amount }).catch((err) => {
      if (!(err instanceof DomainError)) deps.logger.warn({ err, actionId: a.id }, 'owed agent pull failed; tried again next sweep');
    });
  }
  return due.length;
}

// ------------------------------------------------------------------------------------ the platform decides

const PERMISSION_FOR: Record<ActionType, AgentPermission> = { EXECUTE_QUOTE: 'EXECUTE_QUOTES', TRANSFER_OUT: 'CREATE_TRANSFERS', TRANSFER_IN: 'CREATE_TRANSFERS' };

/** The agent as it stands now (REF: approval re-checks the latest policy, pause and deletion). */
async function latestActor(ctx: Ctx, agentId: string): Promise<AgentActor> {
  const a = await ctx.db.agent.findFirst({ where: { id: agentId } });
  if (!a || a.status === 'DELETED') throw new DomainError(403, 'FORBIDDEN', 'The agent was deleted.', { agentId, reason: 'AGENT_DELETED' });
  return { agentId: a.id, customerId: a.customerId, policy: policyOf(a.policy), isPaused: a.status === 'DISABLED' };
}

/**
 * POST /agents/{agentId}/actions/{actionId}/approve (REF). Re-checked against the latest policy (pause,
 * permission, account restrictions, per-transaction limit, and the limits counted again at today's rate in the
 * transaction that moves the money); the payment then executes through beginExecution, as POST
 * /quotes/{id}/execute's does — money moves once. When the quote expired or the re-check or execution refuses it,
 * the action becomes FAILED (failureReason: the code) and nothing moves. Errors: 404 NOT_FOUND; 409 AGENT_ACTION_NOT_PENDING.
 */
export async function approveAction(ctx: Ctx, agentId: string, id: string): Promise<AgentAction> {
  const action = await getAction(ctx, agentId, id);
  if (action.status !== 'PENDING_APPROVAL') throw notPending(action.status);
  if (action.type === 'TRANSFER_IN') return approveTransferIn(ctx, action);
  const t = await ctx.db.transaction.findFirstOrThrow({ where: { id: action.transactionId! } });
  const quote = await ctx.db.quote.findFirstOrThrow({ where: { id: action.quoteId! } });
  if (t.status !== 'PENDING' || t.pendingReason !== 'PLATFORM_APPROVAL' || quote.expiresAt <= ctx.clock.now()) {
    await ctx.db.$transaction((tx) => settleActionOfTransaction(ctx, tx, t.id, 'fail', 'QUOTE_EXPIRED'));
    return getAction(ctx, agentId, id);
  }
  try {
    const execution = await ctx.db.$transaction(async (tx) => {
      if (!(await moveAction(ctx, tx, action.id, 'approve'))) throw notPending('already decided');
      await recount(ctx, tx, await latestActor(ctx, agentId), action, t);
      return beginExecution(ctx, tx, t, { by: 'APPROVAL' });
    });
    await execution.afterCommit();
  } catch (err) {
    // A decision made concurrently (the action's or the payment's compare-and-set lost) is 409; any other refusal fails the action.
    if (!(err instanceof DomainError)) throw err;
    if (err.code === 'AGENT_ACTION_NOT_PENDING' || err.code === 'INVALID_STATE_TRANSITION') throw notPending('already decided');
    await rejectTransaction(ctx, t.id, `AGENT_APPROVAL_FAILED: ${err.code}`, err.code);
  }
  return getAction(ctx, agentId, id);
}

/** The latest policy's verdict, and its limits counted anew (what the submission counted is given back first). */
async function recount(ctx: Ctx, tx: Parameters<typeof countUsage>[1], agent: AgentActor, action: AgentAction, t: Transaction): Promise<void> {
  assertMayAct(agent, PERMISSION_FOR[action.type as ActionType]);
  const policyAmount = await toPolicyAmount(ctx, agent, t.sentAmount, t.sendingCurrency);
  assertWithinTransactionLimit(agent, policyAmount, t.sourceAccountId);
  if (t.agentCountedAmount !== null && t.approvalRequestedAt) await releaseDailyUsage(ctx, tx, agent.agentId, t.agentCountedAmount, t.approvalRequestedAt);
  await countUsage(ctx, tx, agent, policyAmount, ctx.clock.now());
}

/**
 * An approved TRANSFER_IN: re-checked (the agent deleted or paused, CREATE_TRANSFERS removed, the approval window
 * passed → FAILED with the code), then pulled; a refused pull fails the action. Answers the action as it ends.
 */
async function approveTransferIn(ctx: Ctx, action: AgentAction): Promise<AgentAction> {
  const d = action.transferDetails as { amount: number; sourceAccountId: string; destinationAccountId: string };
  const expired = action.expiresAt !== null && action.expiresAt <= ctx.clock.now();
  const refusal = expired ? 'QUOTE_EXPIRED' : await transferInRefusal(ctx, action.agentId);
  const approved = await ctx.db.$transaction(async (tx) => {
    const moved = await moveAction(ctx, tx, action.id, 'approve');
    if (moved && refusal) await moveAction(ctx, tx, action.id, 'fail', { failureReason: refusal });
    return moved;
  });
  if (!approved) throw notPending('already decided');
  if (!refusal) await pullFor(ctx, approved, { source: { accountId: d.sourceAccountId }, destination: { accountId: d.destinationAccountId }, amount: d.amount }).catch((err) => {
    if (!(err instanceof DomainError)) throw err; // a refused pull answers the FAILED action
  });
  return ctx.db.agentAction.findFirstOrThrow({ where: { id: action.id } });
}

/** The code the latest policy refuses a pull with, if it does. */
async function transferInRefusal(ctx: Ctx, agentId: string): Promise<string | undefined> {
  try {
    assertMayAct(await latestActor(ctx, agentId), 'CREATE_TRANSFERS');
    return undefined;
  } catch (err) {
    if (err instanceof DomainError) return err.code;
    throw err;
  }
}

/**
 * POST /agents/{agentId}/actions/{actionId}/reject (REF): REJECTED with the reason; the waiting payment fails and
 * gives back what it counted (the payments domain's reject). Errors: 404 NOT_FOUND; 409 AGENT_ACTION_NOT_PENDING.
 */
export async function rejectAction(ctx: Ctx, agentId: string, id: string, reason?: string): Promise<AgentAction> {
  const action = await getAction(ctx, agentId, id);
  if (action.status !== 'PENDING_APPROVAL') throw notPending(action.status);
  if (action.transactionId) {
    await rejectTransaction(ctx, action.transactionId, reason).catch((err) => {
      if ((err as DomainError).code === 'TRANSACTION_NOT_PENDING_PLATFORM_APPROVAL') throw notPending('already decided');
      throw err;
    });
  } else {
    const moved = await ctx.db.$transaction((tx) => moveAction(ctx, tx, action.id, 'reject', { rejectionReason: reason ?? null }));
    if (!moved) throw notPending('already decided');
  }
  return getAction(ctx, agentId, id);
}

/**
 * The expiry sweep (worker loop): actions still PENDING_APPROVAL past their expiry (their quote's, extended for
 * approval) become FAILED (QUOTE_EXPIRED); their payment expires with its quote (the payments sweep), which gives
 * back what it counted. Reads only pending rows (partial index agent_actions_pending_expiry_idx).
 */
export async function expireAgentActions(deps: AppDeps): Promise<number> {
  // Issue 29 (29a): per platform group, each read on one shard.
  return perPlatformGroup(deps.prisma, 'agent_actions', async (platforms) => {
    const due = await deps.prisma.agentAction.findMany({
      where: { platformId: { in: platforms }, status: 'PENDING_APPROVAL', expiresAt: { lt: deps.clock.now() } },
      select: { id: true, platformId: true },
      orderBy: { expiresAt: 'asc' },
      take: deps.config.AGENT_ACTION_SWEEP_BATCH,
    });
    for (const a of due) {
      const ctx = ctxFor(deps, a.platformId);
      await ctx.db.$transaction((tx) => moveAction(ctx, tx, a.id, 'expire', { failureReason: 'QUOTE_EXPIRED' })).catch((err) => deps.logger.warn({ err, actionId: a.id }, 'agent action expiry failed'));
    }
    return due.length;
  });
}
