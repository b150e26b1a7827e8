import type { FastifyInstance, FastifyRequest } from 'fastify';
import { NotFoundError } from '../../platform/errors.js';
import { parseInput } from '../../platform/http/validate.js';
import { findBanks } from './discoveries.js';
import {
  challengeBody, discoveriesQuery, externalAccountParams, externalAccountResource, listCustomerAccountsQuery, listPlatformAccountsQuery,
  trustConfirmBody, verifyBody,
} from './external-accounts.schemas.js';
import {
  createExternalAccount, deleteExternalAccount, getExternalAccount, listCustomerExternalAccounts, listPlatformExternalAccounts, type AccountScope,
} from './external-accounts.service.js';
import { startOwnershipChallenge, verifyOwnershipSignature } from './ownership.service.js';
import { confirmTrustChange, startTrustChange, type TrustAction } from './trust.service.js';
import { customerFilterFor } from '../../platform/agent-scope.js';
import type { Ctx } from '../../deps.js';

/** An agent creates accounts only for its customer: `customerId` is its customer's, whatever was sent (another one is 404). */
function agentBody(ctx: Ctx, body: unknown): unknown {
  if (!ctx.agent || typeof body !== 'object' || body === null) return body;
  const given = (body as { customerId?: unknown }).customerId;
  if (given !== undefined && given !== ctx.agent.customerId) throw new NotFoundError('USER_NOT_FOUND', 'Customer not found.');
  return { ...body, customerId: ctx.agent.customerId };
}

const SCOPES: ReadonlyArray<[AccountScope, string]> = [
  ['customers', '/customers/external-accounts'],
  ['platform', '/platform/external-accounts'],
];

export async function externalAccountRoutes(app: FastifyInstance) {
  for (const [scope, base] of SCOPES) {
    // Agents (A17) reach only their customer's accounts, under /customers.
    const agentConfig = (action: 'VIEW_ACCOUNTS' | 'MANAGE_EXTERNAL_ACCOUNTS'): { agent?: 'VIEW_ACCOUNTS' | 'MANAGE_EXTERNAL_ACCOUNTS' } => (scope === 'customers' ? { agent: action } : {});
    const replay = async (req: FastifyRequest, id: string | undefined) => ({ status: 201, body: externalAccountResource(await getExternalAccount(req.ctx, scope, id ?? '')) });
    app.post(base, { config: { idempotent: { replay }, ...agentConfig('MANAGE_EXTERNAL_ACCOUNTS') } }, async (req, reply) => {
      const account = await createExternalAccount(req.ctx, scope, agentBody(req.ctx, req.body));
      reply.status(201);
      return externalAccountResource(account);
    });

    app.get(`${base}/:externalAccountId`, { config: agentConfig('VIEW_ACCOUNTS') }, async (req) => {
      const { externalAccountId } = parseInput(externalAccountParams, req.params);
      return externalAccountResource(await getExternalAccount(req.ctx, scope, externalAccountId));
    });

    app.delete(`${base}/:externalAccountId`, async (req, reply) => {
      const { externalAccountId } = parseInput(externalAccountParams, req.params);
      await deleteExternalAccount(req.ctx, scope, externalAccountId);
      return reply.status(204).send();
    });

    app.post(`${base}/:externalAccountId/challenge`, async (req, reply) => {
      const { externalAccountId } = parseInput(externalAccountParams, req.params);
      const { method } = parseInput(challengeBody, req.body ?? {});
      reply.status(201);
      return startOwnershipChallenge(req.ctx, scope, externalAccountId, method);
    });

    app.post(`${base}/:externalAccountId/verify`, async (req) => {
      const { externalAccountId } = parseInput(externalAccountParams, req.params);
      const body = parseInput(verifyBody, req.body ?? {});
      return externalAccountResource(await verifyOwnershipSignature(req.ctx, scope, externalAccountId, body));
    });
  }

  app.get('/customers/external-accounts', { config: { agent: 'VIEW_ACCOUNTS', query: listCustomerAccountsQuery } }, async (req) => {
    const q = parseInput(listCustomerAccountsQuery, req.query);
    const page = await listCustomerExternalAccounts(req.ctx, { ...q, customerId: customerFilterFor(req.ctx, q.customerId) });
    return { ...page, data: page.data.map(externalAccountResource) };
  });

  app.get('/platform/external-accounts', { config: { query: listPlatformAccountsQuery } }, async (req) => {
    const page = await listPlatformExternalAccounts(req.ctx, parseInput(listPlatformAccountsQuery, req.query));
    return { ...page, data: page.data.map(externalAccountResource) };
  });

  for (const action of ['TRUST', 'UNTRUST'] as TrustAction[]) {
    const path = `/customers/external-accounts/:externalAccountId/${action.toLowerCase()}`;
    app.post(path, async (req) => {
      const { externalAccountId } = parseInput(externalAccountParams, req.params);
      return startTrustChange(req.ctx, externalAccountId, action);
    });
    app.post(`${path}/confirm`, async (req) => {
      const { externalAccountId } = parseInput(externalAccountParams, req.params);
      return confirmTrustChange(req.ctx, externalAccountId, action, parseInput(trustConfirmBody, req.body ?? {}));
    });
  }

  app.get('/discoveries', { config: { query: discoveriesQuery } }, async (req) => {
    const q = parseInput(discoveriesQuery, req.query);
    return { data: findBanks(q.country, q.currency) };
  });
}
