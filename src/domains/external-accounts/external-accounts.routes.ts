import type { FastifyInstance } from 'fastify';
import type { AppDeps } from '../../deps.js';
import { ForbiddenError } from '../../platform/errors.js';
import { parseInput } from '../../platform/http/validate.js';
import { sandboxLivenessPage } from '../../adapters/liveness/sandbox/index.js';
import { findBanks } from './discoveries.js';
import {
  challengeBody, discoveriesQuery, externalAccountParams, externalAccountResource, listCustomerAccountsQuery, listPlatformAccountsQuery,
  livenessOutcomeBody, livenessParams, trustConfirmBody, verifyBody,
} from './external-accounts.schemas.js';
import {
  createExternalAccount, deleteExternalAccount, getExternalAccount, listCustomerExternalAccounts, listPlatformExternalAccounts, type AccountScope,
} from './external-accounts.service.js';
import { getLivenessSession, receiveLivenessOutcome, startOwnershipChallenge, verifyOwnershipSignature } from './ownership.service.js';
import { confirmTrustChange, startTrustChange, type TrustAction } from './trust.service.js';

const SCOPES: ReadonlyArray<[AccountScope, string]> = [
  ['customers', '/customers/external-accounts'],
  ['platform', '/platform/external-accounts'],
];

export async function externalAccountRoutes(app: FastifyInstance) {
  for (const [scope, base] of SCOPES) {
    app.post(base, { config: { idempotent: true } }, async (req, reply) => {
      const account = await createExternalAccount(req.ctx, scope, req.body);
      reply.status(201);
      return externalAccountResource(account);
    });

    app.get(`${base}/:externalAccountId`, async (req) => {
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

  app.get('/customers/external-accounts', async (req) => {
    const page = await listCustomerExternalAccounts(req.ctx, parseInput(listCustomerAccountsQuery, req.query));
    return { ...page, data: page.data.map(externalAccountResource) };
  });

  app.get('/platform/external-accounts', async (req) => {
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

  app.get('/discoveries', async (req) => {
    const q = parseInput(discoveriesQuery, req.query);
    return { data: findBanks(q.country, q.currency) };
  });
}

/** The sandbox liveness page and its callback: no platform auth, the single-use token is the proof. */
export async function externalAccountPublicRoutes(app: FastifyInstance, deps: AppDeps) {
  const sandboxOnly = async () => {
    if (deps.config.SVC_ENV !== 'sandbox') throw new ForbiddenError('FORBIDDEN', 'Sandbox operations are not available in production.');
  };

  app.get('/sandbox/liveness/:token', { preHandler: sandboxOnly }, async (req, reply) => {
    const { token } = parseInput(livenessParams, req.params);
    const session = await getLivenessSession(deps, token);
    return reply.type('text/html; charset=utf-8').header('cache-control', 'no-store').send(sandboxLivenessPage(token, session.expiresAt));
  });

  app.post('/sandbox/liveness/:token', { preHandler: sandboxOnly }, async (req, reply) => {
    const { token } = parseInput(livenessParams, req.params);
    const { outcome } = parseInput(livenessOutcomeBody, req.body ?? {});
    await receiveLivenessOutcome(deps, token, outcome);
    reply.status(202);
    return { outcome, status: 'RECEIVED' };
  });
}
