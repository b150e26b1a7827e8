import type { FastifyInstance } from 'fastify';
import { parseInput } from '../../platform/http/validate.js';
import {
  confirmBody, credentialParams, customerQuery, enrollBody, loginCompleteBody, loginStartBody,
  resetCompleteBody, resetParams, resetStartBody,
} from './sca.schemas.js';
import { confirmFactorEnrollment, deleteFactor, listFactors, startFactorEnrollment } from './factors.service.js';
import { completeLogin, startLogin } from './login.service.js';
import { completeReset, getReset, startReset } from './reset.service.js';
import { securityEventRoutes } from './security-events.routes.js';

/**
 * SCA endpoints (decisions A15, B§6.5). Every /sca route takes query `customerId`; non-SCA customers get 409.
 * A payment's authorization (POST /quotes/{id}/authorize) is the payments domain's route; it verifies the code here.
 */
export async function scaRoutes(app: FastifyInstance) {
  app.get('/sca/factors', { config: { query: customerQuery } }, async (req) => {
    const { customerId } = parseInput(customerQuery, req.query);
    return { factors: await listFactors(req.ctx, customerId) };
  });

  app.post('/sca/factors', { config: { query: customerQuery } }, async (req) => {
    const { customerId } = parseInput(customerQuery, req.query);
    const { type } = parseInput(enrollBody, req.body ?? {});
    return startFactorEnrollment(req.ctx, customerId, type);
  });

  app.post('/sca/factors/confirm', { config: { query: customerQuery } }, async (req) => {
    const { customerId } = parseInput(customerQuery, req.query);
    return confirmFactorEnrollment(req.ctx, customerId, parseInput(confirmBody, req.body ?? {}));
  });

  app.delete('/sca/factors/:credentialId', { config: { query: customerQuery } }, async (req, reply) => {
    const { customerId } = parseInput(customerQuery, req.query);
    const { credentialId } = parseInput(credentialParams, req.params);
    await deleteFactor(req.ctx, customerId, credentialId);
    return reply.status(204).send();
  });

  app.post('/sca/login/start', { config: { query: customerQuery } }, async (req) => {
    const { customerId } = parseInput(customerQuery, req.query);
    const { factor } = parseInput(loginStartBody, req.body ?? {});
    return startLogin(req.ctx, customerId, factor);
  });

  app.post('/sca/login/complete', { config: { query: customerQuery } }, async (req) => {
    const { customerId } = parseInput(customerQuery, req.query);
    return completeLogin(req.ctx, customerId, parseInput(loginCompleteBody, req.body ?? {}));
  });

  app.post('/sca/factors/reset', { config: { query: customerQuery, idempotent: true } }, async (req, reply) => {
    const { customerId } = parseInput(customerQuery, req.query);
    const body = parseInput(resetStartBody, req.body ?? {});
    reply.status(201);
    return startReset(req.ctx, customerId, body);
  });

  app.get('/sca/factors/reset/:resetId', { config: { query: customerQuery } }, async (req) => {
    const { customerId } = parseInput(customerQuery, req.query);
    const { resetId } = parseInput(resetParams, req.params);
    return getReset(req.ctx, customerId, resetId);
  });

  app.post('/sca/factors/reset/:resetId/complete', { config: { query: customerQuery } }, async (req, reply) => {
    const { customerId } = parseInput(customerQuery, req.query);
    const { resetId } = parseInput(resetParams, req.params);
    await completeReset(req.ctx, customerId, resetId, parseInput(resetCompleteBody, req.body ?? {}));
    return reply.status(204).send();
  });

  await securityEventRoutes(app);
}
