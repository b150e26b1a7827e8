import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { AppDeps } from '../../deps.js';
import { paginationQuery } from '../../platform/http/pagination.js';
import { parseInput } from '../../platform/http/validate.js';
import { oneOf } from '../customers/index.js';
import { VERIFICATION_STATUSES } from './verification.model.js';
import { enqueueDecision } from './verification.jobs.js';
import { getVerification, listVerifications, submitVerification, verificationResource } from './verification.service.js';

const submitBody = z.strictObject({ customerId: z.string().min(1).max(200) });
/** REF's VerificationStatus values are all accepted as filters (issue 25), READY_FOR_VERIFICATION included. */
const FILTERABLE_STATUSES = [...new Set([...VERIFICATION_STATUSES, 'READY_FOR_VERIFICATION'])] as [string, ...string[]];
const listQuery = z.strictObject({ ...paginationQuery, customerId: z.string().min(1).max(200).optional(), verificationStatus: oneOf(FILTERABLE_STATUSES).optional() });
const idParams = z.object({ verificationId: z.string().min(1).max(200) });

export async function verificationRoutes(app: FastifyInstance, deps: AppDeps) {
  // Decisions B§5.8: 200, not 201 (a submission, answered with the case's state).
  app.post('/verifications', async (req) => {
    const { customerId } = parseInput(submitBody, req.body ?? {});
    const v = await submitVerification(req.ctx, customerId, (created) => enqueueDecision(deps, req.ctx.platformId, created));
    return verificationResource(v);
  });

  app.get('/verifications', { config: { query: listQuery } }, async (req) => {
    const page = await listVerifications(req.ctx, parseInput(listQuery, req.query));
    return { ...page, data: page.data.map(verificationResource) };
  });

  app.get('/verifications/:verificationId', async (req) => {
    const { verificationId } = parseInput(idParams, req.params);
    return verificationResource(await getVerification(req.ctx, verificationId));
  });
}
