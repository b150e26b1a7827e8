import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { parseInput } from '../../platform/http/validate.js';
import { paginationQuery } from '../../platform/http/pagination.js';
import { sandboxOnly } from '../../platform/http/sandbox.js';
import { isKnownCurrency } from '../../platform/currencies.js';
import { internalAccountResource } from './internal-accounts.resource.js';
import { customerFilterFor } from '../../platform/agent-scope.js';
import { fundSandboxAccount, getInternalAccount, listCustomerInternalAccounts, listPlatformInternalAccounts } from './internal-accounts.service.js';

const currency = z.string().refine(isKnownCurrency, { message: 'Unknown currency.' });
const type = z.enum(['INTERNAL_FIAT', 'INTERNAL_CRYPTO', 'EMBEDDED_WALLET']);
/** Decision §6.3: at most 100 000 000 000 minor units per sandbox funding. */
const MAX_SANDBOX_FUNDING = 100_000_000_000;

export const customerAccountsQuery = z.object({ ...paginationQuery, customerId: z.string().max(200).optional(), currency: currency.optional(), type: type.optional() });
const platformAccountsQuery = z.object({ currency: currency.optional(), type: type.optional() });

export async function internalAccountRoutes(app: FastifyInstance) {
  app.get('/customers/internal-accounts', { config: { agent: 'VIEW_ACCOUNTS', query: customerAccountsQuery } }, async (req) => {
    const q = parseInput(customerAccountsQuery, req.query);
    // An agent (A17) lists only its customer's accounts.
    const page = await listCustomerInternalAccounts(req.ctx, { ...q, customerId: customerFilterFor(req.ctx, q.customerId) });
    return { ...page, data: page.data.map(internalAccountResource) };
  });

  app.get('/platform/internal-accounts', { config: { query: platformAccountsQuery } }, async (req) => {
    const q = parseInput(platformAccountsQuery, req.query);
    return { data: (await listPlatformInternalAccounts(req.ctx, q)).map(internalAccountResource) };
  });

  app.get('/internal-accounts/:accountId', { config: { agent: 'VIEW_ACCOUNTS' } }, async (req) => {
    const { accountId } = parseInput(z.object({ accountId: z.string().max(200) }), req.params);
    return internalAccountResource(await getInternalAccount(req.ctx, accountId));
  });

  const accountParams = z.object({ accountId: z.string().max(200) });
  const replayAccount = async (req: FastifyRequest) => ({ status: 200, body: internalAccountResource(await getInternalAccount(req.ctx, parseInput(accountParams, req.params).accountId)) });
  app.post('/sandbox/internal-accounts/:accountId/fund', { preHandler: sandboxOnly, config: { idempotent: { replay: replayAccount, claimedByEffect: true } } }, async (req) => {
    const { accountId } = parseInput(accountParams, req.params);
    const body = parseInput(z.object({ amount: z.number().int().min(1).max(MAX_SANDBOX_FUNDING) }), req.body ?? {});
    return internalAccountResource(await fundSandboxAccount(req.ctx, accountId, BigInt(body.amount)));
  });
}
