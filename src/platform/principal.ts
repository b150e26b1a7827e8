import type { AgentActor } from '../deps.js';

export const PERMISSIONS = ['VIEW', 'TRANSACT', 'MANAGE'] as const;
export type Permission = (typeof PERMISSIONS)[number];

/** Who is calling: resolved once per request by the auth hook. */
export interface Principal {
  platformId: string;
  /** The API credential's id, or the agent's id for agent calls (rate limits count per credential). */
  credentialId: string;
  permissions: Permission[];
  /** Present when an agent calls with its Bearer token (A17). */
  agent?: AgentActor;
}
