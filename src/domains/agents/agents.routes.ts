import type { FastifyInstance } from 'fastify';
import type { AppDeps } from '../../deps.js';
import { parseInput } from '../../platform/http/validate.js';
import { agentParams, agentResource, codeParams, createAgentBody, deviceCodeStatusResource, listAgentsQuery, policyResource } from './agents.schemas.js';
import { createAgent, createDeviceCode, deviceCodeStatus, getAgent, listAgents, redeemDeviceCode } from './agents.service.js';

/** Platform-only (no `agent` route config): agents cannot manage agents. */
export async function agentRoutes(app: FastifyInstance) {
  app.post('/agents', { config: { idempotent: true } }, async (req, reply) => {
    const body = parseInput(createAgentBody, req.body ?? {});
    reply.status(201);
    return agentResource(await createAgent(req.ctx, body));
  });

  app.get('/agents', { config: { query: listAgentsQuery } }, async (req) => {
    const page = await listAgents(req.ctx, parseInput(listAgentsQuery, req.query));
    return { ...page, data: page.data.map(agentResource) };
  });

  app.get('/agents/:agentId', async (req) => {
    const { agentId } = parseInput(agentParams, req.params);
    return agentResource(await getAgent(req.ctx, agentId));
  });

  app.post('/agents/:agentId/device-codes', { config: { idempotent: true } }, async (req, reply) => {
    const { agentId } = parseInput(agentParams, req.params);
    const c = await createDeviceCode(req.ctx, agentId);
    reply.status(201);
    return { code: c.code, agentId: c.agentId, expiresAt: c.expiresAt.toISOString() };
  });

  app.get('/agents/device-codes/:code/status', async (req) => {
    const { code } = parseInput(codeParams, req.params);
    return deviceCodeStatusResource(code, await deviceCodeStatus(req.ctx, code));
  });
}

/** The device code is the proof of access (B§1): no platform credentials. */
export async function agentPublicRoutes(app: FastifyInstance, deps: AppDeps) {
  app.post('/agents/device-codes/:code/redeem', async (req) => {
    const { code } = parseInput(codeParams, req.params);
    const { agent, accessToken } = await redeemDeviceCode(deps, code);
    return { agentId: agent.id, agentName: agent.name, accessToken, tokenType: 'Bearer', policy: policyResource(agent.policy) };
  });
}
