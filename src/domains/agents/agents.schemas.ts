import { z } from 'zod';
import { isKnownCurrency } from '../../platform/currencies.js';
import { paginationQuery } from '../../platform/http/pagination.js';
import type { Agent, AgentDeviceCode } from '../../generated/prisma/client.js';
import { AGENT_ACTIONS, policyOf } from './agents.model.js';
import { toWireNumber } from '../../platform/money.js';
import { agentListFilters } from './agents.list-filters.js';

const amount = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);

/** A17 policy; amounts in minor units of `currency` (default USD). Every action allowed when `allowedActions` is absent. */
export const policyInput = z
  .object({
    currency: z.string().refine(isKnownCurrency, { message: 'Unknown currency.' }).default('USD'),
    maxTransactionAmount: amount,
    dailyLimit: amount,
    approvalThreshold: amount,
    allowedActions: z.array(z.enum(AGENT_ACTIONS)).min(1).max(AGENT_ACTIONS.length).default([...AGENT_ACTIONS]).transform((a) => [...new Set(a)]),
  })
  .strict();

export const createAgentBody = z.object({ customerId: z.string().min(1).max(200), name: z.string().trim().min(1).max(200), policy: policyInput }).strict();
export type CreateAgentBody = z.infer<typeof createAgentBody>;

export const listAgentsQuery = z.object({ ...paginationQuery, customerId: z.string().max(200).optional(), ...agentListFilters });
export const agentParams = z.object({ agentId: z.string().max(200) });
export const codeParams = z.object({ code: z.string().min(1).max(40) });

export function policyResource(stored: unknown) {
  const p = policyOf(stored);
  return {
    currency: p.currency,
    maxTransactionAmount: toWireNumber(p.maxTransactionAmount),
    dailyLimit: toWireNumber(p.dailyLimit),
    approvalThreshold: toWireNumber(p.approvalThreshold),
    allowedActions: p.allowedActions,
  };
}

export function agentResource(a: Agent) {
  return { id: a.id, customerId: a.customerId, name: a.name, status: a.status, policy: policyResource(a.policy), createdAt: a.createdAt.toISOString(), updatedAt: a.updatedAt.toISOString() };
}

export function deviceCodeStatusResource(code: string, d: AgentDeviceCode) {
  return { code, agentId: d.agentId, redeemed: d.redeemedAt !== null, redeemedAt: d.redeemedAt?.toISOString() ?? null, expiresAt: d.expiresAt.toISOString() };
}
