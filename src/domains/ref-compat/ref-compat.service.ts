import type { Ctx } from '../../deps.js';
import { BadRequestError, NotFoundError, NotImplementedError, ValidationError } from '../../platform/errors.js';
import { newId } from '../../platform/ids.js';
import { currencyOf } from '../../platform/currencies.js';
import { visibleToCaller } from '../../platform/agent-scope.js';
import type { Customer, Transaction } from '../../generated/prisma/client.js';
import { systemAccount, getInternalAccount, assertAccountsCanMove } from '../ledger/index.js';
import { getPayableExternalAccount } from '../external-accounts/index.js';
import { assertEndUserTermsAccepted, createKycLink, getActiveCustomer } from '../customers/index.js';
import { receiveDeposit } from '../funding/index.js';
import { receiveSandboxUmaPayment, normalizeUmaAddress } from '../uma/index.js';
import { getExchangeRate, defaultPaymentRail } from '../fees/index.js';
import { createQuote, creditIncomingPayment, getQuote, getTransaction, transactionResource } from '../payments/index.js';
import type { TransferBody, TransferOutBody } from './ref-compat.schemas.js';

const userNotFound = () => new NotFoundError('USER_NOT_FOUND', 'Customer not found.');

/**
 * GET /customers/kyc-link (REF's `customers.getKYCLink`): the spec's POST /customers/{id}/kyc-link,
 * with the customer named by `platformCustomerId` (REF) or `customerId`. Several live customers may
 * share a platformCustomerId; the newest is meant. Errors: those of createKycLink; 404 USER_NOT_FOUND.
 */
export async function kycLinkFor(ctx: Ctx, q: { platformCustomerId?: string; customerId?: string; redirectUri?: string }) {
  let customer: Customer | null;
  if (q.customerId) {
    customer = await getActiveCustomer(ctx, q.customerId);
    if (q.platformCustomerId && customer.platformCustomerId !== q.platformCustomerId) {
      throw new ValidationError([{ field: 'platformCustomerId', message: 'Is not the platformCustomerId of customerId.' }]);
    }
  } else {
    customer = await ctx.db.customer.findFirst({ where: { platformCustomerId: q.platformCustomerId!, isDeleted: false }, orderBy: { id: 'desc' } });
    if (!customer) throw userNotFound();
  }
  const link = await createKycLink(ctx, customer.id, q.redirectUri);
  return { customerId: customer.id, platformCustomerId: customer.platformCustomerId, kycUrl: link.kycUrl, expiresAt: link.expiresAt.toISOString(), provider: link.provider };
}

/** The deposit that pays an instruction, from its match key (adapters/deposits/port.ts matchKeyFor). */
function depositFor(matchKey: string): { reference?: string; invoice?: string; address?: string; network?: string } {
  if (matchKey.startsWith('REF:')) return { reference: matchKey.slice(4) };
  if (matchKey.startsWith('LN:')) return { invoice: matchKey.slice(3) };
  const [, network, ...rest] = matchKey.split(':');
  return { network, address: rest.join(':') };
}

/**
 * POST /sandbox/send (REF's `sandbox.sendFunds`): the payer of a real-time funded quote sends
 * `currencyAmount` (default: exactly what the quote asks) to the quote's payment instructions in
 * `currencyCode`, as POST /sandbox/deposits would record it; the quote executes when the amount is
 * exact. Answers the quote's transaction. Errors: 404 QUOTE_NOT_FOUND; 400 INVALID_INPUT (not a
 * real-time funded quote), INVALID_CURRENCY (no instruction in that currency).
 */
export async function sandboxSend(ctx: Ctx, body: { quoteId: string; currencyCode: string; currencyAmount?: number }): Promise<Transaction> {
  const quote = await getQuote(ctx, body.quoteId);
  if (quote.funding !== 'REALTIME') {
    throw new ValidationError([{ field: 'quoteId', message: 'Only a real-time funded quote (source REALTIME_FUNDING) waits for funds; execute other quotes with POST /quotes/{id}/execute.' }]);
  }
  const instructions = await ctx.db.fundingInstruction.findMany({ where: { quoteId: quote.id }, orderBy: { id: 'asc' } });
  const instruction = instructions.find((i) => i.asset === body.currencyCode);
  if (!instruction) {
    throw new BadRequestError('INVALID_CURRENCY', `The quote takes ${quote.sendingCurrency}, not ${body.currencyCode}.`, {
      errors: [{ field: 'currencyCode', constraint: { enum: [...new Set(instructions.map((i) => i.asset))] } }],
    });
  }
  const amount = body.currencyAmount === undefined ? quote.totalSendingAmount : BigInt(body.currencyAmount);
  await receiveDeposit(ctx, { ...depositFor(instruction.matchKey), amount, currency: body.currencyCode, depositId: newId('SandboxSend') });
  return getTransaction(ctx, quote.transactionId);
}

/**
 * POST /sandbox/uma/receive (REF's `sandbox.uma.receivePayment`): the spec's sandbox incoming UMA
 * payment, the receiver named by `receiverUmaAddress` or by `customerId` (its UMA address).
 */
export async function sandboxUmaReceive(ctx: Ctx, body: { senderUmaAddress: string; receivingCurrencyCode: string; receivingCurrencyAmount: number; customerId?: string; receiverUmaAddress?: string }): Promise<Transaction> {
  let receiverUmaAddress = body.receiverUmaAddress;
  if (body.customerId) {
    const customer = await getActiveCustomer(ctx, body.customerId);
    if (receiverUmaAddress && normalizeUmaAddress(receiverUmaAddress) !== customer.umaAddress) {
      throw new ValidationError([{ field: 'receiverUmaAddress', message: 'Is not the UMA address of customerId.' }]);
    }
    receiverUmaAddress = customer.umaAddress;
  }
  return receiveSandboxUmaPayment(ctx, {
    receiverUmaAddress: receiverUmaAddress!,
    senderUmaAddress: body.senderUmaAddress,
    amount: BigInt(body.receivingCurrencyAmount),
    currency: body.receivingCurrencyCode,
  });
}

/**
 * GET /receiver/external-account/{accountId} (REF's `receiver.lookupExternalAccount`): what the
 * sender can pay into one of the platform's ACTIVE external accounts — the account's currency, the
 * estimated rate from the sender's first currency, and the platform's limits in that currency.
 * `lookupId` identifies this answer; a quote to an ACCOUNT destination accepts it and needs none.
 * Errors: 400 INVALID_INPUT (no sender), EXTERNAL_ACCOUNT_VERIFICATION_REQUIRED; 404 USER_NOT_FOUND,
 * EXTERNAL_ACCOUNT_NOT_FOUND.
 */
export async function lookupExternalAccount(ctx: Ctx, accountId: string, q: { customerId?: string; senderUmaAddress?: string }) {
  const customerId = ctx.agent ? (q.customerId ?? ctx.agent.customerId) : q.customerId;
  let sender: Customer | null = null;
  if (customerId) sender = await ctx.db.customer.findFirst({ where: { id: customerId } });
  else if (q.senderUmaAddress) sender = await ctx.db.customer.findFirst({ where: { umaAddress: normalizeUmaAddress(q.senderUmaAddress) ?? q.senderUmaAddress } });
  else throw new ValidationError([{ field: 'customerId', message: 'customerId or senderUmaAddress is required.' }]);
  if (!sender || sender.isDeleted || !visibleToCaller(ctx, sender.id)) throw userNotFound();
  const account = await getPayableExternalAccount(ctx, accountId);
  if (account.customerId && account.customerId !== sender.id) throw new NotFoundError('EXTERNAL_ACCOUNT_NOT_FOUND', 'External account not found.');
  const from = sender.currencies[0] ?? account.currency;
  const rate = from === account.currency ? 1 : Number((await getExchangeRate(ctx, from, account.currency)).rate);
  const limits = await ctx.db.platformCurrency.findFirst({ where: { currencyCode: account.currency } });
  if (!limits) throw new BadRequestError('INVALID_CURRENCY', `${account.currency} is not a supported currency of this platform.`);
  return {
    accountId: account.id,
    lookupId: newId('Lookup'),
    supportedCurrencies: [{ currency: currencyOf(account.currency), estimatedExchangeRate: rate, min: Number(limits.minAmount), max: Number(limits.maxAmount) }],
    requiredPayerDataFields: [],
  };
}

/** The whole available balance when REF's optional `amount` is left out. */
async function amountOf(ctx: Ctx, internalAccountId: string, amount: number | undefined): Promise<number> {
  if (amount !== undefined) return amount;
  const account = await getInternalAccount(ctx, internalAccountId);
  if (account.availableBalance <= 0n) throw new BadRequestError('INSUFFICIENT_FUNDS', 'The source account has no available balance.', { accountId: account.id });
  return Number(account.availableBalance);
}

/**
 * POST /transfer-out (REF, deprecated; decision A20 left it out): a same-currency payout from an
 * internal account to an external account, as a quote locked on the sending side and executed at
 * once. REF's `remittanceInformation`, `purposeOfPayment` and `destination.paymentRail` are the quote's
 * own fields, so they reach the rail exactly as a quote's do. Answers the quote's transaction. Errors:
 * those of POST /quotes; 400 INVALID_INPUT when the currencies differ.
 */
export async function transferOut(ctx: Ctx, body: TransferOutBody): Promise<Transaction> {
  if (!body.source.accountId.startsWith('InternalAccount:')) throw new ValidationError([{ field: 'source.accountId', message: 'Must be an internal account.' }]);
  if (!body.destination.accountId.startsWith('ExternalAccount:')) throw new ValidationError([{ field: 'destination.accountId', message: 'Must be an external account.' }]);
  const source = await getInternalAccount(ctx, body.source.accountId);
  const destination = await getPayableExternalAccount(ctx, body.destination.accountId);
  if (destination.currency !== source.currency) {
    throw new ValidationError([{ field: 'destination.accountId', message: `A transfer moves one currency: the source holds ${source.currency}, the destination ${destination.currency}. Use POST /quotes to convert.` }]);
  }
  const amount = await amountOf(ctx, source.id, body.amount);
  const quote = await createQuote(ctx, {
    source: { sourceType: 'ACCOUNT', accountId: source.id },
    destination: { destinationType: 'ACCOUNT', accountId: destination.id, ...(body.destination.paymentRail ? { paymentRail: body.destination.paymentRail } : {}) },
    lockedCurrencySide: 'SENDING',
    lockedCurrencyAmount: amount,
    immediatelyExecute: true,
    ...(body.remittanceInformation !== undefined ? { remittanceInformation: body.remittanceInformation } : {}),
    ...(body.purposeOfPayment !== undefined ? { purposeOfPayment: body.purposeOfPayment } : {}),
  });
  return getTransaction(ctx, quote.transactionId);
}

/**
 * POST /transfer-in (REF, deprecated): pulls money from an external account (ACH pull) into an
 * internal account of the same customer and currency. In the sandbox the pull settles at once
 * (INCOMING, COMPLETED, credited from the rail's clearing account: INTERNAL_ACCOUNT.BALANCE_UPDATED
 * follows from the ledger, INCOMING_PAYMENT.COMPLETED is emitted). No rail of this service pulls
 * in production: 501 NOT_IMPLEMENTED there. Errors: 400 INVALID_INPUT, EXTERNAL_ACCOUNT_VERIFICATION_REQUIRED;
 * 404 NOT_FOUND / EXTERNAL_ACCOUNT_NOT_FOUND.
 */
/** `opts.transactionId`: the id the pull's transaction must have (an agent's TRANSFER_IN derives it from its action, so a pull repeated after a crash is written once: 26c). */
export async function transferIn(ctx: Ctx, body: Omit<TransferBody, 'amount'> & { amount?: number }, opts: { transactionId?: string } = {}): Promise<Transaction> {
  if (!body.source.accountId.startsWith('ExternalAccount:')) throw new ValidationError([{ field: 'source.accountId', message: 'Must be an external account.' }]);
  if (!body.destination.accountId.startsWith('InternalAccount:')) throw new ValidationError([{ field: 'destination.accountId', message: 'Must be an internal account.' }]);
  if (body.amount === undefined) throw new ValidationError([{ field: 'amount', message: 'Required: how much to pull.' }]);
  const external = await getPayableExternalAccount(ctx, body.source.accountId);
  const internal = await getInternalAccount(ctx, body.destination.accountId);
  await assertEndUserTermsAccepted(ctx, internal.customerId);
  await assertAccountsCanMove(ctx, [{ accountId: internal.id, field: 'destination.accountId' }]); // hook:25b
  if (external.customerId !== internal.customerId) throw new ValidationError([{ field: 'source.accountId', message: 'The external account belongs to another owner than the internal account.' }]);
  if (external.currency !== internal.currency) throw new ValidationError([{ field: 'destination.accountId', message: `A transfer moves one currency: the source holds ${external.currency}, the destination ${internal.currency}.` }]);
  if (ctx.config.SVC_ENV !== 'sandbox') throw new NotImplementedError('No payment rail of this deployment can pull from an external account; ask the payer to send to the internal account\'s payment instructions.');
  const customer = internal.customerId ? await ctx.db.customer.findFirst({ where: { id: internal.customerId } }) : null;
  const amount = BigInt(body.amount);
  const id = opts.transactionId ?? newId('Transaction');
  const now = ctx.clock.now();
  const rail = external.paymentRails[0] ?? defaultPaymentRail(external.currency);
  // The payments domain's writer: the transaction with its history, the credit journal, the events.
  return creditIncomingPayment(
    ctx,
    {
      id,
      customerId: internal.customerId,
      platformCustomerId: customer?.platformCustomerId ?? null,
      sourceAccountId: external.id,
      source: { sourceType: 'ACCOUNT', accountId: external.id, currency: external.currency },
      destinationAccountId: internal.id,
      destination: { destinationType: 'ACCOUNT', accountId: internal.id, currency: internal.currency },
      paymentRail: rail,
      identifierLast3: external.identifierLast3,
      sentAmount: amount,
      sendingCurrency: internal.currency,
      receivedAmount: amount,
      receivingCurrency: internal.currency,
      createdAt: now,
    },
    {
      key: `${id}:pull`,
      kind: 'TRANSFER_IN',
      postings: [
        { account: systemAccount('RAIL_CLEARING', internal.currency, rail), bucket: 'SYSTEM', currency: internal.currency, amount: -amount },
        { account: internal.id, bucket: 'AVAILABLE', currency: internal.currency, amount },
      ],
    },
  );
}
