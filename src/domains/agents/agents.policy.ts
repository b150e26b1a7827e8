import { Decimal } from 'decimal.js';
import type { AgentActor, Ctx } from '../../deps.js';
import type { TenantTx } from '../../platform/db.js';
import { BadRequestError, DomainError } from '../../platform/errors.js';
import { currencyOf } from '../../platform/currencies.js';
import { getExchangeRate } from '../fees/index.js';
import { policyDecision } from './agents.model.js';

/**
 * An amount in the agent's policy currency, rounded up (a limit is never passed by rounding).
 * Uses the service's exchange rate (A19: policy major units per one sending major unit).
 */
export async function toPolicyAmount(ctx: Ctx, agent: AgentActor, amount: bigint, currency: string): Promise<bigint> {
  const policyCurrency = agent.policy.currency;
  if (currency === policyCurrency) return amount;
  const { rate } = await getExchangeRate(ctx, policyCurrency, currency).catch(() => {
    throw new BadRequestError('QUOTE_REQUEST_FAILED', `No exchange rate from ${currency} to the agent's policy currency ${policyCurrency}; retry shortly.`);
  });
  const major = new Decimal(amount.toString()).div(new Decimal(10).pow(currencyOf(currency).decimals)).mul(rate);
  return BigInt(major.mul(new Decimal(10).pow(currencyOf(policyCurrency).decimals)).toDecimalPlaces(0, Decimal.ROUND_UP).toFixed(0));
}

/** Refuses an amount above maxTransactionAmount (400 TRANSACTION_SIZE_LIMIT_EXCEEDED, as for corridor limits). */
export function assertWithinTransactionLimit(agent: AgentActor, policyAmount: bigint): void {
  if (policyDecision(agent.policy, policyAmount) === 'REFUSE') {
    throw new BadRequestError('TRANSACTION_SIZE_LIMIT_EXCEEDED', `The amount exceeds the agent's maximum of ${agent.policy.maxTransactionAmount} ${agent.policy.currency} per transaction.`, {
      agentId: agent.agentId,
      maxAmount: Number(agent.policy.maxTransactionAmount),
      currency: agent.policy.currency,
    });
  }
}

const dayOf = (d: Date) => d.toISOString().slice(0, 10);

/**
 * Counts an execution against the agent's daily limit (UTC day), in the caller's transaction: one
 * conditional upsert, so concurrent executions cannot pass the limit together. Errors: 403
 * VELOCITY_LIMIT_EXCEEDED (decisions B§11 403 codes).
 */
export async function countDailyUsage(ctx: Ctx, tx: TenantTx, agent: AgentActor, policyAmount: bigint, at: Date): Promise<void> {
  const exceeded = () =>
    new DomainError(403, 'VELOCITY_LIMIT_EXCEEDED', `The agent's daily limit of ${agent.policy.dailyLimit} ${agent.policy.currency} would be exceeded.`, {
      agentId: agent.agentId,
      dailyLimit: Number(agent.policy.dailyLimit),
      currency: agent.policy.currency,
    });
  if (policyAmount > agent.policy.dailyLimit) throw exceeded();
  const rows = await tx.$queryRaw<Array<{ used: bigint }>>`
    INSERT INTO agent_daily_usage (platform_id, agent_id, day, used)
    VALUES (${ctx.platformId}, ${agent.agentId}, ${dayOf(at)}::date, ${policyAmount})
    ON CONFLICT (platform_id, agent_id, day) DO UPDATE SET used = agent_daily_usage.used + EXCLUDED.used
      WHERE agent_daily_usage.used + EXCLUDED.used <= ${agent.policy.dailyLimit} AND agent_daily_usage.platform_id = ${ctx.platformId}
    RETURNING used`;
  if (rows.length === 0) throw exceeded();
}

/** Gives back what a payment that never moved (rejected, cancelled before execution) counted. */
export async function releaseDailyUsage(ctx: Ctx, tx: TenantTx, agentId: string, policyAmount: bigint, countedAt: Date): Promise<void> {
  await tx.$executeRaw`
    UPDATE agent_daily_usage SET used = GREATEST(used - ${policyAmount}, 0)
     WHERE agent_id = ${agentId} AND day = ${dayOf(countedAt)}::date AND platform_id = ${ctx.platformId}`;
}

