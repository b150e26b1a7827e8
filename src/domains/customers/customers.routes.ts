import type { FastifyInstance, FastifyRequest } from 'fastify';
import { parseInput } from '../../platform/http/validate.js';
import { confirmCodeBody, customerIdParams, kycLinkBody, listCustomersQuery } from './customers.schemas.js';
import { customerResource, ownerResource } from './customers.resource.js';
import { createCustomer, deleteCustomer, getCustomer, listCustomers, patchCustomer } from './customers.service.js';
import { confirmContactCode, sendContactCode } from './contact.service.js';
import { createKycLink } from './kyc-link.service.js';
import { currentEndUserTerms } from './end-user-terms.js';
import { createOwner, getOwner, listOwners, listOwnersQuery, ownerIdParams, patchOwner } from './beneficial-owners.js';
import type { ContactChannel } from './customers.model.js';

export async function customerRoutes(app: FastifyInstance) {
  const replayCustomer = async (req: FastifyRequest, id: string | undefined) => ({ status: 201, body: customerResource(await getCustomer(req.ctx, id ?? '')) });
  app.post('/customers', { config: { idempotent: { replay: replayCustomer } } }, async (req, reply) => {
    reply.status(201);
    return customerResource(await createCustomer(req.ctx, req.body));
  });

  // REF's getEndUserTerms (issue 25): the operator's current terms, from configuration.
  app.get('/customers/end-user-terms', async (req) => currentEndUserTerms(req.ctx.config));

  app.get('/customers', { config: { query: listCustomersQuery } }, async (req) => {
    const page = await listCustomers(req.ctx, parseInput(listCustomersQuery, req.query));
    return { ...page, data: page.data.map(customerResource) };
  });

  app.get('/customers/:customerId', async (req) => {
    const { customerId } = parseInput(customerIdParams, req.params);
    return customerResource(await getCustomer(req.ctx, customerId));
  });

  app.patch('/customers/:customerId', async (req, reply) => {
    const { customerId } = parseInput(customerIdParams, req.params);
    const r = await patchCustomer(req.ctx, customerId, req.body, req.headers);
    // Issue 28: a contact tied to embedded-wallet OTP credentials changes on the signed retry (REF's 202).
    if ('kind' in r) return reply.status(202).send(r.challenge);
    return customerResource(r);
  });

  app.delete('/customers/:customerId', async (req) => {
    const { customerId } = parseInput(customerIdParams, req.params);
    return customerResource(await deleteCustomer(req.ctx, customerId));
  });

  app.post('/customers/:customerId/kyc-link', { config: { idempotent: true } }, async (req, reply) => {
    const { customerId } = parseInput(customerIdParams, req.params);
    const body = parseInput(kycLinkBody, req.body ?? {});
    const link = await createKycLink(req.ctx, customerId, body.redirectUri ?? undefined);
    reply.status(201);
    return { ...link, expiresAt: link.expiresAt.toISOString() };
  });

  for (const channel of ['email', 'phone'] as ContactChannel[]) {
    app.post(`/customers/:customerId/verify-${channel}`, async (req, reply) => {
      const { customerId } = parseInput(customerIdParams, req.params);
      await sendContactCode(req.ctx, customerId, channel);
      return reply.status(204).send();
    });
    app.post(`/customers/:customerId/verify-${channel}/confirm`, async (req) => {
      const { customerId } = parseInput(customerIdParams, req.params);
      const { code } = parseInput(confirmCodeBody, req.body ?? {});
      return customerResource(await confirmContactCode(req.ctx, customerId, channel, code));
    });
  }

  app.post('/beneficial-owners', { config: { idempotent: true } }, async (req, reply) => {
    reply.status(201);
    return ownerResource(await createOwner(req.ctx, req.body));
  });

  app.get('/beneficial-owners', { config: { query: listOwnersQuery } }, async (req) => {
    const page = await listOwners(req.ctx, parseInput(listOwnersQuery, req.query));
    return { ...page, data: page.data.map(ownerResource) };
  });

  app.get('/beneficial-owners/:id', async (req) => {
    const { id } = parseInput(ownerIdParams, req.params);
    return ownerResource(await getOwner(req.ctx, id));
  });

  app.patch('/beneficial-owners/:id', async (req) => {
    const { id } = parseInput(ownerIdParams, req.params);
    return ownerResource(await patchOwner(req.ctx, id, req.body));
  });
}
