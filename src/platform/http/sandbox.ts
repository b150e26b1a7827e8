import type { FastifyRequest } from 'fastify';
import { ForbiddenError } from '../errors.js';

/** Decision A2: `/sandbox/*` exists only in sandbox; production answers 403 FORBIDDEN. */
export async function sandboxOnly(req: FastifyRequest): Promise<void> {
  if (req.ctx.config.SVC_ENV !== 'sandbox') throw new ForbiddenError('FORBIDDEN', 'Sandbox operations are not available in production.');
}
