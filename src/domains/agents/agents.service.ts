import { randomBytes, randomInt } from 'node:crypto';
import { agentFilterWhere, type AgentListFilters } from './agents.list-filters.js';
import type { AgentActor, AppDeps, Ctx } from '../../deps.js';
import { ctxFor } from '../../deps.js';
import { NotFoundError } from '../../platform/errors.js';
import { newId } from '../../platform/ids.js';
import { decodeCursor, toPage, type Page } from '../../platform/http/pagination.js';
import type { Agent, AgentDeviceCode } from '../../generated/prisma/client.js';
import { policyOf, secretHash, type StoredPolicy } from './agents.model.js';
import type { CreateAgentBody } from './agents.schemas.js';
import { platformOfLookup } from '../../platform/tenant-lookups.js';

const agentNotFound = () => new NotFoundError('NOT_FOUND', 'Agent not found.');
const codeNotFound = () => new NotFoundError('TOKEN_NOT_FOUND', 'The device code does not exist, has expired or was already used.');

/** POST /agents (A17). Errors: 400 INVALID_INPUT; 404 USER_NOT_FOUND; 410 CUSTOMER_DELETED is reported as 404 too. */
export async function createAgent(ctx: Ctx, body: CreateAgentBody): Promise<Agent> {
  const customer = await ctx.db.customer.findFirst({ where: { id: body.customerId } });
  if (!customer || customer.isDeleted) throw new NotFoundError('USER_NOT_FOUND', 'Customer not found.');
  const policy: StoredPolicy = {
    currency: body.policy.currency,
    maxTransactionAmount: String(body.policy.maxTransactionAmount),
    dailyLimit: String(body.policy.dailyLimit),
    approvalThreshold: String(body.policy.approvalThreshold),
    allowedActions: body.policy.allowedActions,
  };
  const now = ctx.clock.now();
  return ctx.db.agent.create({ data: { id: newId('Agent'), customerId: customer.id, name: body.name, policy: policy as never, status: 'ACTIVE', createdAt: now, updatedAt: now } as never });
}

export async function getAgent(ctx: Ctx, id: string): Promise<Agent> {
  const a = await ctx.db.agent.findFirst({ where: { id } });
  if (!a) throw agentNotFound();
  return a;
}

export async function listAgents(ctx: Ctx, q: { customerId?: string; limit: number; cursor?: string } & AgentListFilters): Promise<Page<Agent>> {
  const before = decodeCursor(q.cursor);
  const rows = await ctx.db.agent.findMany({
    where: { ...(q.customerId ? { customerId: q.customerId } : {}), ...agentFilterWhere(q), ...(before ? { id: { lt: before } } : {}) },
    orderBy: { id: 'desc' },
    take: q.limit + 1,
  });
  return toPage(rows, q.limit, (r) => r);
}

/** Unambiguous letters and digits; 12 of them (60 bits) shown as XXXX-XXXX-XXXX. */
const CODE_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';
const normalizeCode = (code: string) => code.toUpperCase().replace(/[^A-Z0-9]/g, '');

/**
 * POST /agents/{agentId}/device-codes: a single-use code the agent redeems for its access token
 * (B§1 "Agent auth"). Only its SHA-256 is stored; it expires after AGENT_DEVICE_CODE_TTL_SECONDS.
 */
export async function createDeviceCode(ctx: Ctx, agentId: string): Promise<{ code: string; expiresAt: Date; agentId: string }> {
  const agent = await getAgent(ctx, agentId);
  const raw = Array.from({ length: 12 }, () => CODE_ALPHABET[randomInt(CODE_ALPHABET.length)]).join('');
  const code = `${raw.slice(0, 4)}-${raw.slice(4, 8)}-${raw.slice(8)}`;
  const now = ctx.clock.now();
  const expiresAt = new Date(now.getTime() + ctx.config.AGENT_DEVICE_CODE_TTL_SECONDS * 1000);
  await ctx.db.agentDeviceCode.create({ data: { id: newId('AgentDeviceCode'), agentId: agent.id, codeHash: secretHash(normalizeCode(code)), expiresAt, createdAt: now } as never });
  return { code, expiresAt, agentId: agent.id };
}

/** GET /agents/device-codes/{code}/status (platform): whether the agent redeemed it. Errors: 404 TOKEN_NOT_FOUND. */
export async function deviceCodeStatus(ctx: Ctx, code: string): Promise<AgentDeviceCode> {
  const row = await ctx.db.agentDeviceCode.findUnique({ where: { platformId_codeHash: { platformId: ctx.platformId, codeHash: secretHash(normalizeCode(code)) } } });
  if (!row) throw codeNotFound();
  return row;
}

/**
 * POST /agents/device-codes/{code}/redeem (no credentials: the code is the proof). Single use, by a
 * compare-and-set; the access token is returned this once and only its hash kept.
 * Errors: 404 TOKEN_NOT_FOUND (unknown, expired, used, or the agent disabled).
 */
export async function redeemDeviceCode(deps: AppDeps, code: string): Promise<{ agent: Agent; accessToken: string }> {
  const hash = secretHash(normalizeCode(code));
  const platformId = await platformOfLookup(deps.prisma, 'AGENT_DEVICE_CODE', hash);
  const row = platformId ? await deps.prisma.agentDeviceCode.findUnique({ where: { platformId_codeHash: { platformId, codeHash: hash } }, include: { agent: true } }) : null;
  if (!row || row.agent.status !== 'ACTIVE') throw codeNotFound();
  const ctx = ctxFor(deps, row.platformId);
  const accessToken = `agt_${randomBytes(32).toString('base64url')}`;
  const now = ctx.clock.now();
  const claimed = await ctx.db.agentDeviceCode.updateMany({
    where: { id: row.id, redeemedAt: null, expiresAt: { gt: now } },
    data: { redeemedAt: now, accessTokenHash: secretHash(accessToken) },
  });
  if (claimed.count !== 1) throw codeNotFound();
  return { agent: row.agent, accessToken };
}

/** The agent as its calls see it (policy parsed); for work done on its behalf later (deposits). */
export async function agentActorOf(ctx: Ctx, agentId: string): Promise<AgentActor> {
  const a = await getAgent(ctx, agentId);
  return { agentId: a.id, customerId: a.customerId, policy: policyOf(a.policy) };
}
