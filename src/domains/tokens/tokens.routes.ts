import type { FastifyInstance } from 'fastify';
import { parseInput } from '../../platform/http/validate.js';
import { createTokenBody, listTokensQuery, tokenIdParams, tokenResource } from './tokens.schemas.js';
import { createToken, deleteToken, getToken, listTokens } from './tokens.service.js';

/** API tokens (issue 13, REF `/tokens`). Managing tokens needs MANAGE; `/tokens/current` any credential. */
export async function tokenRoutes(app: FastifyInstance) {
  app.post('/tokens', { config: { permission: 'MANAGE' } }, async (req, reply) => {
    const body = parseInput(createTokenBody, req.body ?? {});
    const { token, clientSecret } = await createToken(req.ctx, body);
    reply.status(201).header('cache-control', 'no-store');
    return tokenResource(token, clientSecret);
  });

  app.get('/tokens', { config: { permission: 'MANAGE', query: listTokensQuery } }, async (req) => {
    const page = await listTokens(req.ctx, parseInput(listTokensQuery, req.query));
    return { ...page, data: page.data.map((t) => tokenResource(t)) };
  });

  // The calling credential itself: how a client (the dashboard) learns its own name and permissions.
  app.get('/tokens/current', { config: { permission: 'ANY' } }, async (req) => tokenResource(await getToken(req.ctx, req.principal.credentialId)));

  app.get('/tokens/:tokenId', { config: { permission: 'MANAGE' } }, async (req) => {
    const { tokenId } = parseInput(tokenIdParams, req.params);
    return tokenResource(await getToken(req.ctx, tokenId));
  });

  app.delete('/tokens/:tokenId', { config: { permission: 'MANAGE' } }, async (req, reply) => {
    const { tokenId } = parseInput(tokenIdParams, req.params);
    await deleteToken(req.ctx, tokenId);
    return reply.status(204).send();
  });
}
