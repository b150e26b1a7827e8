import { createHash } from 'node:crypto';
import type { AgentPolicy } from '../../deps.js';
import { AGENT_ACTIONS, AGENT_PERMISSIONS, PERMISSION_OF_ACTION, type AgentPermission } from '../../platform/http/auth.js';
import { defineLifecycle, type TransitionTable } from '../../platform/state-machine.js';

export { AGENT_ACTIONS };

export { AGENT_PERMISSIONS, PERMISSION_OF_ACTION, type AgentPermission };
export const EXECUTION_MODES = ['AUTO', 'APPROVAL_REQUIRED'] as const;

/** Stored form of a policy (JSONB, REF's shape; amounts as strings: JSON has no bigint). */
export interface StoredPolicy {
  permissions: string[];
  defaultExecutionMode: 'AUTO' | 'APPROVAL_REQUIRED';
  spendingLimits: { currency: string; perTransactionLimit: string; dailyLimit: string | null; dailyTransactionLimit: number | null; monthlyLimit: string | null };
  accountRestrictions: { allowedAccountIds: string[] | null; accountRules: Array<{ accountId: string; executionMode?: 'AUTO' | 'APPROVAL_REQUIRED'; perTransactionLimit?: string | null }> };
  approvalThresholds: { currency: string; amount: string | null } | null;
}

const big = (v: string | null | undefined) => (v === null || v === undefined ? null : BigInt(v));
const str = (v: bigint | null | undefined) => (v === null || v === undefined ? null : v.toString());

export function policyOf(stored: unknown): AgentPolicy {
  // A row still in the spec's shape (written before migration 20261211000000, or by an older process during a
  // rolling deploy) reads through the same mapping the migration applies.
  if (stored !== null && typeof stored === 'object' && 'maxTransactionAmount' in stored) return policyFromStoredLegacy(stored as LegacyStoredPolicy);
  const p = stored as StoredPolicy;
  return {
    permissions: [...p.permissions],
    defaultExecutionMode: p.defaultExecutionMode,
    spendingLimits: {
      currency: p.spendingLimits.currency,
      perTransactionLimit: BigInt(p.spendingLimits.perTransactionLimit),
      dailyLimit: big(p.spendingLimits.dailyLimit),
      dailyTransactionLimit: p.spendingLimits.dailyTransactionLimit ?? null,
      monthlyLimit: big(p.spendingLimits.monthlyLimit),
    },
    accountRestrictions: {
      allowedAccountIds: p.accountRestrictions?.allowedAccountIds ?? null,
      accountRules: (p.accountRestrictions?.accountRules ?? []).map((r) => ({ accountId: r.accountId, ...(r.executionMode ? { executionMode: r.executionMode } : {}), ...(r.perTransactionLimit !== undefined ? { perTransactionLimit: big(r.perTransactionLimit) } : {}) })),
    },
    approvalThresholds: p.approvalThresholds ? { currency: p.approvalThresholds.currency, amount: big(p.approvalThresholds.amount) } : null,
  };
}

export function storedPolicy(p: AgentPolicy): StoredPolicy {
  const l = p.spendingLimits;
  return {
    permissions: [...new Set(p.permissions)],
    defaultExecutionMode: p.defaultExecutionMode,
    spendingLimits: { currency: l.currency, perTransactionLimit: l.perTransactionLimit.toString(), dailyLimit: str(l.dailyLimit), dailyTransactionLimit: l.dailyTransactionLimit, monthlyLimit: str(l.monthlyLimit) },
    accountRestrictions: {
      allowedAccountIds: p.accountRestrictions.allowedAccountIds,
      accountRules: p.accountRestrictions.accountRules.map((r) => ({ accountId: r.accountId, ...(r.executionMode ? { executionMode: r.executionMode } : {}), ...(r.perTransactionLimit !== undefined ? { perTransactionLimit: str(r.perTransactionLimit) } : {}) })),
    },
    approvalThresholds: p.approvalThresholds ? { currency: p.approvalThresholds.currency, amount: str(p.approvalThresholds.amount) } : null,
  };
}

interface LegacyStoredPolicy {
  currency: string;
  maxTransactionAmount: string;
  dailyLimit: string;
  approvalThreshold: string;
  allowedActions: string[];
}

function policyFromStoredLegacy(l: LegacyStoredPolicy): AgentPolicy {
  const actions = l.allowedActions.filter((a): a is (typeof AGENT_ACTIONS)[number] => (AGENT_ACTIONS as readonly string[]).includes(a));
  return { ...policyFromLegacy({ currency: l.currency, maxTransactionAmount: 0, dailyLimit: 0, approvalThreshold: 0, allowedActions: actions }), ...legacyAmounts(l) };
}

function legacyAmounts(l: LegacyStoredPolicy): Pick<AgentPolicy, 'spendingLimits' | 'approvalThresholds'> {
  return {
    spendingLimits: { currency: l.currency, perTransactionLimit: BigInt(l.maxTransactionAmount), dailyLimit: BigInt(l.dailyLimit), dailyTransactionLimit: null, monthlyLimit: null },
    approvalThresholds: { currency: l.currency, amount: BigInt(l.approvalThreshold) },
  };
}

/** The spec's (A17) policy fields as REF's policy (the same mapping as migration 20261211000000). */
export function policyFromLegacy(l: { currency: string; maxTransactionAmount: number; dailyLimit: number; approvalThreshold: number; allowedActions: readonly (typeof AGENT_ACTIONS)[number][] }): AgentPolicy {
  return {
    permissions: [...new Set(l.allowedActions.map((a) => PERMISSION_OF_ACTION[a]))],
    defaultExecutionMode: 'AUTO',
    spendingLimits: { currency: l.currency, perTransactionLimit: BigInt(l.maxTransactionAmount), dailyLimit: BigInt(l.dailyLimit), dailyTransactionLimit: null, monthlyLimit: null },
    accountRestrictions: { allowedAccountIds: null, accountRules: [] },
    approvalThresholds: { currency: l.currency, amount: BigInt(l.approvalThreshold) },
  };
}

/** Device codes and access tokens are random and long, so a plain SHA-256 is a safe stored form. */
export function secretHash(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

/** The per-transaction limit for a source account: its account rule's override, else the policy's. */
export function perTransactionLimitFor(policy: AgentPolicy, accountId: string | null): bigint {
  const rule = accountId ? policy.accountRestrictions.accountRules.find((r) => r.accountId === accountId) : undefined;
  return rule?.perTransactionLimit ?? policy.spendingLimits.perTransactionLimit;
}

/** REF's allowedAccountIds: null allows every account of the customer. */
export function accountAllowed(policy: AgentPolicy, accountId: string | null): boolean {
  const allowed = policy.accountRestrictions.allowedAccountIds;
  return allowed === null || accountId === null || allowed.includes(accountId);
}

/**
 * Whether an agent payment waits for the platform (pure): its account rule's executionMode (else the policy's
 * defaultExecutionMode) is APPROVAL_REQUIRED, or the amount — in the threshold's currency — is above
 * approvalThresholds.amount.
 */
export function needsApproval(policy: AgentPolicy, accountId: string | null, thresholdAmount: bigint | null): boolean {
  const rule = accountId ? policy.accountRestrictions.accountRules.find((r) => r.accountId === accountId) : undefined;
  if ((rule?.executionMode ?? policy.defaultExecutionMode) === 'APPROVAL_REQUIRED') return true;
  const limit = policy.approvalThresholds?.amount;
  return limit !== null && limit !== undefined && thresholdAmount !== null && thresholdAmount > limit;
}

// ------------------------------------------------------------------------------------ AgentAction

export const ACTION_STATUSES = ['PENDING_APPROVAL', 'APPROVED', 'REJECTED', 'FAILED'] as const;
export type ActionStatus = (typeof ACTION_STATUSES)[number];
export type ActionType = 'EXECUTE_QUOTE' | 'TRANSFER_OUT' | 'TRANSFER_IN';

/**
 * REF's AgentActionStatus. An action the policy lets through is created APPROVED; one needing the platform is
 * created PENDING_APPROVAL. `expire`: its quote expired (or its payment stopped) before a decision — REF has no
 * EXPIRED status and says the action becomes FAILED. `fail`: approved, but execution failed (the quote expired,
 * the latest policy refuses it, insufficient funds).
 */
export const agentActionTransitions = {
  approve: { from: ['PENDING_APPROVAL'], to: 'APPROVED' },
  reject: { from: ['PENDING_APPROVAL'], to: 'REJECTED' },
  expire: { from: ['PENDING_APPROVAL'], to: 'FAILED' },
  fail: { from: ['APPROVED'], to: 'FAILED' },
} as const satisfies TransitionTable<ActionStatus>;

export const agentActionLifecycle = defineLifecycle({
  name: 'agent-action',
  label: 'The agent action',
  statuses: ACTION_STATUSES,
  transitions: agentActionTransitions,
  terminal: ['REJECTED', 'FAILED'],
  conflictCode: 'AGENT_ACTION_NOT_PENDING',
});
export type ActionEvent = keyof typeof agentActionTransitions;
