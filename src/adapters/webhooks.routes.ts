import type { FastifyInstance } from 'fastify';
import type { AppDeps } from '../deps.js';
import type { DomainModule } from '../platform/module.js';
import { NotFoundError } from '../platform/errors.js';

/** Provider pushes are small; the body limit of the API applies too. */
const ADAPTER_ID = /^[A-Za-z0-9._-]{1,100}$/;

/**
 * `POST <base>/adapters/{adapterId}/webhooks`: a provider's push to the adapter with that id, outside
 * platform auth. The adapter checks its provider's signature over the raw bytes (so the body is not
 * parsed here) and reports outcomes through its context; the service answers what the adapter says.
 */
async function adapterWebhookRoutes(app: FastifyInstance, deps: AppDeps): Promise<void> {
  await app.register(async (scope) => {
    // Raw bytes for every content type: signatures are over the body exactly as sent.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));
    scope.post<{ Params: { adapterId: string } }>('/adapters/:adapterId/webhooks', async (req, reply) => {
      const { adapterId } = req.params;
      const handler = ADAPTER_ID.test(adapterId) ? deps.adapters.webhookHandler(adapterId) : undefined;
      if (!handler) throw new NotFoundError('NOT_FOUND', 'No adapter with this id takes webhooks.');
      const headers: Record<string, string | undefined> = {};
      for (const [k, v] of Object.entries(req.headers)) headers[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
      const rawBody = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
      const answer = await handler({ headers, rawBody });
      reply.status(answer.status);
      return answer.body ?? {};
    });
  });
}

export const adapterWebhooksModule: DomainModule = {
  name: 'adapter-webhooks',
  publicRoutes: (app, deps) => adapterWebhookRoutes(app, deps),
};
