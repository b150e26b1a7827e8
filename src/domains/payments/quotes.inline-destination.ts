import { z } from 'zod';
import type { Ctx } from '../../deps.js';
import { ConflictError, DomainError, ValidationError } from '../../platform/errors.js';
import type { Quote } from '../../generated/prisma/client.js';
import { createExternalAccount, deleteExternalAccount, getExternalAccount, runBeneficiaryCheck } from '../external-accounts/index.js';
import { createQuoteBody } from './quotes.schemas.js';
import { createQuote } from './quotes.service.js';
import { parseInput } from '../../platform/http/validate.js';
import { withoutClaim } from '../../platform/idempotency.js';

const inlineDestination = z.strictObject({
  destinationType: z.literal('EXTERNAL_ACCOUNT_DETAILS'),
  externalAccountDetails: z.record(z.string(), z.unknown()),
});

const isInline = (raw: unknown): raw is { destination: { destinationType: 'EXTERNAL_ACCOUNT_DETAILS' } } =>
  typeof raw === 'object' && raw !== null && (raw as { destination?: { destinationType?: unknown } }).destination?.destinationType === 'EXTERNAL_ACCOUNT_DETAILS';

/**
 * POST /quotes with destination EXTERNAL_ACCOUNT_DETAILS (REF, issue 13): the account is given
 * inline. It is registered as an external account of the source's customer (an identical existing
 * one is reused), checked at once, and the quote pays it as an ACCOUNT destination. When the quote
 * cannot be created, an account registered for it is removed again: nothing is left half-written.
 * Errors: those of POST /customers/external-accounts (field paths under
 * `destination.externalAccountDetails.`) and of POST /quotes; 400 EXTERNAL_ACCOUNT_VERIFICATION_REQUIRED
 * when the beneficiary check has no answer yet.
 */
export async function createQuoteFromRequest(ctx: Ctx, raw: unknown): Promise<Quote> {
  if (!isInline(raw)) return createQuote(ctx, parseInput(createQuoteBody, raw ?? {}));
  const { destination, ...rest } = raw as { destination: unknown } & Record<string, unknown>;
  const inline = parseInput(inlineDestination, destination, 'destination');
  // Everything but the destination is checked before anything is written.
  const placeholder = { destinationType: 'ACCOUNT', accountId: 'ExternalAccount:inline' };
  parseInput(createQuoteBody, { ...rest, destination: placeholder });
  // The account is registered and checked on its own (a repeat reuses it): the request's key belongs to the quote.
  const free = withoutClaim(ctx);
  const { accountId, created } = await registerAccount(free, rest, inline.externalAccountDetails);
  try {
    if (created) await runBeneficiaryCheck(free, ctx.platformId, accountId).catch(() => undefined);
    return await createQuote(ctx, parseInput(createQuoteBody, { ...rest, destination: { destinationType: 'ACCOUNT', accountId } }));
  } catch (err) {
    if (created) await deleteExternalAccount(free, 'customers', accountId).catch(() => undefined);
    throw err;
  }
}

/** The inline account as an external account of the source's customer; an identical one is reused. */
async function registerAccount(ctx: Ctx, rest: Record<string, unknown>, details: Record<string, unknown>): Promise<{ accountId: string; created: boolean }> {
  const source = rest.source as { accountId?: string; customerId?: string } | undefined;
  let customerId = (details.customerId as string | undefined) ?? source?.customerId;
  if (!customerId && source?.accountId) customerId = (await ctx.db.internalAccount.findFirst({ where: { id: source.accountId } }))?.customerId ?? undefined;
  const scope = customerId ? 'customers' : 'platform';
  try {
    const account = await createExternalAccount(ctx, scope, { ...details, ...(customerId ? { customerId } : {}) });
    return { accountId: account.id, created: true };
  } catch (err) {
    if (err instanceof ConflictError && typeof err.details?.externalAccountId === 'string') {
      await getExternalAccount(ctx, scope, err.details.externalAccountId);
      return { accountId: err.details.externalAccountId, created: false };
    }
    if (err instanceof ValidationError || err instanceof DomainError) throw prefixFields(err, 'destination.externalAccountDetails');
    throw err;
  }
}

function prefixFields(err: DomainError, prefix: string): DomainError {
  const errors = (err.details?.errors as Array<{ field: string }> | undefined) ?? undefined;
  if (!errors) return err;
  return new DomainError(err.status, err.code, err.message, { ...err.details, errors: errors.map((e) => ({ ...e, field: `${prefix}.${e.field}` })) }, err.headers);
}
