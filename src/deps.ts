import type { Logger } from 'pino';
import type { AppConfig } from './config.js';
import type { PrismaClient, TenantDb } from './platform/db.js';
import { tenantDb } from './platform/db.js';
import type { Redis } from './platform/redis.js';
import type { Queues } from './platform/queue.js';
import type { Clock } from './platform/clock.js';
import type { Signer } from './platform/signing.js';
import type { Adapters } from './adapters/registry.js';
import type { IdempotencyClaim } from './platform/idempotency.js';
import type { InvalidationBus } from './platform/process-cache.js';

/** Everything a process wires once (app.ts, worker.ts) and hands to services. */
export interface AppDeps {
  config: AppConfig;
  prisma: PrismaClient;
  redis: Redis;
  queues: Queues;
  clock: Clock;
  signer: Signer;
  logger: Logger;
  /** Every provider adapter, built and validated at start (src/adapters/registry.ts, docs/adapters.md). */
  adapters: Adapters;
  /** Invalidation of the per-process caches (platform settings, credentials) across processes. */
  bus: InvalidationBus;
}

/** A service call on behalf of one platform: `db` cannot reach another platform's rows. */
export interface Ctx extends AppDeps {
  platformId: string;
  db: TenantDb;
  /** Set when an agent makes the call (A17): it acts only for `agent.customerId`, under its policy. */
  agent?: AgentActor;
  /** The request's Idempotency-Key: `db`'s transactions then record it with their effect (src/platform/idempotency.ts). */
  idempotency?: IdempotencyClaim;
  /** `db` without the claim, for transactions that must not carry the key. */
  baseDb?: TenantDb;
}

/** An agent's identity and policy as the auth hook resolved them (src/domains/agents). */
export interface AgentActor {
  agentId: string;
  customerId: string;
  policy: AgentPolicy;
  /** REF's isPaused: a paused agent reads but may not act (403 AGENT_PAUSED). */
  isPaused?: boolean;
  /** What an execution started by this call is recorded as (REF's AgentActionType); EXECUTE_QUOTE when absent. */
  actionType?: 'EXECUTE_QUOTE' | 'TRANSFER_OUT' | 'TRANSFER_IN';
}

/** REF's AgentPolicy with amounts as bigint minor units; docs/decisions.md anchor 26b (the spec's fields map onto it). */
export interface AgentPolicy {
  permissions: string[];
  defaultExecutionMode: 'AUTO' | 'APPROVAL_REQUIRED';
  spendingLimits: { currency: string; perTransactionLimit: bigint; dailyLimit: bigint | null; dailyTransactionLimit: number | null; monthlyLimit: bigint | null };
  accountRestrictions: { allowedAccountIds: string[] | null; accountRules: Array<{ accountId: string; executionMode?: 'AUTO' | 'APPROVAL_REQUIRED'; perTransactionLimit?: bigint | null }> };
  approvalThresholds: { currency: string; amount: bigint | null } | null;
}

const cache = new WeakMap<PrismaClient, Map<string, TenantDb>>();
const MAX_CACHED_TENANTS = 1000;

const ctxCache = new WeakMap<AppDeps, Map<string, Ctx>>();

/**
 * Scoped clients are cheap but not free; keep one per platform (process-local, holds no state). The Ctx
 * itself too, per deps object: callers replace a Ctx (`{ ...ctx, agent }`), never change one.
 */
export function ctxFor(deps: AppDeps, platformId: string): Ctx {
  let ctxs = ctxCache.get(deps);
  if (!ctxs) ctxCache.set(deps, (ctxs = new Map()));
  const hit = ctxs.get(platformId);
  if (hit) return hit;
  let byPlatform = cache.get(deps.prisma);
  if (!byPlatform) cache.set(deps.prisma, (byPlatform = new Map()));
  let db = byPlatform.get(platformId);
  if (!db) {
    if (byPlatform.size >= MAX_CACHED_TENANTS) byPlatform.clear();
    db = tenantDb(deps.prisma, platformId);
    byPlatform.set(platformId, db);
  }
  if (ctxs.size >= MAX_CACHED_TENANTS) ctxs.clear();
  const ctx: Ctx = Object.freeze({ ...deps, platformId, db });
  ctxs.set(platformId, ctx);
  return ctx;
}
