import type { Ctx } from '../../deps.js';
import { BadRequestError, NotFoundError } from '../../platform/errors.js';
import { isKnownCurrency } from '../../platform/currencies.js';
import type { Customer, Transaction } from '../../generated/prisma/client.js';
import { receiveIncomingPayment } from '../payments/index.js';
import { normalizeUmaAddress } from './uma.model.js';

export interface IncomingUmaPayment {
  amount: bigint;
  currency: string;
  senderUmaAddress?: string;
  description?: string;
  senderInformation?: Record<string, string>;
}

/**
 * POST /sandbox/uma/incoming: a counterparty paid one of the platform's customers at its `umaAddress`.
 * Errors: 400 INVALID_UMA_ADDRESS, INVALID_CURRENCY; 404 UMA_NOT_FOUND.
 */
export async function receiveSandboxUmaPayment(ctx: Ctx, input: IncomingUmaPayment & { receiverUmaAddress: string }): Promise<Transaction> {
  const address = normalizeUmaAddress(input.receiverUmaAddress);
  if (!address) throw new BadRequestError('INVALID_UMA_ADDRESS', 'The UMA address is malformed; expected $user@domain.', { errors: [{ field: 'receiverUmaAddress', message: 'Not an UMA address.' }] });
  const customer = await ctx.db.customer.findFirst({ where: { umaAddress: address, isDeleted: false } });
  if (!customer) throw new NotFoundError('UMA_NOT_FOUND', 'No customer of this platform has this UMA address.');
  return receiveUmaPayment(ctx, customer, input);
}

/**
 * An incoming UMA payment to one of the platform's customers: the payments domain records it (paid out to the
 * customer's default UMA deposit account, or credited to its internal account). Errors: 400 INVALID_CURRENCY.
 */
export async function receiveUmaPayment(ctx: Ctx, customer: Customer, p: IncomingUmaPayment): Promise<Transaction> {
  if (!isKnownCurrency(p.currency)) throw new BadRequestError('INVALID_CURRENCY', `${p.currency} is not a currency this service knows.`, { errors: [{ field: 'currency', message: 'Unknown currency.' }] });
  return receiveIncomingPayment(ctx, {
    customer,
    amount: p.amount,
    currency: p.currency,
    from: { network: 'UMA', senderUmaAddress: p.senderUmaAddress },
    description: p.description,
    counterpartyInformation: p.senderInformation,
  });
}
