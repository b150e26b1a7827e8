import type { FastifyInstance } from 'fastify';
import type { AppDeps } from '../../deps.js';
import { parseInput } from '../../platform/http/validate.js';
import { agentParams, agentResource, codeParams, createAgentBody, deviceCodeResource, deviceCodeStatusResource, listAgentsQuery, policyPatchBody, policyResource, updateAgentBody } from './agents.schemas.js';
import { createAgent, createDeviceCode, deleteAgent, deviceCodeStatus, getAgent, listAgents, redeemDeviceCode, updateAgent, updateAgentPolicy } from './agents.service.js';

/** Platform-only (no `agent` route config): agents cannot manage agents. */
export async function agentRoutes(app: FastifyInstance) {
  app.post('/agents', { config: { idempotent: true } }, async (req, reply) => {
    const body = parseInput(createAgentBody, req.body ?? {});
    const { agent, deviceCode } = await createAgent(req.ctx, body);
    reply.status(201);
    // REF's AgentCreateResponse {agent, deviceCode}; the Agent's own fields stay at the top for the spec's clients (decisions 26b).
    const resource = agentResource(agent);
    return { ...resource, agent: resource, deviceCode: deviceCodeResource(deviceCode) };
  });

  app.get('/agents', { config: { query: listAgentsQuery } }, async (req) => {
    const page = await listAgents(req.ctx, parseInput(listAgentsQuery, req.query));
    return { ...page, data: page.data.map(agentResource) };
  });

  app.get('/agents/:agentId', async (req) => {
    const { agentId } = parseInput(agentParams, req.params);
    return agentResource(await getAgent(req.ctx, agentId));
  });

  app.patch('/agents/:agentId', async (req) => {
    const { agentId } = parseInput(agentParams, req.params);
    return agentResource(await updateAgent(req.ctx, agentId, parseInput(updateAgentBody, req.body ?? {})));
  });

  app.delete('/agents/:agentId', async (req, reply) => {
    const { agentId } = parseInput(agentParams, req.params);
    await deleteAgent(req.ctx, agentId);
    return reply.status(204).send();
  });

  app.patch('/agents/:agentId/policy', async (req) => {
    const { agentId } = parseInput(agentParams, req.params);
    return agentResource(await updateAgentPolicy(req.ctx, agentId, parseInput(policyPatchBody, req.body ?? {})));
  });

  app.post('/agents/:agentId/device-codes', { config: { idempotent: true } }, async (req, reply) => {
    const { agentId } = parseInput(agentParams, req.params);
    reply.status(201);
    return deviceCodeResource(await createDeviceCode(req.ctx, agentId));
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
