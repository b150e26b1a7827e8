import type { FastifyInstance, FastifyRequest } from 'fastify';
import basicAuth from '@fastify/basic-auth';
import { hash } from 'node:crypto';
import type { PrismaClient } from '../db.js';
import type { Redis } from '../redis.js';
import { DomainError, ForbiddenError, UnauthorizedError } from '../errors.js';
import { isStorableText } from './validate.js';
import { dummySecretHash, hmacHex, verifySecret } from '../secrets.js';
import type { Permission, Principal } from '../principal.js';
import { ProcessCache, type InvalidationBus } from '../process-cache.js';
import { platformOfLookup } from '../tenant-lookups.js';

/** What an agent's policy can allow (docs/decisions.md "Agents"). */
export const AGENT_ACTIONS = ['CREATE_QUOTE', 'EXECUTE_QUOTE', 'VIEW_TRANSACTIONS', 'CANCEL_TRANSACTION', 'VIEW_ACCOUNTS', 'MANAGE_EXTERNAL_ACCOUNTS'] as const;
export type AgentAction = (typeof AGENT_ACTIONS)[number];
/** REF's AgentPermission (issue 26): what an agent's policy grants. */
export const AGENT_PERMISSIONS = ['VIEW_TRANSACTIONS', 'CREATE_TRANSFERS', 'CREATE_QUOTES', 'EXECUTE_QUOTES', 'MANAGE_EXTERNAL_ACCOUNTS'] as const;
export type AgentPermission = (typeof AGENT_PERMISSIONS)[number];
/**
 * The spec's (A17) actions as REF permissions (docs/decisions.md anchor 26b). REF has no account-viewing or cancel
 * permission: viewing accounts is VIEW_TRANSACTIONS ("transactions and account balances"), cancelling a payment
 * the agent started is EXECUTE_QUOTES.
 */
export const PERMISSION_OF_ACTION: Record<AgentAction, AgentPermission> = {
  CREATE_QUOTE: 'CREATE_QUOTES',
  EXECUTE_QUOTE: 'EXECUTE_QUOTES',
  VIEW_TRANSACTIONS: 'VIEW_TRANSACTIONS',
  CANCEL_TRANSACTION: 'EXECUTE_QUOTES',
  VIEW_ACCOUNTS: 'VIEW_TRANSACTIONS',
  MANAGE_EXTERNAL_ACCOUNTS: 'MANAGE_EXTERNAL_ACCOUNTS',
};

export interface AuthDeps {
  /** Resolves an agent's Bearer token (src/domains/agents); absent: Bearer credentials are refused. */
  resolveAgentToken?: (token: string) => Promise<Principal | undefined>;
  prisma: PrismaClient;
  redis: Redis;
  redisPrefix: string;
  cacheTtlSeconds: number;
  /** Keys the cache digest; the same value on every process lets them share cache entries. */
  cacheKey: string;
  /** The process's own copy of verified credentials, in front of the Redis one (no round trip on a hit). */
  bus?: InvalidationBus;
}

const LOCAL_CACHE = 'credentials';
const localCaches = new WeakMap<InvalidationBus, ProcessCache<Principal>>();

function localCache(deps: AuthDeps): ProcessCache<Principal> | undefined {
  if (!deps.bus || deps.cacheTtlSeconds <= 0) return undefined;
  let cache = localCaches.get(deps.bus);
  if (!cache) localCaches.set(deps.bus, (cache = new ProcessCache(LOCAL_CACHE, deps.bus, deps.cacheTtlSeconds * 1000)));
  return cache;
}

const cacheKeyFor = (prefix: string, clientId: string) => `${prefix}:auth:${clientId}`;

/**
 * Verifies a client id and secret. A success is remembered for a short TTL under an HMAC of the
 * presented pair (never the secret itself), in a Redis hash per client id so revocation can drop
 * every cached verification of that client at once (`forgetCredential`).
 */
export async function verifyCredentials(deps: AuthDeps, clientId: string, secret: string): Promise<Principal> {
  const pair = `${clientId}\u0000${secret}`;
  const local = localCache(deps);
  if (!local) return verifyThroughRedis(deps, clientId, secret, hmacHex(deps.cacheKey, pair));
  // The process's own copy is keyed by a plain SHA-256 of the keyed pair (it never leaves the process;
  // a sixth of an HMAC's cost, paid on every request), grouped under the client id so a revocation
  // drops every verified pair of that client. The HMAC, shared through Redis, only on a miss.
  const localKey = `${clientId}\n${hash('sha256', `${deps.cacheKey}\u0000${pair}`, 'base64')}`;
  return local.get(localKey, () => verifyThroughRedis(deps, clientId, secret, hmacHex(deps.cacheKey, pair)));
}

async function verifyThroughRedis(deps: AuthDeps, clientId: string, secret: string, digest: string): Promise<Principal> {
  const cacheKey = cacheKeyFor(deps.redisPrefix, clientId);
  if (deps.cacheTtlSeconds > 0) {
    const hit = await deps.redis.hget(cacheKey, digest);
    if (hit) return JSON.parse(hit) as Principal;
  }
  const platformId = await platformOfLookup(deps.prisma, 'PLATFORM_CLIENT_ID', clientId);
  const cred = platformId ? await deps.prisma.platformCredential.findUnique({ where: { platformId_clientId: { platformId, clientId } } }) : null;
  const ok = await verifySecret(secret, cred && !cred.revokedAt ? cred.secretHash : await dummySecretHash());
  if (!cred || cred.revokedAt || !ok) throw new UnauthorizedError();
  const principal: Principal = {
    platformId: cred.platformId,
    credentialId: cred.id,
    permissions: cred.permissions as Permission[],
  };
  if (deps.cacheTtlSeconds > 0) {
    await deps.redis.multi().hset(cacheKey, digest, JSON.stringify(principal)).expire(cacheKey, deps.cacheTtlSeconds).exec();
    // A revocation (DELETE /tokens) commits, then drops this hash. Had it committed after our read
    // above but dropped the hash before our write, the entry just written would outlive it: read
    // the row again now that the entry exists, and take it back if the credential is gone.
    const again = await deps.prisma.platformCredential.findUnique({ where: { platformId_clientId: { platformId: cred.platformId, clientId } }, select: { revokedAt: true } });
    if (!again || again.revokedAt) {
      await deps.redis.del(cacheKey);
      throw new UnauthorizedError();
    }
  }
  return principal;
}

/**
 * Drops every cached verification for a client id, in Redis and in every process; call after
 * revoking or rotating it (after the commit).
 */
export async function forgetCredential(deps: Pick<AuthDeps, 'redis' | 'redisPrefix' | 'bus'>, clientId: string): Promise<void> {
  await deps.redis.del(cacheKeyFor(deps.redisPrefix, clientId));
  if (deps.bus) {
    localCaches.get(deps.bus)?.forget(clientId);
    await deps.bus.publish(LOCAL_CACHE, clientId);
  }
}

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal;
  }
  interface FastifyContextConfig {
    /**
     * Permission the route needs; default VIEW for GET, TRANSACT otherwise (decision A3). `ANY`:
     * every authenticated credential (GET /tokens/current, a credential reading itself).
     */
    permission?: Permission | 'ANY';
    /**
     * Agents (A17) may call the route when their policy allows this action; routes without it are
     * platform-only and answer an agent 403 FORBIDDEN.
     */
    agent?: AgentAction | AgentPermission | 'SELF';
  }
}

export function requiredPermission(req: FastifyRequest): Permission | 'ANY' {
  return req.routeOptions.config.permission ?? (req.method === 'GET' || req.method === 'HEAD' ? 'VIEW' : 'TRANSACT');
}

/** Registers Basic auth on the (encapsulated) API scope: every route in it requires credentials. */
export async function registerPlatformAuth(scope: FastifyInstance, deps: AuthDeps) {
  await scope.register(basicAuth, {
    authenticate: false,
    validate: async (username, password, req) => {
      // A NUL or unpaired surrogate (base64 decodes to any bytes) can match no stored client id.
      if (!username || !password || !isStorableText(username)) throw new UnauthorizedError();
      req.principal = await verifyCredentials(deps, username, password);
    },
  });
  scope.decorateRequest('principal', null as unknown as Principal);
  scope.addHook('onRequest', async (req, reply) => {
    const header = req.headers.authorization;
    if (header && /^bearer\s+/i.test(header)) {
      await authenticateAgent(req, header.replace(/^bearer\s+/i, '').trim(), deps);
      return;
    }
    if (!header || !/^basic\s+/i.test(header)) throw new UnauthorizedError();
    await new Promise<void>((resolve, reject) => {
      scope.basicAuth(req, reply, (err?: unknown) => (err ? reject(err) : resolve()));
    });
    const needed = requiredPermission(req);
    if (needed !== 'ANY' && !req.principal.permissions.includes(needed)) {
      throw new ForbiddenError('FORBIDDEN', `This credential lacks the ${needed} permission.`);
    }
  });
}

/**
 * Agent calls (A17): `Authorization: Bearer <accessToken>`. An unknown, revoked or disabled agent's
 * token is 401; a route not open to agents, or an action outside the agent's policy, is 403.
 */
async function authenticateAgent(req: FastifyRequest, token: string, deps: AuthDeps): Promise<void> {
  const principal = token && deps.resolveAgentToken ? await deps.resolveAgentToken(token) : undefined;
  if (!principal?.agent) throw new UnauthorizedError('UNAUTHORIZED', 'The agent access token is missing, invalid or revoked.');
  req.principal = principal;
  const action = req.routeOptions.config.agent;
  if (!action) throw new ForbiddenError('FORBIDDEN', 'Agents may not call this endpoint; it is for the platform only.');
  const details = { agentId: principal.agent.agentId };
  // REF: "Paused agents cannot initiate any actions"; they still read.
  if (principal.agent.isPaused && req.method !== 'GET' && req.method !== 'HEAD') throw new DomainError(403, 'FORBIDDEN', 'The agent is paused; it may read but not act.', { ...details, reason: 'AGENT_PAUSED' });
  if (action === 'SELF') return;
  const permission = action in PERMISSION_OF_ACTION ? PERMISSION_OF_ACTION[action as AgentAction] : (action as AgentPermission);
  if (!principal.agent.policy.permissions.includes(permission)) throw new DomainError(403, 'FORBIDDEN', `The agent's policy does not grant ${permission}.`, { ...details, reason: 'PERMISSION_REQUIRED', permission });
}
