import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { AppDeps } from '../../deps.js';
import { DomainError } from '../../platform/errors.js';
import { parseInput } from '../../platform/http/validate.js';
import { sandboxLinkPage, sandboxPublicToken, SANDBOX_ACCOUNTS } from '../../adapters/bank-link/sandbox/index.js';
import { externalAccountResource } from '../external-accounts/index.js';
import { callbackUrlOf, createLinkToken, pendingSandboxLink, submitPublicToken } from './plaid.service.js';

const linkTokenBody = z.strictObject({ customerId: z.string().min(1).max(200) });
const callbackParams = z.object({ plaid_link_token: z.string().min(1).max(500) });
const callbackBody = z.strictObject({ publicToken: z.string().min(1).max(500), accountId: z.string().min(1).max(200).optional() });

/** REF's `plaid.createLinkToken` and `plaid.submitPublicToken` (issue 13). */
export async function plaidRoutes(app: FastifyInstance) {
  app.post('/plaid/link-tokens', { config: { idempotent: true } }, async (req, reply) => {
    const { customerId } = parseInput(linkTokenBody, req.body ?? {});
    const { link, linkUrl, requestId } = await createLinkToken(req.ctx, customerId);
    reply.status(201);
    return {
      linkToken: link.linkToken,
      expiration: link.expiresAt.toISOString(),
      callbackUrl: callbackUrlOf(req.ctx, link.linkToken),
      ...(requestId ? { requestId } : {}),
      ...(linkUrl ? { linkUrl } : {}),
    };
  });

  app.post('/plaid/callback/:plaid_link_token', { config: { idempotent: true } }, async (req) => {
    const { plaid_link_token: linkToken } = parseInput(callbackParams, req.params);
    return externalAccountResource(await submitPublicToken(req.ctx, linkToken, parseInput(callbackBody, req.body ?? {})));
  });
}

const pageParams = z.object({ linkToken: z.string().min(1).max(200) });
const pageBody = z.object({ accountId: z.enum(SANDBOX_ACCOUNTS.map((a) => a.id) as [string, ...string[]]) });

/**
 * The sandbox provider's link page (no platform auth: the link token is the proof). GET shows the
 * accounts of Sandbox Bank; POST (form or JSON `{accountId}`) shows, or answers as JSON, the public
 * token to submit to the callback URL. Unknown, used or expired links are 404.
 */
export async function plaidSandboxPages(app: FastifyInstance, deps: AppDeps) {
  const load = async (token: string) => {
    if (deps.config.SVC_ENV !== 'sandbox') throw new DomainError(404, 'NOT_FOUND', 'Not found.');
    const link = await pendingSandboxLink(deps, token);
    if (!link) throw new DomainError(404, 'NOT_FOUND', 'This link is unknown, used or expired.');
    return link;
  };
  app.get('/sandbox/plaid/link/:linkToken', async (req, reply) => {
    const { linkToken } = parseInput(pageParams, req.params);
    await load(linkToken);
    return reply.type('text/html; charset=utf-8').send(sandboxLinkPage(linkToken));
  });
  await app.register(async (scope) => {
    scope.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: 1024 }, (_req, body, done) => done(null, Object.fromEntries(new URLSearchParams(String(body)))));
    scope.post('/sandbox/plaid/link/:linkToken', async (req, reply) => {
      const { linkToken } = parseInput(pageParams, req.params);
      await load(linkToken);
      const { accountId } = parseInput(pageBody, req.body ?? {});
      const publicToken = sandboxPublicToken(linkToken, accountId);
      if (req.headers['content-type']?.startsWith('application/json')) return { publicToken, accountId };
      return reply.type('text/html; charset=utf-8').send(sandboxLinkPage(linkToken, { accountId, publicToken }));
    });
  });
}
