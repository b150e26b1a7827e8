import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { parseInput } from '../../platform/http/validate.js';
import { deleteSigningCredential, listSigningCredentials, registerSigningCredential, signingCredentialResource } from './signing.service.js';

const customerParams = z.object({ customerId: z.string().min(1).max(200) });
const credentialParams = customerParams.extend({ credentialId: z.string().min(1).max(200) });
const registerBody = z.strictObject({ publicKey: z.string().min(1).max(200) });

/** Decision A14: the P-256 keys a customer signs sensitive changes (card PATCH) with. */
export async function signingRoutes(app: FastifyInstance) {
  app.post('/customers/:customerId/signing-credentials', { config: { idempotent: true } }, async (req, reply) => {
    const { customerId } = parseInput(customerParams, req.params);
    const { publicKey } = parseInput(registerBody, req.body ?? {});
    reply.status(201);
    return signingCredentialResource(await registerSigningCredential(req.ctx, customerId, publicKey));
  });

  app.get('/customers/:customerId/signing-credentials', async (req) => {
    const { customerId } = parseInput(customerParams, req.params);
    return { data: (await listSigningCredentials(req.ctx, customerId)).map(signingCredentialResource) };
  });

  app.delete('/customers/:customerId/signing-credentials/:credentialId', async (req, reply) => {
    const { customerId, credentialId } = parseInput(credentialParams, req.params);
    await deleteSigningCredential(req.ctx, customerId, credentialId);
    return reply.status(204).send();
  });
}
