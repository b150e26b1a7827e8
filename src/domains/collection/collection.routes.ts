import type { FastifyInstance } from 'fastify';
import { sandboxOnly } from '../../platform/http/sandbox.js';
import { parseInput } from '../../platform/http/validate.js';
import { getInternalAccount } from '../ledger/index.js';
import { accountParams, collectionCreditResource, coordinatesResource, listCreditsQuery, simulateCreditBody } from './collection.schemas.js';
import { listCollectionCredits, simulateCredit } from './collection.service.js';
import { listAccountCoordinates } from './coordinates.service.js';

/** Pay-in coordinates (issue 26 item 1): their provisioning per rail, the credits taken on them, and the sandbox credit. */
export async function collectionRoutes(app: FastifyInstance) {
  app.get('/internal-accounts/:accountId/coordinates', async (req) => {
    const { accountId } = parseInput(accountParams, req.params);
    const account = await getInternalAccount(req.ctx, accountId);
    return { data: (await listAccountCoordinates(req.ctx, account.id)).map(coordinatesResource) };
  });
  app.get('/collection-credits', { config: { query: listCreditsQuery } }, async (req) => {
    const page = await listCollectionCredits(req.ctx, parseInput(listCreditsQuery, req.query));
    return { ...page, data: page.data.map(collectionCreditResource) };
  });
  app.post('/sandbox/internal-accounts/:accountId/credits', { preHandler: sandboxOnly }, async (req) => {
    const { accountId } = parseInput(accountParams, req.params);
    return collectionCreditResource(await simulateCredit(req.ctx, accountId, parseInput(simulateCreditBody, req.body ?? {})));
  });
}
