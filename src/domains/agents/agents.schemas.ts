import { z } from 'zod';
import type { AgentPolicy } from '../../deps.js';
import { isKnownCurrency } from '../../platform/currencies.js';
import { paginationQuery } from '../../platform/http/pagination.js';
import type { Agent, AgentDeviceCode } from '../../generated/prisma/client.js';
import { AGENT_ACTIONS, AGENT_PERMISSIONS, EXECUTION_MODES, PERMISSION_OF_ACTION, policyFromLegacy, policyOf } from './agents.model.js';
import { toWireNumber } from '../../platform/money.js';
import { agentListFilters } from './agents.list-filters.js';

const amount = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);
const currency = z.string().refine(isKnownCurrency, { message: 'Unknown currency.' });
const accountId = z.string().min(1).max(200);
const mode = z.enum(EXECUTION_MODES);

/** The spec's A17 policy; amounts in minor units of `currency` (default USD). Every action allowed when `allowedActions` is absent. */
const legacyPolicyInput = z
  .object({
    currency: currency.default('USD'),
    maxTransactionAmount: amount,
    dailyLimit: amount,
    approvalThreshold: amount,
    allowedActions: z.array(z.enum(AGENT_ACTIONS)).min(1).max(AGENT_ACTIONS.length).default([...AGENT_ACTIONS]).transform((a) => [...new Set(a)]),
  })
  .strict();

const accountRule = z.object({ accountId, executionMode: mode.optional(), perTransactionLimit: amount.nullable().optional() }).strict();
const accountRestrictions = z.object({ allowedAccountIds: z.array(accountId).max(100).nullable().optional(), accountRules: z.array(accountRule).max(100).optional() }).strict();
const approvalThresholds = z
  .object({ currency: currency.optional(), amount: amount.nullable().optional() })
  .strict()
  .refine((t) => t.amount === null || t.amount === undefined || t.currency !== undefined, { message: 'currency is required when amount is set.', path: ['currency'] });
const spendingLimitFields = {
  currency,
  perTransactionLimit: amount,
  dailyLimit: amount.nullable().optional(),
  dailyTransactionLimit: z.number().int().min(0).max(1_000_000).nullable().optional(),
  monthlyLimit: amount.nullable().optional(),
};

/** REF's AgentPolicy. */
const refPolicyInput = z
  .object({
    permissions: z.array(z.enum(AGENT_PERMISSIONS)).max(AGENT_PERMISSIONS.length),
    defaultExecutionMode: mode,
    spendingLimits: z.object(spendingLimitFields).strict(),
    accountRestrictions: accountRestrictions.optional(),
    approvalThresholds: approvalThresholds.optional(),
  })
  .strict();

type Rules = z.infer<typeof accountRule>[] | undefined;
const rulesOf = (rules: Rules): AgentPolicy['accountRestrictions']['accountRules'] =>
  (rules ?? []).map((r) => ({ accountId: r.accountId, ...(r.executionMode ? { executionMode: r.executionMode } : {}), ...(r.perTransactionLimit !== undefined ? { perTransactionLimit: r.perTransactionLimit === null ? null : BigInt(r.perTransactionLimit) } : {}) }));
const bigOrNull = (v: number | null | undefined) => (v === null || v === undefined ? null : BigInt(v));
const thresholdsOf = (t: z.infer<typeof approvalThresholds> | undefined, fallback: string): AgentPolicy['approvalThresholds'] => (t ? { currency: t.currency ?? fallback, amount: bigOrNull(t.amount) } : null);

function fromRef(p: z.infer<typeof refPolicyInput>): AgentPolicy {
  const l = p.spendingLimits;
  return {
    permissions: [...new Set(p.permissions)],
    defaultExecutionMode: p.defaultExecutionMode,
    spendingLimits: { currency: l.currency, perTransactionLimit: BigInt(l.perTransactionLimit), dailyLimit: bigOrNull(l.dailyLimit), dailyTransactionLimit: l.dailyTransactionLimit ?? null, monthlyLimit: bigOrNull(l.monthlyLimit) },
    accountRestrictions: { allowedAccountIds: p.accountRestrictions?.allowedAccountIds ?? null, accountRules: rulesOf(p.accountRestrictions?.accountRules) },
    approvalThresholds: thresholdsOf(p.approvalThresholds, l.currency),
  };
}

/** REF's policy, or the spec's (A17) — mapped onto REF's (docs/decisions.md anchor 26b). */
export const policyInput = z.union([refPolicyInput.transform(fromRef), legacyPolicyInput.transform(policyFromLegacy)]);

export const createAgentBody = z.object({ customerId: z.string().min(1).max(200), name: z.string().trim().min(1).max(200), policy: policyInput }).strict();
export type CreateAgentBody = z.infer<typeof createAgentBody>;

/** REF's AgentUpdateRequest: at least one field. */
export const updateAgentBody = z
  .object({ name: z.string().trim().min(1).max(200).optional(), isPaused: z.boolean().optional() })
  .strict()
  .refine((b) => b.name !== undefined || b.isPaused !== undefined, { message: 'Give name or isPaused.', path: ['name'] });
export type UpdateAgentBody = z.infer<typeof updateAgentBody>;

/** REF's AgentPolicyUpdateRequest: each field given replaces the current one; spendingLimits merge field by field. */
export const policyPatchBody = z
  .object({
    permissions: z.array(z.enum(AGENT_PERMISSIONS)).max(AGENT_PERMISSIONS.length).optional(),
    defaultExecutionMode: mode.optional(),
    spendingLimits: z.object(spendingLimitFields).partial().strict().optional(),
    accountRestrictions: accountRestrictions.optional(),
    approvalThresholds: approvalThresholds.nullable().optional(),
  })
  .strict()
  .refine((b) => Object.keys(b).length > 0, { message: 'Give at least one policy field.', path: ['permissions'] });
export type PolicyPatchBody = z.infer<typeof policyPatchBody>;

/** The policy after a PATCH (pure). */
export function patchedPolicy(current: AgentPolicy, b: PolicyPatchBody): AgentPolicy {
  const l = current.spendingLimits;
  const s = b.spendingLimits ?? {};
  return {
    permissions: b.permissions ? [...new Set(b.permissions)] : current.permissions,
    defaultExecutionMode: b.defaultExecutionMode ?? current.defaultExecutionMode,
    spendingLimits: {
      currency: s.currency ?? l.currency,
      perTransactionLimit: s.perTransactionLimit !== undefined ? BigInt(s.perTransactionLimit) : l.perTransactionLimit,
      dailyLimit: s.dailyLimit !== undefined ? bigOrNull(s.dailyLimit) : l.dailyLimit,
      dailyTransactionLimit: s.dailyTransactionLimit !== undefined ? s.dailyTransactionLimit : l.dailyTransactionLimit,
      monthlyLimit: s.monthlyLimit !== undefined ? bigOrNull(s.monthlyLimit) : l.monthlyLimit,
    },
    accountRestrictions: b.accountRestrictions ? { allowedAccountIds: b.accountRestrictions.allowedAccountIds ?? null, accountRules: rulesOf(b.accountRestrictions.accountRules) } : current.accountRestrictions,
    approvalThresholds: b.approvalThresholds === undefined ? current.approvalThresholds : b.approvalThresholds === null ? null : thresholdsOf(b.approvalThresholds, s.currency ?? l.currency),
  };
}

export const listAgentsQuery = z.object({ ...paginationQuery, customerId: z.string().max(200).optional(), ...agentListFilters });
export const agentParams = z.object({ agentId: z.string().max(200) });
export const codeParams = z.object({ code: z.string().min(1).max(40) });

const wire = (v: bigint | null) => (v === null ? null : toWireNumber(v));

/** The spec's A17 fields read off REF's policy, kept beside it for the spec's clients (docs/decisions.md anchor 26b). */
function legacyFields(p: AgentPolicy) {
  const perm = new Set(p.permissions);
  const actions = AGENT_ACTIONS.filter((a) => perm.has(PERMISSION_OF_ACTION[a]));
  const t = p.approvalThresholds;
  const threshold = p.defaultExecutionMode === 'APPROVAL_REQUIRED' ? 0n : t?.amount != null && t.currency === p.spendingLimits.currency ? t.amount : null;
  return {
    currency: p.spendingLimits.currency,
    maxTransactionAmount: toWireNumber(p.spendingLimits.perTransactionLimit),
    dailyLimit: wire(p.spendingLimits.dailyLimit),
    approvalThreshold: wire(threshold),
    allowedActions: actions,
  };
}

export function policyResource(stored: unknown) {
  const p = policyOf(stored);
  const l = p.spendingLimits;
  return {
    permissions: p.permissions,
    defaultExecutionMode: p.defaultExecutionMode,
    spendingLimits: { currency: l.currency, perTransactionLimit: toWireNumber(l.perTransactionLimit), dailyLimit: wire(l.dailyLimit), ...(l.dailyTransactionLimit !== null ? { dailyTransactionLimit: l.dailyTransactionLimit } : {}), monthlyLimit: wire(l.monthlyLimit) },
    accountRestrictions: {
      allowedAccountIds: p.accountRestrictions.allowedAccountIds,
      accountRules: p.accountRestrictions.accountRules.map((r) => ({ accountId: r.accountId, ...(r.executionMode ? { executionMode: r.executionMode } : {}), ...(r.perTransactionLimit !== undefined ? { perTransactionLimit: wire(r.perTransactionLimit) } : {}) })),
    },
    ...(p.approvalThresholds ? { approvalThresholds: { currency: p.approvalThresholds.currency, amount: wire(p.approvalThresholds.amount) } } : {}),
    ...legacyFields(p),
  };
}

export type AgentUsageResource = { dailyTransactionCount: number; dailySpend: number; dailyResetDate: string; monthlySpend: number; monthlyResetMonth: string };

/** REF's Agent, with the spec's `status` beside `isPaused`. */
export function agentResource(a: Agent & { isConnected: boolean; usage: AgentUsageResource }) {
  return {
    id: a.id,
    name: a.name,
    customerId: a.customerId,
    isPaused: a.status === 'DISABLED',
    isConnected: a.isConnected,
    status: a.status,
    policy: policyResource(a.policy),
    usage: a.usage,
    createdAt: a.createdAt.toISOString(),
    updatedAt: a.updatedAt.toISOString(),
  };
}

export function deviceCodeResource(c: { code: string; agentId: string; expiresAt: Date }) {
  return { code: c.code, agentId: c.agentId, expiresAt: c.expiresAt.toISOString(), redeemed: false };
}

export function deviceCodeStatusResource(code: string, d: AgentDeviceCode) {
  return { code, agentId: d.agentId, redeemed: d.redeemedAt !== null, redeemedAt: d.redeemedAt?.toISOString() ?? null, expiresAt: d.expiresAt.toISOString() };
}
