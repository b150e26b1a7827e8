import type { FastifyInstance } from 'fastify';
import { getStablecoinEnablement, requestStablecoinEnablement, stablecoinEnablementResource } from './stablecoin.service.js';

/** Decision A16. Requesting is a platform-level setting, so it takes MANAGE like PATCH /config. */
export async function stablecoinRoutes(app: FastifyInstance) {
  app.get('/stablecoin-enablement', async (req) => stablecoinEnablementResource(await getStablecoinEnablement(req.ctx)));

  app.post('/stablecoin-enablement', { config: { permission: 'MANAGE' } }, async (req) => stablecoinEnablementResource(await requestStablecoinEnablement(req.ctx)));
}
