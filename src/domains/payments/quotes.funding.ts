import type { Ctx } from '../../deps.js';
import { BadRequestError, ForbiddenError, NotFoundError, ValidationError } from '../../platform/errors.js';
import { newId } from '../../platform/ids.js';
import { visibleToCaller } from '../../platform/agent-scope.js';
import type { InternalAccount } from '../../generated/prisma/client.js';
import { openInternalAccounts } from '../ledger/index.js';
import { FUNDING_NETWORKS, type FundingInstructionOut } from '../../adapters/deposits/port.js';
import type { CreateQuoteBody } from './quotes.schemas.js';

export interface ResolvedRealtimeSource extends InternalAccount {
  platformCustomerId: string | null;
  networks: readonly string[];
}

/**
 * source REALTIME_FUNDING (spec flow 3, decisions B§4.1): the deposit lands in the customer's
 * internal account in `currency` (opened if missing), or the platform's own when `customerId` is
 * absent, and the quote executes from there. Only instant methods fund: USDC, USDT, BTC, and USD over
 * RTP/FedNow. `cryptoNetwork` narrows the instructions to one network.
 * Errors: 400 INVALID_CURRENCY, INVALID_INPUT; 403 USER_NOT_READY; 404 USER_NOT_FOUND.
 */
export async function resolveRealtimeSource(ctx: Ctx, body: CreateQuoteBody): Promise<ResolvedRealtimeSource> {
  const s = body.source;
  if (s.sourceType !== 'REALTIME_FUNDING') throw new Error('not a real-time source');
  const all = FUNDING_NETWORKS[s.currency];
  if (!all) {
    throw new BadRequestError('INVALID_CURRENCY', `${s.currency} cannot fund a payment in real time.`, {
      errors: [{ field: 'source.currency', constraint: { enum: Object.keys(FUNDING_NETWORKS) }, message: 'Real-time funding takes USDC, USDT, BTC or USD.' }],
    });
  }
  const network = s.cryptoNetwork?.toUpperCase();
  if (network && !all.includes(network)) {
    throw new ValidationError([{ field: 'source.cryptoNetwork', constraint: { enum: [...all] }, message: `${s.currency} arrives on ${all.join(', ')}.` }]);
  }
  if (body.immediatelyExecute) throw new ValidationError([{ field: 'immediatelyExecute', message: 'A real-time funded quote executes when its deposit arrives.' }]);
  const customerId = s.customerId ?? ctx.agent?.customerId ?? null;
  let platformCustomerId: string | null = null;
  if (customerId) {
    const customer = await ctx.db.customer.findFirst({ where: { id: customerId } });
    if (!customer || customer.isDeleted || !visibleToCaller(ctx, customer.id)) throw new NotFoundError('USER_NOT_FOUND', 'Customer not found.');
    if (customer.status !== 'APPROVED') throw new ForbiddenError('USER_NOT_READY', `The customer's verification status is ${customer.status}; money movement needs APPROVED.`);
    platformCustomerId = customer.platformCustomerId;
    // The deposit is credited before the payment runs: the customer needs an account in that currency.
    await ctx.db.$transaction((tx) => openInternalAccounts(tx, ctx.platformId, customerId, [s.currency]));
  }
  const account = await ctx.db.internalAccount.findFirst({ where: { customerId, currency: s.currency } });
  if (!account) throw new BadRequestError('INVALID_CURRENCY', `The platform has no ${s.currency} account to receive real-time funding.`, { errors: [{ field: 'source.currency', message: 'Not a supported currency of the platform.' }] });
  if (account.status !== 'ACTIVE') throw new ValidationError([{ field: 'source.currency', message: `The funding account is ${account.status}.` }]);
  return { ...account, platformCustomerId, networks: network ? [network] : all };
}

/** The detector's instructions for the quote (exact amount, until it expires). */
export function fundingInstructions(ctx: Ctx, source: ResolvedRealtimeSource, quoteId: string, amount: bigint, createdAt: Date, expiresAt: Date): FundingInstructionOut[] {
  return ctx.adapters.deposits.instructionsFor({ quoteId, currency: source.currency, amount, networks: source.networks, createdAt, expiresAt, isPlatformAccount: source.customerId === null });
}

/** The rows recording what deposits match on (unique per platform), written with the quote (insertPendingQuote). */
export function fundingInstructionRows(platformId: string, quoteId: string, instructions: FundingInstructionOut[], now: Date): Array<Record<string, unknown>> {
  return instructions.map((i) => ({ id: newId('FundingInstruction'), platformId, quoteId, network: i.network, asset: i.asset, matchKey: i.matchKey, createdAt: now }));
}
