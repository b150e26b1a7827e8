import { createHash } from 'node:crypto';
import type { AgentPolicy } from '../../deps.js';
import { AGENT_ACTIONS } from '../../platform/http/auth.js';

export { AGENT_ACTIONS };

/** Stored form of a policy (JSONB; amounts as strings: JSON has no bigint). */
export interface StoredPolicy {
  currency: string;
  maxTransactionAmount: string;
  dailyLimit: string;
  approvalThreshold: string;
  allowedActions: string[];
}

export function policyOf(stored: unknown): AgentPolicy {
  const p = stored as StoredPolicy;
  return {
    currency: p.currency,
    maxTransactionAmount: BigInt(p.maxTransactionAmount),
    dailyLimit: BigInt(p.dailyLimit),
    approvalThreshold: BigInt(p.approvalThreshold),
    allowedActions: [...p.allowedActions],
  };
}

/** Device codes and access tokens are random and long, so a plain SHA-256 is a safe stored form. */
export function secretHash(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

/**
 * Where an agent payment stands against its policy (pure; amounts already in the policy currency):
 * over maxTransactionAmount it is refused; above approvalThreshold it waits for the platform.
 */
export function policyDecision(policy: AgentPolicy, amount: bigint): 'REFUSE' | 'NEEDS_APPROVAL' | 'PROCEED' {
  if (amount > policy.maxTransactionAmount) return 'REFUSE';
  if (amount > policy.approvalThreshold) return 'NEEDS_APPROVAL';
  return 'PROCEED';
}
