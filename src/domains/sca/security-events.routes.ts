import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { parseInput } from '../../platform/http/validate.js';
import { customerQuery } from './sca.schemas.js';
import { recordSecurityEvent, SECURITY_EVENT_TYPES } from './security-events.service.js';

const recordEventBody = z.strictObject({ eventType: z.enum(SECURITY_EVENT_TYPES) });

/** POST /sca/record-event?customerId= (REF recordSecurityEvent). */
export async function securityEventRoutes(app: FastifyInstance) {
  app.post('/sca/record-event', { config: { query: customerQuery } }, async (req) => {
    const { customerId } = parseInput(customerQuery, req.query);
    const { eventType } = parseInput(recordEventBody, req.body ?? {});
    return recordSecurityEvent(req.ctx, customerId, eventType);
  });
}
