import { Decimal } from 'decimal.js';
import type { AgentActor, Ctx } from '../../deps.js';
import type { TenantTx } from '../../platform/db.js';
import { BadRequestError, DomainError } from '../../platform/errors.js';
import { currencyOf } from '../../platform/currencies.js';
import { getExchangeRate } from '../fees/index.js';
import { accountAllowed, perTransactionLimitFor, type AgentPermission } from './agents.model.js';

/**
 * An amount in another currency (the policy's spending or threshold currency), at the rate of evaluation time
 * (REF: "converts using the exchange rate at evaluation time"), rounded up: a limit is never passed by rounding.
 * Uses the service's exchange rate (A19: target major units per one source major unit).
 */
export async function convertForPolicy(ctx: Ctx, amount: bigint, currency: string, target: string): Promise<bigint> {
  if (currency === target) return amount;
  const { rate } = await getExchangeRate(ctx, target, currency).catch(() => {
    throw new BadRequestError('QUOTE_REQUEST_FAILED', `No exchange rate from ${currency} to the agent's policy currency ${target}; retry shortly.`);
  });
  const major = new Decimal(amount.toString()).div(new Decimal(10).pow(currencyOf(currency).decimals)).mul(rate);
  return BigInt(major.mul(new Decimal(10).pow(currencyOf(target).decimals)).toDecimalPlaces(0, Decimal.ROUND_UP).toFixed(0));
}

/** An amount in the agent's spending-limit currency. */
export function toPolicyAmount(ctx: Ctx, agent: AgentActor, amount: bigint, currency: string): Promise<bigint> {
  return convertForPolicy(ctx, amount, currency, agent.policy.spendingLimits.currency);
}

/** 403 FORBIDDEN with the reason in details: what a policy refuses (REF: "Agent policy does not permit this operation"). */
export function policyRefusal(agent: AgentActor, reason: 'PERMISSION_REQUIRED' | 'AGENT_PAUSED' | 'ACCOUNT_NOT_ALLOWED', message: string, details: Record<string, unknown> = {}): DomainError {
  return new DomainError(403, 'FORBIDDEN', message, { agentId: agent.agentId, reason, ...details });
}

/** Refuses a paused agent and one without the permission. Errors: 403 FORBIDDEN (details.reason). */
export function assertMayAct(agent: AgentActor, permission: AgentPermission): void {
  if (agent.isPaused) throw policyRefusal(agent, 'AGENT_PAUSED', 'The agent is paused; it may read but not act.');
  if (!agent.policy.permissions.includes(permission)) throw policyRefusal(agent, 'PERMISSION_REQUIRED', `The agent's policy does not grant ${permission}.`, { permission });
}

/**
 * Refuses a payment from an account outside `accountRestrictions.allowedAccountIds` (403 FORBIDDEN
 * ACCOUNT_NOT_ALLOWED) and an amount above the per-transaction limit — the account rule's, else the policy's
 * (400 TRANSACTION_SIZE_LIMIT_EXCEEDED, as for corridor limits).
 */
export function assertWithinTransactionLimit(agent: AgentActor, policyAmount: bigint, sourceAccountId: string | null = null): void {
  if (agent.isPaused) throw policyRefusal(agent, 'AGENT_PAUSED', 'The agent is paused; it may read but not act.');
  if (!accountAllowed(agent.policy, sourceAccountId)) throw policyRefusal(agent, 'ACCOUNT_NOT_ALLOWED', "The agent's policy does not allow this account.", { accountId: sourceAccountId });
  const max = perTransactionLimitFor(agent.policy, sourceAccountId);
  if (policyAmount > max) {
    const currency = agent.policy.spendingLimits.currency;
    throw new BadRequestError('TRANSACTION_SIZE_LIMIT_EXCEEDED', `The amount exceeds the agent's maximum of ${max} ${currency} per transaction.`, { agentId: agent.agentId, maxAmount: Number(max), currency });
  }
}

const dayOf = (d: Date) => d.toISOString().slice(0, 10);
const monthOf = (d: Date) => `${d.toISOString().slice(0, 7)}-01`;

function velocity(agent: AgentActor, limit: 'DAILY' | 'DAILY_COUNT' | 'MONTHLY', value: bigint | number): DomainError {
  const currency = agent.policy.spendingLimits.currency;
  const what = limit === 'DAILY_COUNT' ? `daily limit of ${value} transactions` : `${limit === 'DAILY' ? 'daily' : 'monthly'} limit of ${value} ${currency}`;
  return new DomainError(403, 'VELOCITY_LIMIT_EXCEEDED', `The agent's ${what} would be exceeded.`, { agentId: agent.agentId, limit, [limit === 'DAILY' ? 'dailyLimit' : limit === 'MONTHLY' ? 'monthlyLimit' : 'dailyTransactionLimit']: Number(value), currency });
}

/**
 * Counts one payment against the agent's daily amount, daily count and monthly amount (UTC), in the caller's
 * transaction — the one that writes the money movement. Each counter is one conditional upsert that adds only
 * while the sum stays within the limit, so concurrent executions cannot pass a limit together (the row lock
 * serialises them; a refused one adds nothing and its transaction rolls back). Errors: 403 VELOCITY_LIMIT_EXCEEDED
 * (details.limit DAILY, DAILY_COUNT or MONTHLY; decisions B§11 403 codes).
 */
export async function countUsage(ctx: Ctx, tx: TenantTx, agent: AgentActor, policyAmount: bigint, at: Date): Promise<void> {
  const { dailyLimit, dailyTransactionLimit, monthlyLimit } = agent.policy.spendingLimits;
  if (dailyLimit !== null && policyAmount > dailyLimit) throw velocity(agent, 'DAILY', dailyLimit);
  if (monthlyLimit !== null && policyAmount > monthlyLimit) throw velocity(agent, 'MONTHLY', monthlyLimit);
  if (dailyTransactionLimit !== null && dailyTransactionLimit < 1) throw velocity(agent, 'DAILY_COUNT', dailyTransactionLimit);
  const day = await tx.$queryRaw<Array<{ used: bigint; tx_count: number }>>`
    INSERT INTO agent_daily_usage (platform_id, agent_id, day, used, tx_count)
    VALUES (${ctx.platformId}, ${agent.agentId}, ${dayOf(at)}::date, ${policyAmount}, 1)
    ON CONFLICT (platform_id, agent_id, day) DO UPDATE SET used = agent_daily_usage.used + EXCLUDED.used, tx_count = agent_daily_usage.tx_count + 1
      WHERE agent_daily_usage.platform_id = ${ctx.platformId}
        AND (${dailyLimit}::bigint IS NULL OR agent_daily_usage.used + EXCLUDED.used <= ${dailyLimit}::bigint)
        AND (${dailyTransactionLimit}::int IS NULL OR agent_daily_usage.tx_count + 1 <= ${dailyTransactionLimit}::int)
    RETURNING used, tx_count`;
  if (day.length === 0) throw await dailyRefusal(tx, agent, policyAmount, at);
  const month = await tx.$queryRaw<Array<{ used: bigint }>>`
    INSERT INTO agent_monthly_usage (platform_id, agent_id, month, used)
    VALUES (${ctx.platformId}, ${agent.agentId}, ${monthOf(at)}::date, ${policyAmount})
    ON CONFLICT (platform_id, agent_id, month) DO UPDATE SET used = agent_monthly_usage.used + EXCLUDED.used
      WHERE agent_monthly_usage.platform_id = ${ctx.platformId}
        AND (${monthlyLimit}::bigint IS NULL OR agent_monthly_usage.used + EXCLUDED.used <= ${monthlyLimit}::bigint)
    RETURNING used`;
  if (month.length === 0) throw velocity(agent, 'MONTHLY', monthlyLimit ?? 0n);
}

/** Which daily limit refused the upsert (the row as it stands, read under the lock the upsert took). */
async function dailyRefusal(tx: TenantTx, agent: AgentActor, policyAmount: bigint, at: Date): Promise<DomainError> {
  const { dailyLimit, dailyTransactionLimit } = agent.policy.spendingLimits;
  const row = await tx.agentDailyUsage.findFirst({ where: { agentId: agent.agentId, day: new Date(`${dayOf(at)}T00:00:00Z`) } });
  if (dailyLimit !== null && (row?.used ?? 0n) + policyAmount > dailyLimit) return velocity(agent, 'DAILY', dailyLimit);
  return velocity(agent, 'DAILY_COUNT', dailyTransactionLimit ?? 0);
}

/**
 * Gives back what a payment that never moved (rejected, cancelled or expired before execution) counted: its
 * amount on the day and month it was counted, and one from the day's count. A missing row gives back nothing.
 */
export async function releaseDailyUsage(ctx: Ctx, tx: TenantTx, agentId: string, policyAmount: bigint, countedAt: Date): Promise<void> {
  await tx.$executeRaw`
    UPDATE agent_daily_usage SET used = GREATEST(used - ${policyAmount}, 0), tx_count = GREATEST(tx_count - 1, 0)
     WHERE agent_id = ${agentId} AND day = ${dayOf(countedAt)}::date AND platform_id = ${ctx.platformId}`;
  await tx.$executeRaw`
    UPDATE agent_monthly_usage SET used = GREATEST(used - ${policyAmount}, 0)
     WHERE agent_id = ${agentId} AND month = ${monthOf(countedAt)}::date AND platform_id = ${ctx.platformId}`;
}

/** REF's AgentUsage of each agent for `at` (UTC day and month): two statements, by primary key. */
export async function usagesOf(ctx: Ctx, agentIds: string[], at: Date) {
  const [days, months] = await Promise.all([
    ctx.db.agentDailyUsage.findMany({ where: { agentId: { in: agentIds }, day: new Date(`${dayOf(at)}T00:00:00Z`) } }),
    ctx.db.agentMonthlyUsage.findMany({ where: { agentId: { in: agentIds }, month: new Date(`${monthOf(at)}T00:00:00Z`) } }),
  ]);
  const day = new Map(days.map((d) => [d.agentId, d]));
  const month = new Map(months.map((m) => [m.agentId, m]));
  const tomorrow = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate() + 1));
  const nextMonth = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + 1, 1));
  return new Map(
    agentIds.map((id) => [
      id,
      {
        dailyTransactionCount: day.get(id)?.txCount ?? 0,
        dailySpend: Number(day.get(id)?.used ?? 0n),
        dailyResetDate: dayOf(tomorrow),
        monthlySpend: Number(month.get(id)?.used ?? 0n),
        monthlyResetMonth: nextMonth.toISOString().slice(0, 7),
      },
    ]),
  );
}

/**
 * REF AgentSpendingLimitsUpdate: "Updating [currency] recasts all existing limits into the new currency
 * denomination" (26c). The factor that takes an amount in `from`'s minor units to `to`'s, at today's rate.
 * Errors: 400 QUOTE_REQUEST_FAILED (no rate).
 */
export async function recastFactor(ctx: Ctx, from: string, to: string): Promise<Decimal> {
  const { rate } = await getExchangeRate(ctx, to, from).catch(() => {
    throw new BadRequestError('QUOTE_REQUEST_FAILED', `No exchange rate from ${from} to ${to} to recast the agent's limits; retry shortly.`);
  });
  return new Decimal(rate).mul(new Decimal(10).pow(currencyOf(to).decimals - currencyOf(from).decimals));
}

/** A limit recast: rounded down, so a recast never lets the agent spend more than it could before. */
export const recastLimit = (v: bigint, factor: Decimal): bigint => BigInt(new Decimal(v.toString()).mul(factor).toDecimalPlaces(0, Decimal.ROUND_DOWN).toFixed(0));

/**
 * The agent's usage counters (today's and this month's spend, REF AgentUsage: "in the policy's
 * spendingLimits.currency") recast with its limits, rounded up (spend is never undercounted). In the
 * policy update's transaction, under the agent row's lock.
 */
export async function recastUsage(ctx: Ctx, tx: TenantTx, agentId: string, factor: Decimal): Promise<void> {
  const f = factor.toString();
  await tx.$executeRaw`UPDATE agent_daily_usage SET used = CEIL(used::numeric * ${f}::numeric)::bigint WHERE platform_id = ${ctx.platformId} AND agent_id = ${agentId}`;
  await tx.$executeRaw`UPDATE agent_monthly_usage SET used = CEIL(used::numeric * ${f}::numeric)::bigint WHERE platform_id = ${ctx.platformId} AND agent_id = ${agentId}`;
}
