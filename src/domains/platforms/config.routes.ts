import type { FastifyInstance } from 'fastify';
import type { AppDeps } from '../../deps.js';
import { parseInput } from '../../platform/http/validate.js';
import { getConfig, patchConfig, type PlatformConfigView } from './config.service.js';
import { patchConfigBody } from './config.schemas.js';
import { configResource } from './config.resource.js';

export async function configRoutes(app: FastifyInstance, deps: AppDeps) {
  // Issue 12: the answer is rendered once per settings snapshot (the per-process copy getConfig keeps and
  // drops on every change), so a warm GET /config costs no database read and no JSON building.
  const rendered = new WeakMap<PlatformConfigView, string>();
  app.get('/config', async (req, reply) => {
    const view = await getConfig(req.ctx);
    let body = rendered.get(view);
    if (body === undefined) rendered.set(view, (body = JSON.stringify(configResource(view, deps.signer.publicKeyPem, deps.config))));
    return reply.type('application/json; charset=utf-8').send(body);
  });

  app.patch('/config', { config: { permission: 'MANAGE' } }, async (req) => {
    const body = parseInput(patchConfigBody, req.body ?? {});
    return configResource(await patchConfig(req.ctx, body), deps.signer.publicKeyPem, deps.config);
  });
}
