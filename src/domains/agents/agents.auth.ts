import type { AppDeps } from '../../deps.js';
import type { Principal } from '../../platform/principal.js';
import { platformOfLookup } from '../../platform/tenant-lookups.js';
import { policyOf, secretHash } from './agents.model.js';

const TOKEN_RE = /^agt_[A-Za-z0-9_-]{40,60}$/;

/**
 * Resolves `Authorization: Bearer <accessToken>` to the agent's principal (A17), or undefined for an unknown
 * token or a deleted agent. Only the token's SHA-256 is stored, looked up by a unique index — on every call,
 * with no cache: a DELETE or a policy change is seen by the next call on every process (issue 26).
 */
export async function resolveAgentToken(deps: AppDeps, token: string): Promise<Principal | undefined> {
  if (!TOKEN_RE.test(token)) return undefined;
  const accessTokenHash = secretHash(token);
  const platformId = await platformOfLookup(deps.prisma, 'AGENT_ACCESS_TOKEN', accessTokenHash);
  const row = platformId ? await deps.prisma.agentDeviceCode.findUnique({ where: { platformId_accessTokenHash: { platformId, accessTokenHash } }, include: { agent: true } }) : null;
  if (!row || row.agent.status === 'DELETED') return undefined;
  return {
    platformId: row.platformId,
    credentialId: row.agentId,
    permissions: ['VIEW', 'TRANSACT'],
    agent: { agentId: row.agentId, customerId: row.agent.customerId, policy: policyOf(row.agent.policy), isPaused: row.agent.status === 'DISABLED' },
  };
}
