import type { FastifyInstance } from 'fastify';
import { parseInput } from '../../platform/http/validate.js';
import { eventIdParams, eventResource, listEventsQuery } from './webhooks.schemas.js';
import { getEvent, listEvents, redeliverEvent, sendTestEvent } from './webhooks.service.js';
import { sandboxOnly } from '../../platform/http/sandbox.js';

export async function webhookRoutes(app: FastifyInstance) {
  app.get('/webhook-events', { config: { query: listEventsQuery } }, async (req) => {
    const page = await listEvents(req.ctx, parseInput(listEventsQuery, req.query));
    return { ...page, data: page.data.map(eventResource) };
  });

  app.get('/webhook-events/:eventId', async (req) => {
    const { eventId } = parseInput(eventIdParams, req.params);
    return eventResource(await getEvent(req.ctx, eventId));
  });

  app.post('/webhook-events/:eventId/redeliver', async (req, reply) => {
    const { eventId } = parseInput(eventIdParams, req.params);
    reply.status(202);
    return eventResource(await redeliverEvent(req.ctx, eventId));
  });

  app.post('/sandbox/webhooks/test', { preHandler: sandboxOnly }, async (req) => sendTestEvent(req.ctx));
}
