import type { Ctx } from '../../deps.js';
import { BadRequestError, NotFoundError, ValidationError } from '../../platform/errors.js';
import type { InternalAccount } from '../../generated/prisma/client.js';
import { UmaCounterpartyError } from '../../adapters/uma/port.js';
import { openInternalAccounts } from '../ledger/index.js';
import type { CreateQuoteBody, ResolvedDestination, StoredUmaPayment, UmaDestinations } from '../payments/index.js';
import { getUsableLookup, umaError } from './uma.service.js';
import { missingPayerData, normalizeUmaAddress } from './uma.model.js';

/*
 * Quotes to UMA addresses: this domain's side of the payments domain's UmaDestinations port (bound in
 * src/modules.ts). It talks UMA — lookups, the counterparty's pay request — and payments prices and executes.
 */

const field = (f: string, message: string) => new ValidationError([{ field: f, message }]);

/**
 * destination UMA_ADDRESS (spec flow 2): needs the `lookupId` of a lookup of that address made for
 * the same sender, a currency the receiver takes, and every mandatory payer-data field in
 * `senderCustomerInfo`. A receiver that is one of the platform's own customers (sandbox) is paid
 * into its internal account in that currency.
 * Errors: 400 INVALID_INPUT, INVALID_CURRENCY, MISSING_MANDATORY_USER_INFO; 404 LOOKUP_REQUEST_NOT_FOUND.
 */
async function resolveUmaDestination(ctx: Ctx, body: CreateQuoteBody, source: InternalAccount): Promise<ResolvedDestination> {
  const d = body.destination;
  if (d.destinationType !== 'UMA_ADDRESS') throw new Error('not a UMA destination');
  const address = normalizeUmaAddress(d.umaAddress);
  if (!address) throw new BadRequestError('INVALID_UMA_ADDRESS', 'The UMA address is malformed; expected $user@domain.', { errors: [{ field: 'destination.umaAddress', message: 'Not an UMA address.' }] });
  if (!body.lookupId) throw field('lookupId', 'UMA destinations need the lookupId of a receiver lookup (GET /receiver/uma/{umaAddress}).');
  const lookup = await getUsableLookup(ctx, body.lookupId, source.customerId);
  if (lookup.receiverUmaAddress !== address) throw field('destination.umaAddress', 'Differs from the address of the lookup.');
  const option = d.currency ? lookup.currencies.find((c) => c.code === d.currency) : lookup.currencies[0];
  if (!option) {
    throw new BadRequestError('INVALID_CURRENCY', `The receiver does not take ${d.currency ?? 'any currency this service knows'}.`, {
      errors: [{ field: 'destination.currency', constraint: { enum: lookup.currencies.map((c) => c.code) }, message: 'Not a currency of the lookup.' }],
    });
  }
  const missing = missingPayerData(lookup.payerData, body.senderCustomerInfo);
  if (missing.length > 0) {
    throw new BadRequestError('MISSING_MANDATORY_USER_INFO', `The receiver requires ${missing.join(', ')} about the sender.`, {
      missingFields: missing,
      errors: missing.map((m) => ({ field: `senderCustomerInfo.${m}`, message: 'Required by the receiver.' })),
    });
  }
  const wire = { destinationType: 'UMA_ADDRESS', umaAddress: address, currency: option.code };
  const counterparty = lookup.counterparty as Record<string, unknown>;
  if (counterparty.local === true) {
    const customerId = String(counterparty.customerId);
    await ctx.db.$transaction((tx) => openInternalAccounts(tx, ctx.platformId, customerId, [option.code]));
    const target = await ctx.db.internalAccount.findFirst({ where: { customerId, currency: option.code } });
    if (!target || target.status !== 'ACTIVE') throw new NotFoundError('UMA_NOT_FOUND', 'The receiver cannot receive this currency.');
    return { kind: 'INTERNAL', accountId: target.id, currency: option.code, rail: null, identifierLast3: null, accountType: null, customerId, wire };
  }
  const user = address.slice(1, address.indexOf('@'));
  const last3 = /\d{3}$/.test(user) ? user.slice(-3) : '';
  return {
    kind: 'UMA',
    accountId: null,
    currency: option.code,
    rail: 'LIGHTNING',
    identifierLast3: last3,
    accountType: null,
    customerId: null,
    wire,
    uma: { lookupId: lookup.id, receiverUmaAddress: address, senderUmaAddress: lookup.senderUmaAddress, option, counterparty },
  };
}

/**
 * The UMA pay request for the exact receiving amount: the receiver's invoice and terms, kept with the
 * quote and paid when the transaction is submitted. Errors: the counterparty codes (B§9.1).
 */
async function requestUmaPayment(ctx: Ctx, quoteId: string, dest: ResolvedDestination, amount: bigint, senderCustomerInfo: Record<string, unknown> | undefined): Promise<StoredUmaPayment> {
  const uma = dest.uma!;
  const payerData: Record<string, string> = {};
  for (const [k, v] of Object.entries(senderCustomerInfo ?? {})) if (v !== null && v !== undefined) payerData[k] = typeof v === 'string' ? v : JSON.stringify(v);
  const terms = await ctx.adapters.uma
    .payRequest({ idempotencyKey: quoteId, receiverUmaAddress: uma.receiverUmaAddress, senderUmaAddress: uma.senderUmaAddress, counterparty: uma.counterparty, currency: dest.currency, amount, payerData })
    .catch((err: unknown) => {
      throw err instanceof UmaCounterpartyError ? umaError(err) : err;
    });
  return {
    receiverUmaAddress: uma.receiverUmaAddress,
    senderUmaAddress: uma.senderUmaAddress,
    invoice: terms.invoice,
    amountMsats: terms.amountMsats.toString(),
    multiplier: terms.multiplier,
    receiverFeeMsats: terms.receiverFeeMsats.toString(),
    termsExpireAt: terms.expiresAt.toISOString(),
    ...(terms.counterpartyInformation ? { counterpartyInformation: terms.counterpartyInformation } : {}),
  } as StoredUmaPayment;
}

export const umaDestinations: UmaDestinations = { resolve: resolveUmaDestination, requestPayment: requestUmaPayment };
