import type { Ctx } from '../../deps.js';
import { newId } from '../../platform/ids.js';
import { noteIdempotentResource, withoutClaim } from '../../platform/idempotency.js';
import { recordEvent } from '../../platform/outbox.js';
import type { Customer, Transaction } from '../../generated/prisma/client.js';
import { openInternalAccounts, postJournal, systemAccount, type Posting } from '../ledger/index.js';
import { getDefaultUmaDepositAccount } from '../external-accounts/index.js';
import { defaultPaymentRail } from '../fees/index.js';
import { beginExecution } from './quotes.service.js';
import { transactionResource } from './transactions.resource.js';

/** A payment to one of the platform's customers, as the network it came over reports it (today: UMA). */
export interface IncomingPayment {
  customer: Customer;
  amount: bigint;
  currency: string;
  /** UMA: the money is in UMA_CLEARING, where the counterparty's settlement lands. */
  from: { network: 'UMA'; senderUmaAddress?: string };
  description?: string;
  counterpartyInformation?: Record<string, string>;
}

/** Posting rule of an incoming payment credited at once: clearing → the customer's internal account. */
function incomingCreditPostings(clearing: string, internalAccountId: string, currency: string, amount: bigint): Posting[] {
  return [
    { account: clearing, bucket: 'SYSTEM', currency, amount: -amount },
    { account: internalAccountId, bucket: 'AVAILABLE', currency, amount },
  ];
}

/**
 * An incoming payment (spec ExternalAccount `defaultUmaDepositAccount`): paid out to the customer's
 * default UMA deposit account when it has one that is ACTIVE and in the payment's currency — an
 * INCOMING transaction that goes PENDING → PROCESSING → COMPLETED through that account's rail (its
 * execution begun by `beginExecution`), and whose failure credits the internal account instead — else
 * credited at once to the customer's internal account in that currency (opened if missing):
 * INTERNAL_ACCOUNT.BALANCE_UPDATED and INCOMING_PAYMENT.COMPLETED.
 */
export async function receiveIncomingPayment(ctx: Ctx, p: IncomingPayment): Promise<Transaction> {
  const { customer } = p;
  const clearing = systemAccount('UMA_CLEARING', p.currency);
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
    sourceAccountId: clearing,
    source: { sourceType: 'UMA_ADDRESS', umaAddress: p.from.senderUmaAddress ?? null, currency: p.currency },
    sentAmount: p.amount,
    sendingCurrency: p.currency,
    receivedAmount: p.amount,
    receivingCurrency: p.currency,
    exchangeRate: '1',
    fees: 0n,
    platformFees: 0n,
    serviceFees: 0n,
    description: p.description ?? null,
    counterpartyInformation: p.counterpartyInformation ?? undefined,
    createdAt: now,
    updatedAt: now,
  };
  if (external) {
    const rail = external.paymentRails[0] ?? defaultPaymentRail(external.currency);
    const { t, execution } = await ctx.db.$transaction(async (tx) => {
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
      const execution = await beginExecution(ctx, tx, created, { by: 'INCOMING' });
      return { t: await tx.transaction.findUniqueOrThrow({ where: { id } }), execution };
    });
    await execution.afterCommit();
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
    await postJournal(ctx, tx, { key: `${id}:settle`, kind: 'UMA_INCOMING', referenceId: id, postings: incomingCreditPostings(clearing, internal.id, p.currency, p.amount) });
    await recordEvent(tx, 'INCOMING_PAYMENT.COMPLETED', transactionResource(created));
    return created;
  });
}
