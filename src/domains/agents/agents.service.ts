import { randomBytes, randomInt } from 'node:crypto';
import { agentFilterWhere, type AgentListFilters } from './agents.list-filters.js';
import type { AgentActor, AgentPolicy, AppDeps, Ctx } from '../../deps.js';
import { ctxFor } from '../../deps.js';
import { ConflictError, NotFoundError } from '../../platform/errors.js';
import { newId } from '../../platform/ids.js';
import { decodeCursor, toPage, type Page } from '../../platform/http/pagination.js';
import type { Agent, AgentDeviceCode } from '../../generated/prisma/client.js';
import { policyOf, secretHash, storedPolicy } from './agents.model.js';
import type { Decimal } from 'decimal.js';
import { patchedPolicy, type AgentUsageResource, type CreateAgentBody, type PolicyPatchBody, type UpdateAgentBody } from './agents.schemas.js';
import { recastFactor, recastLimit, recastUsage, usagesOf } from './agents.policy.js';
import { platformOfLookup, syncLookups } from '../../platform/tenant-lookups.js';

const agentNotFound = () => new NotFoundError('NOT_FOUND', 'Agent not found.');
const codeNotFound = () => new NotFoundError('TOKEN_NOT_FOUND', 'The device code does not exist, has expired or was already used.');

/** An agent as REF shows it: whether a device code was redeemed, and today's usage. */
export type AgentView = Agent & { isConnected: boolean; usage: AgentUsageResource };

/** Agents that still exist (DELETE ends one: DELETED rows stay for the payments that name them). */
const LIVE = { status: { not: 'DELETED' } } as const;

async function viewOf(ctx: Ctx, a: Agent): Promise<AgentView> {
  return (await viewsOf(ctx, [a]))[0]!;
}

/** Agents with whether each is connected and today's usage: three statements for the whole page. */
async function viewsOf(ctx: Ctx, agents: Agent[]): Promise<AgentView[]> {
  const ids = agents.map((a) => a.id);
  const [connected, usage] = await Promise.all([
    ctx.db.agentDeviceCode.findMany({ where: { agentId: { in: ids }, redeemedAt: { not: null } }, select: { agentId: true }, distinct: ['agentId'] }),
    usagesOf(ctx, ids, ctx.clock.now()),
  ]);
  const isConnected = new Set(connected.map((c) => c.agentId));
  return agents.map((a) => ({ ...a, isConnected: isConnected.has(a.id), usage: usage.get(a.id)! }));
}

/**
 * POST /agents: the agent and its first device code (REF's AgentCreateResponse). Errors: 400 INVALID_INPUT;
 * 404 USER_NOT_FOUND (also a deleted customer).
 */
export async function createAgent(ctx: Ctx, body: CreateAgentBody): Promise<{ agent: AgentView; deviceCode: DeviceCode }> {
  const customer = await ctx.db.customer.findFirst({ where: { id: body.customerId } });
  if (!customer || customer.isDeleted) throw new NotFoundError('USER_NOT_FOUND', 'Customer not found.');
  const now = ctx.clock.now();
  const { agent, deviceCode } = await ctx.db.$transaction(async (tx) => {
    const agent = await tx.agent.create({ data: { id: newId('Agent'), customerId: customer.id, name: body.name, policy: storedPolicy(body.policy) as never, status: 'ACTIVE', createdAt: now, updatedAt: now } as never });
    const deviceCode = newDeviceCode(ctx, agent.id, now);
    await syncLookups(tx, 'agent_device_codes', null, await tx.agentDeviceCode.create({ data: deviceCode.row as never }));
    return { agent, deviceCode: deviceCode.wire };
  });
  return { agent: await viewOf(ctx, agent), deviceCode };
}

async function liveAgent(ctx: Ctx, id: string): Promise<Agent> {
  const a = await ctx.db.agent.findFirst({ where: { id, ...LIVE } });
  if (!a) throw agentNotFound();
  return a;
}

/** Errors: 404 NOT_FOUND (also a deleted agent, another platform's). */
export async function getAgent(ctx: Ctx, id: string): Promise<AgentView> {
  return viewOf(ctx, await liveAgent(ctx, id));
}

export async function listAgents(ctx: Ctx, q: { customerId?: string; limit: number; cursor?: string } & AgentListFilters): Promise<Page<AgentView>> {
  const before = decodeCursor(q.cursor);
  const rows = await ctx.db.agent.findMany({
    where: { AND: [LIVE, { ...(q.customerId ? { customerId: q.customerId } : {}), ...agentFilterWhere(q), ...(before ? { id: { lt: before } } : {}) }] },
    orderBy: { id: 'desc' },
    take: q.limit + 1,
  });
  const page = toPage(rows, q.limit, (r) => r);
  return { ...page, data: await viewsOf(ctx, page.data) };
}

/** PATCH /agents/{id} (REF): name, and isPaused (the DISABLED status). Errors: 400; 404 NOT_FOUND. */
export async function updateAgent(ctx: Ctx, id: string, body: UpdateAgentBody): Promise<AgentView> {
  const now = ctx.clock.now();
  const status = body.isPaused === undefined ? {} : { status: body.isPaused ? 'DISABLED' : 'ACTIVE' };
  const moved = await ctx.db.agent.updateMany({ where: { id, ...LIVE }, data: { ...(body.name !== undefined ? { name: body.name } : {}), ...status, updatedAt: now } });
  if (moved.count !== 1) throw agentNotFound();
  return getAgent(ctx, id);
}

/**
 * PATCH /agents/{id}/policy (REF): each given field replaces the current one, spendingLimits field by field. It
 * takes effect at once: every agent call reads the policy from Postgres (agents.auth.ts), and approvals re-check
 * the latest. Errors: 400; 404 NOT_FOUND.
 */
export async function updateAgentPolicy(ctx: Ctx, id: string, body: PolicyPatchBody): Promise<AgentView> {
  // 26c: a new spendingLimits.currency recasts the limits the body does not set, and the usage counters, at today's rate.
  const target = body.spendingLimits?.currency;
  const before = target ? await ctx.db.agent.findFirst({ where: { id, status: { not: 'DELETED' } }, select: { policy: true } }) : null;
  const from = before ? policyOf(before.policy).spendingLimits.currency : undefined;
  const factor = target && from && from !== target ? await recastFactor(ctx, from, target) : null;
  return ctx.db.$transaction(async (tx) => {
    const [row] = await tx.$queryRaw<Array<{ policy: unknown }>>`SELECT policy FROM agents WHERE id = ${id} AND platform_id = ${ctx.platformId} AND status <> 'DELETED' FOR UPDATE`;
    if (!row) throw agentNotFound();
    const current = policyOf(row.policy);
    if (target && current.spendingLimits.currency !== target && (!factor || current.spendingLimits.currency !== from)) {
      throw new ConflictError('CONFLICT', "The agent's policy changed while its limits were recast; retry.");
    }
    const policy = storedPolicy(patchedPolicy(factor ? recastPolicy(current, factor, target!) : current, body));
    if (factor) await recastUsage(ctx, tx, id, factor);
    await tx.agent.updateMany({ where: { id }, data: { policy: policy as never, updatedAt: ctx.clock.now() } });
    return viewOf(ctx, await tx.agent.findFirstOrThrow({ where: { id } }));
  });
}

/** The policy's amount limits (spending limits, per-account limits) in `currency`; the body's own values then replace them. */
function recastPolicy(p: AgentPolicy, factor: Decimal, currency: string): AgentPolicy {
  const l = p.spendingLimits;
  const cast = (v: bigint | null) => (v === null ? null : recastLimit(v, factor));
  return {
    ...p,
    spendingLimits: { ...l, currency, perTransactionLimit: recastLimit(l.perTransactionLimit, factor), dailyLimit: cast(l.dailyLimit), monthlyLimit: cast(l.monthlyLimit) },
    accountRestrictions: {
      ...p.accountRestrictions,
      accountRules: p.accountRestrictions.accountRules.map((r) => (r.perTransactionLimit == null ? r : { ...r, perTransactionLimit: recastLimit(r.perTransactionLimit, factor) })),
    },
  };
}

/**
 * DELETE /agents/{id} (REF): the agent ends, its tokens stop at once on every process (they are checked against
 * this row on every call, agents.auth.ts) and its unredeemed codes with them. The row stays, DELETED, for the
 * payments and actions that name it. Errors: 404 NOT_FOUND.
 */
export async function deleteAgent(ctx: Ctx, id: string): Promise<void> {
  const moved = await ctx.db.agent.updateMany({ where: { id, ...LIVE }, data: { status: 'DELETED', updatedAt: ctx.clock.now() } });
  if (moved.count !== 1) throw agentNotFound();
}

/** Unambiguous letters and digits; 12 of them (60 bits) shown as XXXX-XXXX-XXXX. */
const CODE_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';
const normalizeCode = (code: string) => code.toUpperCase().replace(/[^A-Z0-9]/g, '');

interface DeviceCode {
  code: string;
  expiresAt: Date;
  agentId: string;
}

function newDeviceCode(ctx: Ctx, agentId: string, now: Date) {
  const raw = Array.from({ length: 12 }, () => CODE_ALPHABET[randomInt(CODE_ALPHABET.length)]).join('');
  const code = `${raw.slice(0, 4)}-${raw.slice(4, 8)}-${raw.slice(8)}`;
  const expiresAt = new Date(now.getTime() + ctx.config.AGENT_DEVICE_CODE_TTL_SECONDS * 1000);
  return { wire: { code, expiresAt, agentId }, row: { id: newId('AgentDeviceCode'), agentId, codeHash: secretHash(normalizeCode(code)), expiresAt, createdAt: now } };
}

/**
 * POST /agents/{agentId}/device-codes: a single-use code the agent redeems for its access token (B§1 "Agent
 * auth"). Only its SHA-256 is stored; it expires after AGENT_DEVICE_CODE_TTL_SECONDS. REF: earlier unredeemed
 * codes are invalidated (they expire now). Errors: 404 NOT_FOUND; 409 AGENT_ALREADY_CONNECTED (REF: a connected
 * agent cannot get a new code).
 */
export async function createDeviceCode(ctx: Ctx, agentId: string): Promise<DeviceCode> {
  const agent = await getAgent(ctx, agentId);
  if (agent.isConnected) throw new ConflictError('AGENT_ALREADY_CONNECTED', 'The agent is connected (its device code was redeemed); delete it and create a new one to reinstall.');
  const now = ctx.clock.now();
  const c = newDeviceCode(ctx, agent.id, now);
  await ctx.db.$transaction(async (tx) => {
    await tx.agentDeviceCode.updateMany({ where: { agentId: agent.id, redeemedAt: null, expiresAt: { gt: now } }, data: { expiresAt: now } });
    await syncLookups(tx, 'agent_device_codes', null, await tx.agentDeviceCode.create({ data: c.row as never }));
  });
  return c.wire;
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
 * Errors: 404 TOKEN_NOT_FOUND (unknown, expired, used, or the agent deleted).
 */
export async function redeemDeviceCode(deps: AppDeps, code: string): Promise<{ agent: Agent; accessToken: string }> {
  const hash = secretHash(normalizeCode(code));
  const platformId = await platformOfLookup(deps.prisma, 'AGENT_DEVICE_CODE', hash);
  const row = platformId ? await deps.prisma.agentDeviceCode.findUnique({ where: { platformId_codeHash: { platformId, codeHash: hash } }, include: { agent: true } }) : null;
  if (!row || row.agent.status === 'DELETED') throw codeNotFound();
  const ctx = ctxFor(deps, row.platformId);
  const accessToken = `agt_${randomBytes(32).toString('base64url')}`;
  const now = ctx.clock.now();
  const accessTokenHash = secretHash(accessToken);
  const claimed = await ctx.db.$transaction(async (tx) => {
    const moved = await tx.agentDeviceCode.updateMany({ where: { id: row.id, redeemedAt: null, expiresAt: { gt: now } }, data: { redeemedAt: now, accessTokenHash } });
    if (moved.count === 1) await syncLookups(tx, 'agent_device_codes', row, { ...row, accessTokenHash });
    return moved.count === 1;
  });
  if (!claimed) throw codeNotFound();
  return { agent: row.agent, accessToken };
}

/** The agent as its calls see it (policy parsed); for work done on its behalf later (deposits). */
export async function agentActorOf(ctx: Ctx, agentId: string): Promise<AgentActor> {
  const a = await ctx.db.agent.findFirst({ where: { id: agentId } });
  if (!a) throw agentNotFound();
  return { agentId: a.id, customerId: a.customerId, policy: policyOf(a.policy), isPaused: a.status !== 'ACTIVE' };
}
