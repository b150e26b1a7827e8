import type { FastifyInstance } from 'fastify';
import { parseInput } from '../../platform/http/validate.js';
import { createQuoteBody, quoteIdParams } from './quotes.schemas.js';
import { createQuote, executeQuote, getQuote } from './quotes.service.js';
import { quoteResource } from './quotes.resource.js';

export async function quoteRoutes(app: FastifyInstance) {
  app.post('/quotes', { config: { idempotent: true } }, async (req, reply) => {
    const body = parseInput(createQuoteBody, req.body ?? {});
    reply.status(201);
    return quoteResource(await createQuote(req.ctx, body));
  });

  app.get('/quotes/:quoteId', async (req) => {
    const { quoteId } = parseInput(quoteIdParams, req.params);
    return quoteResource(await getQuote(req.ctx, quoteId));
  });

  app.post('/quotes/:quoteId/execute', { config: { idempotent: true } }, async (req) => {
    const { quoteId } = parseInput(quoteIdParams, req.params);
    return quoteResource(await executeQuote(req.ctx, quoteId));
  });
}
