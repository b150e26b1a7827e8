import type { FastifyInstance, FastifyRequest } from 'fastify';
import { parseInput } from '../../platform/http/validate.js';
import { signatureHeadersOf } from '../signing/index.js';
import { cardIdParams, cardResource, createCardBody, listCardsQuery, patchCardBody } from './cards.schemas.js';
import { createCard, getCard, listCards, patchCard } from './cards.service.js';
import { requireIssuer } from './card-issuing.service.js';

export async function cardRoutes(app: FastifyInstance) {
  // REF: every /cards path answers 501 NOT_IMPLEMENTED where no card issuer is configured.
  const preHandler = async (req: FastifyRequest) => void requireIssuer(req.ctx);
  const replay = async (req: FastifyRequest, id: string | undefined) => ({ status: 201, body: cardResource(await getCard(req.ctx, id ?? '')) });
  app.post('/cards', { preHandler, config: { idempotent: { replay } } }, async (req, reply) => {
    const body = parseInput(createCardBody, req.body ?? {});
    reply.status(201);
    return cardResource(await createCard(req.ctx, body));
  });

  app.get('/cards', { preHandler, config: { query: listCardsQuery } }, async (req) => {
    const page = await listCards(req.ctx, parseInput(listCardsQuery, req.query));
    return { ...page, data: page.data.map(cardResource) };
  });

  app.get('/cards/:cardId', { preHandler }, async (req) => {
    const { cardId } = parseInput(cardIdParams, req.params);
    return cardResource(await getCard(req.ctx, cardId));
  });

  app.patch('/cards/:cardId', { preHandler }, async (req, reply) => {
    const { cardId } = parseInput(cardIdParams, req.params);
    const body = parseInput(patchCardBody, req.body ?? {});
    const outcome = await patchCard(req.ctx, cardId, body, req.body ?? {}, signatureHeadersOf(req.headers));
    if (outcome.kind === 'CHALLENGE') {
      reply.status(202);
      return outcome.challenge;
    }
    return cardResource(outcome.card);
  });
}
