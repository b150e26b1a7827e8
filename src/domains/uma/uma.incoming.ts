import type { Ctx } from '../../deps.js';
import { BadRequestError, NotFoundError } from '../../platform/errors.js';
import { newId } from '../../platform/ids.js';
import { noteIdempotentResource, withoutClaim } from '../../platform/idempotency.js';
import { recordEvent } from '../../platform/outbox.js';
import { isKnownCurrency } from '../../platform/currencies.js';
import type { Customer, Transaction } from '../../generated/prisma/client.js';
import { systemAccount, postJournal, openInternalAccounts } from '../ledger/index.js';
import { getDefaultUmaDepositAccount } from '../external-accounts/index.js';
import { defaultPaymentRail } from '../fees/index.js';
import { transitionTransaction } from '../payments/transactions.repo.js';
import { transactionResource } from '../payments/transactions.resource.js';
import { enqueueSubmit } from '../payments/transactions.jobs.js';
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
 * An incoming UMA payment (spec ExternalAccount `defaultUmaDepositAccount`): paid out to the customer's
 * default UMA deposit account when it has one that is ACTIVE and in the payment's currency — an
 * INCOMING transaction that goes PENDING → PROCESSING → COMPLETED through that account's rail, and
 * whose failure credits the internal account instead — else credited at once to the customer's
 * internal account in that currency (opened if missing): INTERNAL_ACCOUNT.BALANCE_UPDATED and
 * INCOMING_PAYMENT.COMPLETED. The money comes from UMA_CLEARING, where the counterparty's settlement lands.
 */
export async function receiveUmaPayment(ctx: Ctx, customer: Customer, p: IncomingUmaPayment): Promise<Transaction> {
  if (!isKnownCurrency(p.currency)) throw new BadRequestError('INVALID_CURRENCY', `${p.currency} is not a currency this service knows.`, { errors: [{ field: 'currency', message: 'Unknown currency.' }] });
  // Opening the account is idempotent on its own: it is not the request's effect (no Idempotency-Key claim).
  await withoutClaim(ctx).db.$transaction((tx) => openInternalAccounts(tx, ctx.platformId, customer.id, [p.currency]));
  const internal = await ctx.db.internalAccount.findFirstOrThrow({ where: { customerId: customer.id, currency: p.currency } });
  const external = await getDefaultUmaDepositAccount(ctx, customer.id, p.currency);
  const id = newId('Transaction');
  noteIdempotentResource(ctx, id);
  const now = ctx.clock.now();
  const common = {
    id,
    type: 'INCOMING',
    direction: 'CREDIT',
    customerId: customer.id,
    platformCustomerId: customer.platformCustomerId,
    sourceAccountId: systemAccount('UMA_CLEARING', p.currency),
    source: { sourceType: 'UMA_ADDRESS', umaAddress: p.senderUmaAddress ?? null, currency: p.currency },
    sentAmount: p.amount,
    sendingCurrency: p.currency,
    receivedAmount: p.amount,
    receivingCurrency: p.currency,
    exchangeRate: '1',
    fees: 0n,
    platformFees: 0n,
    serviceFees: 0n,
    description: p.description ?? null,
    counterpartyInformation: p.senderInformation ?? undefined,
    createdAt: now,
    updatedAt: now,
  };
  if (external) {
    const rail = external.paymentRails[0] ?? defaultPaymentRail(external.currency);
    const t = await ctx.db.$transaction(async (tx) => {
      const created = await tx.transaction.create({
        data: {
          ...common,
          status: 'PENDING',
          destinationKind: 'EXTERNAL',
          destinationAccountId: external.id,
          destination: { destinationType: 'ACCOUNT', accountId: external.id, currency: external.currency, paymentRail: rail },
          paymentRail: rail,
          identifierLast3: external.identifierLast3,
        } as never,
      });
      await recordEvent(tx, 'INCOMING_PAYMENT.PENDING', transactionResource(created));
      return transitionTransaction(ctx, tx, created, 'execute');
    });
    await enqueueSubmit(ctx, { platformId: ctx.platformId, transactionId: id });
    return t;
  }
  return ctx.db.$transaction(async (tx) => {
    const created = await tx.transaction.create({
      data: {
        ...common,
        status: 'COMPLETED',
        destinationKind: 'INTERNAL',
        destinationAccountId: internal.id,
        destination: { destinationType: 'ACCOUNT', accountId: internal.id, currency: p.currency },
        settledAt: now,
      } as never,
    });
    await postJournal(ctx, tx, {
      key: `${id}:settle`,
      kind: 'UMA_INCOMING',
      referenceId: id,
      postings: [
        { account: systemAccount('UMA_CLEARING', p.currency), bucket: 'SYSTEM', currency: p.currency, amount: -p.amount },
        { account: internal.id, bucket: 'AVAILABLE', currency: p.currency, amount: p.amount },
      ],
    });
    await recordEvent(tx, 'INCOMING_PAYMENT.COMPLETED', transactionResource(created));
    return created;
  });
}
