import type { FastifyInstance } from 'fastify';
import type { AppDeps } from './deps.js';
import type { DomainModule } from './platform/module.js';
import { ForbiddenError, NotFoundError } from './platform/errors.js';
import { parseInput } from './platform/http/validate.js';
import { sandboxLivenessPage } from './adapters/liveness/sandbox/index.js';
import { getLivenessSession, livenessOutcomeBody, livenessParams, receiveLivenessOutcome } from './domains/external-accounts/index.js';
import { getResetLivenessSession, receiveResetLivenessOutcome } from './domains/sca/index.js';

/**
 * The sandbox liveness page and its callback: no platform auth, the single-use token is the proof. The
 * sandbox provider's page serves every liveness session — wallet ownership (src/domains/external-accounts)
 * and SCA factor resets (src/domains/sca) — so it lives in the wiring, above both (src/adapter-sinks.ts
 * routes the providers' pushed outcomes the same way).
 */
async function sandboxLivenessRoutes(app: FastifyInstance, deps: AppDeps) {
  const sandboxOnly = async () => {
    if (deps.config.SVC_ENV !== 'sandbox') throw new ForbiddenError('FORBIDDEN', 'Sandbox operations are not available in production.');
  };

  app.get('/sandbox/liveness/:token', { preHandler: sandboxOnly }, async (req, reply) => {
    const { token } = parseInput(livenessParams, req.params);
    const session = await getLivenessSession(deps, token).catch(async (err) => {
      if (!(err instanceof NotFoundError)) throw err;
      const reset = await getResetLivenessSession(deps, token);
      if (!reset) throw err;
      return reset;
    });
    return reply.type('text/html; charset=utf-8').header('cache-control', 'no-store').send(sandboxLivenessPage(token, session.expiresAt));
  });

  app.post('/sandbox/liveness/:token', { preHandler: sandboxOnly }, async (req, reply) => {
    const { token } = parseInput(livenessParams, req.params);
    const { outcome } = parseInput(livenessOutcomeBody, req.body ?? {});
    await receiveLivenessOutcome(deps, token, outcome).catch(async (err) => {
      if (!(err instanceof NotFoundError) || (await receiveResetLivenessOutcome(deps, token, outcome)) !== 'ACCEPTED') throw err;
    });
    reply.status(202);
    return { outcome, status: 'RECEIVED' };
  });
}

export const sandboxLivenessModule: DomainModule = {
  name: 'sandbox-liveness',
  publicRoutes: (app, deps) => sandboxLivenessRoutes(app, deps),
};
