import type { FastifyInstance } from 'fastify';
import { parseInput } from '../../platform/http/validate.js';
import { quoteIdParams } from './quotes.schemas.js';
import { executeQuote, getQuote } from './quotes.service.js';
import { createQuoteFromRequest } from './quotes.inline-destination.js';
import { quoteResource } from './quotes.resource.js';
import { quoteScaChallenge } from '../sca/index.js';

export async function quoteRoutes(app: FastifyInstance) {
  app.post('/quotes', { config: { idempotent: true, agent: 'CREATE_QUOTE' } }, async (req, reply) => {
    // REF's inline EXTERNAL_ACCOUNT_DETAILS destination too (quotes.inline-destination.ts).
    const quote = await createQuoteFromRequest(req.ctx, req.body);
    reply.status(201);
    return quoteResource(quote, await quoteScaChallenge(req.ctx, quote));
  });

  app.get('/quotes/:quoteId', { config: { agent: 'CREATE_QUOTE' } }, async (req) => {
    const { quoteId } = parseInput(quoteIdParams, req.params);
    const quote = await getQuote(req.ctx, quoteId);
    return quoteResource(quote, await quoteScaChallenge(req.ctx, quote));
  });

  app.post('/quotes/:quoteId/execute', { config: { idempotent: true, agent: 'EXECUTE_QUOTE' } }, async (req) => {
    const { quoteId } = parseInput(quoteIdParams, req.params);
    const quote = await executeQuote(req.ctx, quoteId);
    return quoteResource(quote, await quoteScaChallenge(req.ctx, quote));
  });
}
