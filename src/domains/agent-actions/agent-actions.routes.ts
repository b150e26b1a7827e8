import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Ctx } from '../../deps.js';
import { NotFoundError } from '../../platform/errors.js';
import { parseInput } from '../../platform/http/validate.js';
import { agentResource, getAgent } from '../agents/index.js';
import { createQuoteFromRequest, getQuote, getTransaction, listTransactions, listTransactionsQuery, quoteResource, transactionResource } from '../payments/index.js';
import { createExternalAccount, deleteExternalAccount, externalAccountResource, getExternalAccount, listCustomerAccountsQuery, listCustomerExternalAccounts } from '../external-accounts/index.js';
import { customerAccountsQuery, internalAccountResource, listCustomerInternalAccounts } from '../ledger/index.js';
import { transferOutBody } from '../ref-compat/index.js';
import { signatureHeadersOf } from '../signing/index.js';
import { actionParams, agentActionParams, agentTransferInBody, approvalsQuery, externalAccountParams, ownActionsQuery, quoteParams, rejectBody, transactionParams } from './agent-actions.schemas.js';
import {
  actionView, actionViews, agentOf, approveAction, executeAsAgent, getAction, listApprovals, listOwnActions, rejectAction, transferInAsAgent, transferOutAsAgent,
} from './agent-actions.service.js';

/** A replayed agent execution or transfer-out answers its action, found through the quote the effect recorded. */
const replayAction = (status: number) => ({
  claimedByEffect: true,
  replay: async (req: FastifyRequest, id: string | undefined) => {
    const quote = await getQuote(req.ctx, id?.startsWith('Quote:') ? id : ((req.params as { quoteId?: string }).quoteId ?? ''));
    const action = await req.ctx.db.agentAction.findFirst({ where: { transactionId: quote.transactionId }, orderBy: { id: 'desc' } });
    return { status, body: action ? await actionView(req.ctx, action) : quoteResource(quote) };
  },
});

export async function agentActionRoutes(app: FastifyInstance) {
  await agentSelfRoutes(app);
  await agentMoneyRoutes(app);
  await platformDecisionRoutes(app);
}

/** REF's AgentAuth reads: the agent itself, its actions, its customer's accounts and transactions. */
async function agentSelfRoutes(app: FastifyInstance) {
  app.get('/agents/me', { config: { agent: 'SELF' } }, async (req) => agentResource(await getAgent(req.ctx, agentOf(req.ctx).agentId)));

  app.get('/agents/me/actions', { config: { agent: 'SELF', query: ownActionsQuery } }, async (req) => {
    const page = await listOwnActions(req.ctx, parseInput(ownActionsQuery, req.query));
    return { ...page, data: await actionViews(req.ctx, page.data) };
  });

  app.get('/agents/me/actions/:actionId', { config: { agent: 'SELF' } }, async (req) => {
    const { actionId } = parseInput(actionParams, req.params);
    return actionView(req.ctx, await getAction(req.ctx, agentOf(req.ctx).agentId, actionId));
  });

  app.get('/agents/me/internal-accounts', { config: { agent: 'VIEW_TRANSACTIONS', query: customerAccountsQuery.omit({ customerId: true }) } }, async (req) => {
    const q = parseInput(customerAccountsQuery.omit({ customerId: true }), req.query);
    const page = await listCustomerInternalAccounts(req.ctx, { ...q, customerId: agentOf(req.ctx).customerId });
    return { ...page, data: page.data.map(internalAccountResource) };
  });

  app.get('/agents/me/transactions', { config: { agent: 'VIEW_TRANSACTIONS', query: listTransactionsQuery.omit({ customerId: true }) } }, async (req) => {
    const q = parseInput(listTransactionsQuery.omit({ customerId: true }), req.query);
    const page = await listTransactions(req.ctx, { ...q, customerId: agentOf(req.ctx).customerId });
    return { ...page, data: page.data.map((t) => transactionResource(t)) };
  });

  app.get('/agents/me/transactions/:transactionId', { config: { agent: 'VIEW_TRANSACTIONS' } }, async (req) => {
    const { transactionId } = parseInput(transactionParams, req.params);
    agentOf(req.ctx);
    return transactionResource(await getTransaction(req.ctx, transactionId));
  });

  await agentExternalAccountRoutes(app);
}

/** REF: every /agents/me/external-accounts call needs MANAGE_EXTERNAL_ACCOUNTS; the customer is the agent's. */
async function agentExternalAccountRoutes(app: FastifyInstance) {
  const query = listCustomerAccountsQuery.omit({ customerId: true });
  app.get('/agents/me/external-accounts', { config: { agent: 'MANAGE_EXTERNAL_ACCOUNTS', query } }, async (req) => {
    const page = await listCustomerExternalAccounts(req.ctx, { ...parseInput(query, req.query), customerId: agentOf(req.ctx).customerId });
    return { ...page, data: page.data.map(externalAccountResource) };
  });

  // 26c: as POST /customers/external-accounts, a repeat with the same Idempotency-Key answers the first account.
  app.post('/agents/me/external-accounts', { config: { agent: 'MANAGE_EXTERNAL_ACCOUNTS', idempotent: { replay: async (req: FastifyRequest, id: string | undefined) => ({ status: 201, body: externalAccountResource(await getExternalAccount(req.ctx, 'customers', id ?? '')) }) } } }, async (req, reply) => {
    const account = await createExternalAccount(req.ctx, 'customers', ownCustomerBody(req.ctx, req.body));
    reply.status(201);
    return externalAccountResource(account);
  });

  app.get('/agents/me/external-accounts/:externalAccountId', { config: { agent: 'MANAGE_EXTERNAL_ACCOUNTS' } }, async (req) => {
    const { externalAccountId } = parseInput(externalAccountParams, req.params);
    agentOf(req.ctx);
    return externalAccountResource(await getExternalAccount(req.ctx, 'customers', externalAccountId));
  });

  app.delete('/agents/me/external-accounts/:externalAccountId', { config: { agent: 'MANAGE_EXTERNAL_ACCOUNTS' } }, async (req, reply) => {
    const { externalAccountId } = parseInput(externalAccountParams, req.params);
    agentOf(req.ctx);
    // Read first, scoped to the agent's customer: another customer's account is 404, as a missing one.
    await getExternalAccount(req.ctx, 'customers', externalAccountId);
    await deleteExternalAccount(req.ctx, 'customers', externalAccountId);
    return reply.status(204).send();
  });
}

/** REF: `customerId` is inferred from the agent; another customer's is 404 (as a missing one). */
function ownCustomerBody(ctx: Ctx, body: unknown): unknown {
  const agent = agentOf(ctx);
  if (typeof body !== 'object' || body === null) return body;
  return { ...body, customerId: (body as { customerId?: unknown }).customerId ?? agent.customerId };
}

/** REF's AgentAuth writes: quotes, their execution and transfers — each an AgentAction under the policy. */
async function agentMoneyRoutes(app: FastifyInstance) {
  app.post('/agents/me/quotes', { config: { agent: 'CREATE_QUOTES', idempotent: { claimedByEffect: true, replay: async (req: FastifyRequest, id: string | undefined) => ({ status: 201, body: quoteResource(await getQuote(req.ctx, id ?? '')) }) } } }, async (req, reply) => {
    agentOf(req.ctx);
    const quote = await createQuoteFromRequest(req.ctx, req.body);
    reply.status(201);
    return quoteResource(quote);
  });

  app.get('/agents/me/quotes/:quoteId', { config: { agent: 'SELF' } }, async (req) => {
    const { quoteId } = parseInput(quoteParams, req.params);
    const quote = await getQuote(req.ctx, quoteId);
    // REF: a quote another agent (or the platform) created is 404 here.
    if (quote.agentId !== agentOf(req.ctx).agentId) throw new NotFoundError('QUOTE_NOT_FOUND', 'Quote not found.');
    return quoteResource(quote);
  });

  app.post('/agents/me/quotes/:quoteId/execute', { config: { agent: 'EXECUTE_QUOTES', idempotent: replayAction(200) } }, async (req) => {
    const { quoteId } = parseInput(quoteParams, req.params);
    return actionView(req.ctx, await executeAsAgent(req.ctx, quoteId, signatureHeadersOf(req.headers)));
  });

  app.post('/agents/me/transfer-out', { config: { agent: 'CREATE_TRANSFERS', idempotent: replayAction(201) } }, async (req, reply) => {
    const action = await transferOutAsAgent(req.ctx, parseInput(transferOutBody, req.body ?? {}));
    reply.status(201);
    return actionView(req.ctx, action);
  });

  // 26c: the action commits with the Idempotency-Key record; a repeat answers that action as it stands now.
  const replayOwnAction = (status: number) => ({
    claimedByEffect: true,
    replay: async (req: FastifyRequest, id: string | undefined) => ({ status, body: await actionView(req.ctx, await getAction(req.ctx, agentOf(req.ctx).agentId, id ?? '')) }),
  });
  app.post('/agents/me/transfer-in', { config: { agent: 'CREATE_TRANSFERS', idempotent: replayOwnAction(201) } }, async (req, reply) => {
    const action = await transferInAsAgent(req.ctx, parseInput(agentTransferInBody, req.body ?? {}));
    reply.status(201);
    return actionView(req.ctx, action);
  });
}

/** The platform's side (Basic): actions waiting for it, and its decision. Agents may not call these. */
async function platformDecisionRoutes(app: FastifyInstance) {
  app.get('/agents/approvals', { config: { query: approvalsQuery } }, async (req) => {
    const page = await listApprovals(req.ctx, parseInput(approvalsQuery, req.query));
    return { ...page, data: await actionViews(req.ctx, page.data) };
  });

  app.post('/agents/:agentId/actions/:actionId/approve', async (req) => {
    const { agentId, actionId } = parseInput(agentActionParams, req.params);
    return actionView(req.ctx, await approveAction(req.ctx, agentId, actionId));
  });

  app.post('/agents/:agentId/actions/:actionId/reject', async (req) => {
    const { agentId, actionId } = parseInput(agentActionParams, req.params);
    const { reason } = parseInput(rejectBody, req.body ?? {});
    return actionView(req.ctx, await rejectAction(req.ctx, agentId, actionId, reason));
  });
}
