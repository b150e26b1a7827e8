import type { FastifyInstance, FastifyRequest } from 'fastify';
import { signatureHeadersOf } from '../signing/index.js'; // hook:28
import { parseInput } from '../../platform/http/validate.js';
import { quoteIdParams } from './quotes.schemas.js';
import { authorizeQuote, executeQuote, getQuote } from './quotes.service.js';
import { createQuoteFromRequest } from './quotes.inline-destination.js';
import { quoteResource } from './quotes.resource.js';
import { assertScaFactorServed, executeQuoteBody } from './quotes.sca-factor.js';
import { authorizeBody, quoteScaChallenge, resendQuoteChallenge } from '../sca/index.js';

/** Rebuilds a create or execute response whose effect committed but whose answer was lost (a crash). */
const replayQuote = (status: number) => ({
  // The quote's statement writes the Idempotency-Key record: a key costs nothing more (issue 24).
  claimedByEffect: true,
  replay: async (req: FastifyRequest, id: string | undefined) => {
    const quote = await getQuote(req.ctx, id ?? (req.params as { quoteId?: string }).quoteId ?? '');
    return { status, body: quoteResource(quote, await quoteScaChallenge(req.ctx, quote)) };
  },
});

export async function quoteRoutes(app: FastifyInstance) {
  app.post('/quotes', { config: { idempotent: replayQuote(201), agent: 'CREATE_QUOTE' } }, async (req, reply) => {
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

  app.post('/quotes/:quoteId/execute', { config: { idempotent: replayQuote(200), agent: 'EXECUTE_QUOTE' } }, async (req) => {
    const { quoteId } = parseInput(quoteIdParams, req.params);
    assertScaFactorServed(parseInput(executeQuoteBody, req.body ?? {}).scaFactor);
    const quote = await executeQuote(req.ctx, quoteId, signatureHeadersOf(req.headers)); // hook:28
    return quoteResource(quote, await quoteScaChallenge(req.ctx, quote));
  });

  // SCA (decisions A15, B§4.4): src/domains/sca verifies the code; the payment begins here.
  app.post('/quotes/:quoteId/authorize', async (req) => {
    const { quoteId } = parseInput(quoteIdParams, req.params);
    const { code } = parseInput(authorizeBody, req.body ?? {});
    const quote = await authorizeQuote(req.ctx, quoteId, code!);
    return quoteResource(quote, await quoteScaChallenge(req.ctx, quote));
  });

  app.post('/quotes/:quoteId/authorize/resend', async (req, reply) => {
    const { quoteId } = parseInput(quoteIdParams, req.params);
    await resendQuoteChallenge(req.ctx, await getQuote(req.ctx, quoteId));
    return reply.status(204).send();
  });
}
