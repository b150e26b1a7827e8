import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { ValidationError } from '../../platform/errors.js';
import { sandboxOnly } from '../../platform/http/sandbox.js';
import { parseInput } from '../../platform/http/validate.js';
import {
  createBurnBody, createMintBody, linkProviderAccountBody, listOperationsQuery, listProviderAccountsQuery, listStablecoinsQuery, operationIdParams,
  operationResource, providerAccountIdParams, providerAccountResource, registerStablecoinBody, stablecoinIdParams, stablecoinResource,
} from './issuance.schemas.js';
import { createBurn, createMint, getOperation, listOperations } from './operations.service.js';
import { getProviderAccount, linkProviderAccount, listProviderAccounts } from './provider-accounts.service.js';
import { simulateCredentialStatus, simulateFunding } from './sandbox.service.js';
import { getStablecoin, listStablecoins, registerStablecoin } from './stablecoins.service.js';

/** REF: `Idempotency-Key` is required on link, register, mint and burn (a 400 before anything runs). */
async function requireIdempotencyKey(req: FastifyRequest): Promise<void> {
  if (typeof req.headers['idempotency-key'] !== 'string' || req.headers['idempotency-key'].length === 0) {
    throw new ValidationError([{ field: 'Idempotency-Key', message: 'Required: this operation must carry an Idempotency-Key header (1 to 255 characters).' }], 'An Idempotency-Key header is required.');
  }
}

const page = <T, R>(p: { data: T[]; hasMore: boolean; nextCursor?: string; totalCount: number }, map: (t: T) => R) => ({ ...p, data: p.data.map(map) });

/** REF "Stablecoins": ten operations (issue 26), plus two sandbox simulations. Writes take MANAGE, as the enablement request does. */
export async function issuanceRoutes(app: FastifyInstance) {
  const replayOf = <T>(get: (req: FastifyRequest, id: string) => Promise<T>, toResource: (t: T) => unknown) => ({
    replay: async (req: FastifyRequest, id: string | undefined) => ({ status: 201, body: toResource(await get(req, id ?? '')) }),
  });
  const write = (replay: ReturnType<typeof replayOf>) => ({ preHandler: requireIdempotencyKey, config: { permission: 'MANAGE' as const, idempotent: replay } });

  app.post('/stablecoin-provider-accounts', write(replayOf((req, id) => getProviderAccount(req.ctx, id), providerAccountResource)), async (req, reply) => {
    const body = parseInput(linkProviderAccountBody, req.body ?? {});
    const link = await linkProviderAccount(req.ctx, body);
    reply.status(201);
    return providerAccountResource(link);
  });
  app.get('/stablecoin-provider-accounts', { config: { query: listProviderAccountsQuery } }, async (req) => page(await listProviderAccounts(req.ctx, parseInput(listProviderAccountsQuery, req.query)), providerAccountResource));
  app.get('/stablecoin-provider-accounts/:stablecoinProviderAccountId', async (req) => {
    const { stablecoinProviderAccountId } = parseInput(providerAccountIdParams, req.params);
    return providerAccountResource(await getProviderAccount(req.ctx, stablecoinProviderAccountId));
  });

  app.post('/stablecoins', write(replayOf((req, id) => getStablecoin(req.ctx, id), stablecoinResource)), async (req, reply) => {
    const body = parseInput(registerStablecoinBody, req.body ?? {});
    const token = await registerStablecoin(req.ctx, body);
    reply.status(201);
    return stablecoinResource(token);
  });
  app.get('/stablecoins', { config: { query: listStablecoinsQuery } }, async (req) => page(await listStablecoins(req.ctx, parseInput(listStablecoinsQuery, req.query)), stablecoinResource));
  app.get('/stablecoins/:stablecoinId', async (req) => {
    const { stablecoinId } = parseInput(stablecoinIdParams, req.params);
    return stablecoinResource(await getStablecoin(req.ctx, stablecoinId));
  });

  const operationReplay = replayOf((req, id) => getOperation(req.ctx, id), operationResource);
  app.post('/stablecoins/:stablecoinId/mints', write(operationReplay), async (req, reply) => {
    const { stablecoinId } = parseInput(stablecoinIdParams, req.params);
    const op = await createMint(req.ctx, stablecoinId, parseInput(createMintBody, req.body ?? {}));
    reply.status(201);
    return operationResource(op);
  });
  app.post('/stablecoins/:stablecoinId/burns', write(operationReplay), async (req, reply) => {
    const { stablecoinId } = parseInput(stablecoinIdParams, req.params);
    const op = await createBurn(req.ctx, stablecoinId, parseInput(createBurnBody, req.body ?? {}));
    reply.status(201);
    return operationResource(op);
  });
  app.get('/stablecoins/:stablecoinId/operations', { config: { query: listOperationsQuery } }, async (req) => {
    const { stablecoinId } = parseInput(stablecoinIdParams, req.params);
    return page(await listOperations(req.ctx, stablecoinId, parseInput(listOperationsQuery, req.query)), operationResource);
  });
  app.get('/stablecoin-operations/:stablecoinOperationId', async (req) => {
    const { stablecoinOperationId } = parseInput(operationIdParams, req.params);
    return operationResource(await getOperation(req.ctx, stablecoinOperationId));
  });

  // Sandbox (README "Sandbox: stablecoin issuance"): the issuer's funds arrive; the provider stops honouring credentials.
  app.post('/sandbox/stablecoin-operations/:stablecoinOperationId/fund', { preHandler: sandboxOnly }, async (req) => {
    const { stablecoinOperationId } = parseInput(operationIdParams, req.params);
    return operationResource(await simulateFunding(req.ctx, stablecoinOperationId));
  });
  const credentialBody = z.strictObject({ status: z.enum(['INVALID', 'REVOKED']) });
  app.post('/sandbox/stablecoin-provider-accounts/:stablecoinProviderAccountId/credentials', { preHandler: sandboxOnly }, async (req) => {
    const { stablecoinProviderAccountId } = parseInput(providerAccountIdParams, req.params);
    const { status } = parseInput(credentialBody, req.body ?? {});
    return providerAccountResource(await simulateCredentialStatus(req.ctx, stablecoinProviderAccountId, status));
  });
}
