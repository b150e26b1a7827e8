import type { FastifyInstance } from 'fastify';
import type { AppDeps } from '../../deps.js';
import { parseInput } from '../../platform/http/validate.js';
import { getConfig, patchConfig } from './config.service.js';
import { patchConfigBody } from './config.schemas.js';
import { configResource } from './config.resource.js';

export async function configRoutes(app: FastifyInstance, deps: AppDeps) {
  app.get('/config', async (req) => configResource(await getConfig(req.ctx), deps.signer.publicKeyPem, deps.config));

  app.patch('/config', { config: { permission: 'MANAGE' } }, async (req) => {
    const body = parseInput(patchConfigBody, req.body ?? {});
    return configResource(await patchConfig(req.ctx, body), deps.signer.publicKeyPem, deps.config);
  });
}
