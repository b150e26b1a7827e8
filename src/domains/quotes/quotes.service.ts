import type { Ctx } from '../../deps.js';
import type { TenantTx } from '../../platform/db.js';
import { BadRequestError, ConflictError, ForbiddenError, NotFoundError, NotImplementedError, ValidationError } from '../../platform/errors.js';
import { newId } from '../../platform/ids.js';
import { recordEvent } from '../../platform/outbox.js';
import type { InternalAccount, Quote, Transaction } from '../../generated/prisma/client.js';
import { getInternalAccount } from '../ledger/internal-accounts.service.js';
import { postJournal } from '../ledger/ledger.service.js';
import { getPayableExternalAccount } from '../external-accounts/external-accounts.service.js';
import { applicableFees, defaultPaymentRail, serviceFeeSchedule, validatePlatformFeeOverride } from '../fees/fee-rules.js';
import { priceQuote, type Pricing } from '../fees/pricing.js';
import { getExchangeRate } from '../fees/rates.service.js';
import { FxRateUnavailableError } from '../../adapters/fx/port.js';
import { holdPostings } from '../transactions/settlement.service.js';
import { transitionTransaction } from '../transactions/transactions.repo.js';
import { transactionResource } from '../transactions/transactions.resource.js';
import { enqueueSubmit } from '../transactions/transactions.jobs.js';
import type { CreateQuoteBody } from './quotes.schemas.js';

/** Where the money goes, resolved from the request's destination. */
interface ResolvedDestination {
  kind: 'EXTERNAL' | 'INTERNAL';
  accountId: string;
  currency: string;
  rail: string | null;
  identifierLast3: string | null;
  accountType: string | null;
  customerId: string | null;
}

const field = (f: string, message: string) => new ValidationError([{ field: f, message }]);

async function resolveSource(ctx: Ctx, body: CreateQuoteBody): Promise<InternalAccount & { platformCustomerId: string | null }> {
  if (body.source.sourceType !== 'ACCOUNT') {
    throw new NotImplementedError('Real-time funding sources are not available yet.', { errors: [{ field: 'source.sourceType', message: 'Not implemented.' }] });
  }
  const account = await ctx.db.internalAccount.findUnique({ where: { id: body.source.accountId } });
  if (!account) throw new NotFoundError('NOT_FOUND', 'Source account not found.');
  if (account.status !== 'ACTIVE') throw field('source.accountId', `The source account is ${account.status}.`);
  if (body.source.customerId && body.source.customerId !== account.customerId) throw field('source.customerId', 'Does not own the source account.');
  if (account.customerId) {
    // A21: a customer's money moves only once its KYC/KYB is APPROVED.
    const customer = await ctx.db.customer.findUnique({ where: { id: account.customerId } });
    if (!customer || customer.isDeleted) throw new NotFoundError('USER_NOT_FOUND', 'The source account\'s customer was not found.');
    if (customer.status !== 'APPROVED') throw new ForbiddenError('USER_NOT_READY', `The customer's verification status is ${customer.status}; money movement needs APPROVED.`);
    return { ...account, platformCustomerId: customer.platformCustomerId };
  }
  return { ...account, platformCustomerId: null };
}

async function resolveDestination(ctx: Ctx, body: CreateQuoteBody, source: InternalAccount): Promise<ResolvedDestination> {
  const d = body.destination;
  if (d.destinationType !== 'ACCOUNT') {
    throw new NotImplementedError('UMA destinations are not available yet.', { errors: [{ field: 'destination.destinationType', message: 'Not implemented.' }] });
  }
  if (d.accountId.startsWith('InternalAccount:')) {
    const target = await ctx.db.internalAccount.findUnique({ where: { id: d.accountId } });
    if (!target) throw new NotFoundError('NOT_FOUND', 'Destination account not found.');
    if (target.id === source.id) throw new BadRequestError('SELF_PAYMENT', 'The source and destination are the same account.', { errors: [{ field: 'destination.accountId', message: 'Same as the source.' }] });
    if (target.status !== 'ACTIVE') throw field('destination.accountId', `The destination account is ${target.status}.`);
    if (d.paymentRail) throw field('destination.paymentRail', 'Transfers between internal accounts take no payment rail.');
    return { kind: 'INTERNAL', accountId: target.id, currency: target.currency, rail: null, identifierLast3: null, accountType: null, customerId: target.customerId };
  }
  const ext = await getPayableExternalAccount(ctx, d.accountId);
  if (ext.customerId && source.customerId && ext.customerId !== source.customerId) {
    throw field('destination.accountId', "The external account belongs to another customer.");
  }
  const rails = ext.paymentRails;
  const rail = d.paymentRail ?? rails[0] ?? defaultPaymentRail(ext.currency);
  if (d.paymentRail && rails.length > 0 && !rails.includes(d.paymentRail)) {
    throw new ValidationError([{ field: 'destination.paymentRail', constraint: { enum: rails }, message: `The account takes ${rails.join(', ')}.` }]);
  }
  return { kind: 'EXTERNAL', accountId: ext.id, currency: ext.currency, rail, identifierLast3: ext.identifierLast3, accountType: ext.accountType, customerId: ext.customerId };
}

/** A12: per-currency bounds of the platform's configuration. */
async function checkLimits(ctx: Ctx, sendingCurrency: string, receivingCurrency: string, p: Pricing): Promise<void> {
  const configs = await ctx.db.platformCurrency.findMany({ where: { currencyCode: { in: [sendingCurrency, receivingCurrency] } } });
  const sending = configs.find((c) => c.currencyCode === sendingCurrency);
  if (!sending) throw new BadRequestError('INVALID_CURRENCY', `${sendingCurrency} is not a supported currency of this platform.`, { errors: [{ field: 'source.accountId', message: `Currency ${sendingCurrency} is not enabled.` }] });
  const receiving = configs.find((c) => c.currencyCode === receivingCurrency);
  if (p.totalSendingAmount < sending.minAmount) {
    throw new BadRequestError('AMOUNT_OUT_OF_RANGE', `The sending amount is below the minimum of ${sending.minAmount} ${sendingCurrency}.`, { minAmount: Number(sending.minAmount), currency: sendingCurrency });
  }
  if (p.totalSendingAmount > sending.maxAmount || (receiving && p.totalReceivingAmount > receiving.maxAmount)) {
    const max = p.totalSendingAmount > sending.maxAmount ? { maxAmount: Number(sending.maxAmount), currency: sendingCurrency } : { maxAmount: Number(receiving!.maxAmount), currency: receivingCurrency };
    throw new BadRequestError('TRANSACTION_SIZE_LIMIT_EXCEEDED', `The amount exceeds the single-transaction maximum of ${max.maxAmount} ${max.currency}.`, max);
  }
}

async function price(ctx: Ctx, body: CreateQuoteBody, sendingCurrency: string, dest: ResolvedDestination): Promise<Pricing> {
  const override = body.platformFeeOverride === undefined ? undefined : validatePlatformFeeOverride(body.platformFeeOverride, sendingCurrency);
  const configs = await ctx.db.feeConfig.findMany({ where: { active: true } });
  const fees = applicableFees({ configs, override, sendingCurrency, receivingCurrency: dest.currency, rail: dest.rail, service: serviceFeeSchedule(ctx.config) });
  const rate = sendingCurrency === dest.currency ? { rate: '1' } : await getExchangeRate(ctx, sendingCurrency, dest.currency).catch((err) => {
    if (err instanceof FxRateUnavailableError) {
      throw err.retryable
        ? new BadRequestError('QUOTE_REQUEST_FAILED', 'No exchange rate is available right now; retry shortly.')
        : new BadRequestError('INVALID_CURRENCY', `${sendingCurrency} to ${dest.currency} is not a supported corridor.`);
    }
    throw err;
  });
  const pricing = priceQuote({
    lockedSide: body.lockedCurrencySide,
    lockedAmount: BigInt(body.lockedCurrencyAmount),
    sendingCurrency,
    receivingCurrency: dest.currency,
    rate: rate.rate,
    platformFee: fees.platformFee,
    serviceFee: fees.serviceFee,
  });
  if (pricing.platformFee > 0n) {
    // Spec "Platform fees": a fee the settling flow cannot deliver is rejected at creation.
    const feeAccount = await ctx.db.internalAccount.findFirst({ where: { customerId: null, currency: sendingCurrency } });
    if (!feeAccount) throw new BadRequestError('PLATFORM_FEE_ACCOUNT_MISSING', `The platform has no ${sendingCurrency} internal account to receive its fee.`);
  }
  return pricing;
}

/**
 * POST /quotes. Prices the payment, creates the quote and its PENDING transaction (and, with
 * `immediatelyExecute`, holds the funds in the same database transaction).
 * Errors: 400 INVALID_INPUT, SELF_PAYMENT, AMOUNT_OUT_OF_RANGE, TRANSACTION_SIZE_LIMIT_EXCEEDED,
 * INVALID_CURRENCY, EXTERNAL_ACCOUNT_VERIFICATION_REQUIRED, INSUFFICIENT_FUNDS (immediate), PLATFORM_FEE_ACCOUNT_MISSING;
 * 403 USER_NOT_READY; 404; 501 NOT_IMPLEMENTED.
 */
export async function createQuote(ctx: Ctx, body: CreateQuoteBody): Promise<Quote> {
  const source = await resolveSource(ctx, body);
  const dest = await resolveDestination(ctx, body, source);
  if (body.destination.currency && body.destination.currency !== dest.currency) throw field('destination.currency', `The destination account holds ${dest.currency}.`);
  if (dest.kind === 'EXTERNAL' && !body.purposeOfPayment && ctx.config.PURPOSE_OF_PAYMENT_REQUIRED_CURRENCIES.includes(dest.currency)) {
    throw new ValidationError([{ field: 'purposeOfPayment', message: `Payments in ${dest.currency} need a purpose of payment.` }]);
  }
  const pricing = await price(ctx, body, source.currency, dest);
  await checkLimits(ctx, source.currency, dest.currency, pricing);

  const now = ctx.clock.now();
  const quoteId = newId('Quote');
  const transactionId = newId('Transaction');
  const sourceJson = { sourceType: 'ACCOUNT', accountId: source.id, currency: source.currency, ...(source.customerId ? { customerId: source.customerId } : {}) };
  const destinationJson = { destinationType: 'ACCOUNT', accountId: dest.accountId, currency: dest.currency, ...(dest.rail ? { paymentRail: dest.rail } : {}) };
  const common = {
    customerId: source.customerId,
    sourceAccountId: source.id,
    source: sourceJson,
    destination: destinationJson,
    destinationKind: dest.kind,
    destinationAccountId: dest.accountId,
    paymentRail: dest.rail,
    sendingCurrency: source.currency,
    receivingCurrency: dest.currency,
    exchangeRate: pricing.exchangeRate,
    description: body.description ?? null,
    remittanceInformation: body.remittanceInformation ?? null,
    purposeOfPayment: body.purposeOfPayment ?? null,
    createdAt: now,
    updatedAt: now,
  };
  const quote = await ctx.db.$transaction(async (tx) => {
    await tx.quote.create({
      data: {
        id: quoteId,
        status: 'PENDING',
        lockedSide: body.lockedCurrencySide,
        lockedAmount: BigInt(body.lockedCurrencyAmount),
        totalSendingAmount: pricing.totalSendingAmount,
        totalReceivingAmount: pricing.totalReceivingAmount,
        feesIncluded: pricing.feesIncluded,
        platformFeesIncluded: pricing.platformFee,
        serviceFeesIncluded: pricing.serviceFee,
        senderCustomerInfo: (body.senderCustomerInfo ?? undefined) as any,
        transactionId,
        expiresAt: new Date(now.getTime() + ctx.config.QUOTE_TTL_SECONDS * 1000),
        ...common,
      } as any,
    });
    const t = await tx.transaction.create({
      data: {
        id: transactionId,
        quoteId,
        status: 'PENDING',
        type: 'OUTGOING',
        direction: 'DEBIT',
        identifierLast3: dest.identifierLast3,
        platformCustomerId: source.platformCustomerId,
        sentAmount: pricing.totalSendingAmount,
        receivedAmount: pricing.totalReceivingAmount,
        fees: pricing.feesIncluded,
        platformFees: pricing.platformFee,
        serviceFees: pricing.serviceFee,
        ...common,
      } as any,
    });
    await recordEvent(tx, 'OUTGOING_PAYMENT.PENDING', transactionResource(t));
    if (body.immediatelyExecute) await holdAndProcess(ctx, tx, t);
    return tx.quote.findUniqueOrThrow({ where: { id: quoteId } });
  });
  if (body.immediatelyExecute) await enqueueSubmit(ctx, { platformId: ctx.platformId, transactionId });
  return quote;
}

/** Holds the sending amount and moves the transaction to PROCESSING, in the caller's transaction. */
async function holdAndProcess(ctx: Ctx, tx: TenantTx, t: Transaction): Promise<void> {
  // Status first: the compare-and-set turns away a second execute before it touches the balance,
  // and the account row is locked only for the tail of the transaction.
  await transitionTransaction(ctx, tx, t, 'execute');
  await postJournal(ctx, tx, { key: `${t.id}:hold`, kind: 'PAYMENT_HOLD', referenceId: t.id, postings: holdPostings(t) });
}

/** Errors: 404 QUOTE_NOT_FOUND (also another platform's quote). */
export async function getQuote(ctx: Ctx, id: string): Promise<Quote> {
  const q = await ctx.db.quote.findUnique({ where: { id } });
  if (!q) throw new NotFoundError('QUOTE_NOT_FOUND', 'Quote not found.');
  return q;
}

/**
 * POST /quotes/{id}/execute: holds the funds and starts the transfer, exactly once. The status
 * compare-and-set and the hold are one database transaction: a concurrent second execute loses
 * the race and moves nothing; an insufficient balance rolls back both.
 * Errors: 404 QUOTE_NOT_FOUND; 409 QUOTE_EXPIRED, QUOTE_NOT_PENDING; 400 INSUFFICIENT_FUNDS.
 */
export async function executeQuote(ctx: Ctx, id: string): Promise<Quote> {
  const quote = await getQuote(ctx, id);
  if (quote.status === 'PENDING' && quote.expiresAt <= ctx.clock.now()) {
    throw new ConflictError('QUOTE_EXPIRED', 'The quote expired; create a new one.', { expiresAt: quote.expiresAt.toISOString() });
  }
  if (quote.status !== 'PENDING') throw new ConflictError('QUOTE_NOT_PENDING', `The quote is ${quote.status}; only a PENDING quote can be executed.`, { status: quote.status });
  await ctx.db.$transaction(async (tx) => {
    const t = await tx.transaction.findUniqueOrThrow({ where: { id: quote.transactionId } });
    if (t.status !== 'PENDING') throw new ConflictError('QUOTE_NOT_PENDING', `The quote is ${t.status}; only a PENDING quote can be executed.`, { status: t.status });
    await holdAndProcess(ctx, tx, t);
  }).catch((err) => {
    // A concurrent execute won the compare-and-set.
    if (err?.code === 'INVALID_STATE_TRANSITION') throw new ConflictError('QUOTE_NOT_PENDING', 'The quote was already executed.');
    throw err;
  });
  await enqueueSubmit(ctx, { platformId: ctx.platformId, transactionId: quote.transactionId });
  return getQuote(ctx, id);
}
