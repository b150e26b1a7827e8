import type { FastifyInstance } from 'fastify';
import { parseInput } from '../../platform/http/validate.js';
import { claimInvitationBody, createInvitationBody, invitationCodeParams, invitationResource } from './invitations.schemas.js';
import { cancelInvitation, claimInvitation, createInvitation, getInvitation } from './invitations.service.js';

export async function invitationRoutes(app: FastifyInstance) {
  app.post('/invitations', { config: { idempotent: true } }, async (req, reply) => {
    const inv = await createInvitation(req.ctx, parseInput(createInvitationBody, req.body ?? {}));
    reply.status(201);
    return invitationResource(inv, req.ctx.clock.now(), req.ctx.config.PUBLIC_BASE_URL);
  });

  app.get('/invitations/:invitationCode', async (req) => {
    const { invitationCode } = parseInput(invitationCodeParams, req.params);
    return invitationResource(await getInvitation(req.ctx, invitationCode), req.ctx.clock.now(), req.ctx.config.PUBLIC_BASE_URL);
  });

  app.post('/invitations/:invitationCode/claim', async (req) => {
    const { invitationCode } = parseInput(invitationCodeParams, req.params);
    const { inviteeUma } = parseInput(claimInvitationBody, req.body ?? {});
    return invitationResource(await claimInvitation(req.ctx, invitationCode, inviteeUma), req.ctx.clock.now(), req.ctx.config.PUBLIC_BASE_URL);
  });

  app.post('/invitations/:invitationCode/cancel', async (req) => {
    const { invitationCode } = parseInput(invitationCodeParams, req.params);
    return invitationResource(await cancelInvitation(req.ctx, invitationCode), req.ctx.clock.now(), req.ctx.config.PUBLIC_BASE_URL);
  });
}
