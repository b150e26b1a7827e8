import type { AgentActor, Ctx } from '../../deps.js';
import { requireWalletStamp, walletExecutionInstructions } from '../wallet/index.js'; // hook:28
import type { SignatureHeaders } from '../signing/index.js'; // hook:28
import { poolOf, type TenantTx } from '../../platform/db.js';
import { rowById } from '../../platform/raw-rows.js';
import { BadRequestError, ConflictError, ForbiddenError, NotFoundError, ValidationError } from '../../platform/errors.js';
import { newId } from '../../platform/ids.js';
import { getConfig } from '../platforms/index.js';
import { noteIdempotentResource } from '../../platform/idempotency.js';
import { visibleToCaller } from '../../platform/agent-scope.js';
import { onBehalfOf } from './quotes.fbo.js'; // hook:25c
import type { Customer, InternalAccount, Quote, Transaction } from '../../generated/prisma/client.js';
import { getPayableExternalAccount } from '../external-accounts/index.js';
import { applicableFees, defaultPaymentRail, serviceFeeSchedule, validatePlatformFeeOverride, priceQuoteForWire, type Pricing, getExchangeRate } from '../fees/index.js';
import { FxRateUnavailableError } from '../../adapters/fx/port.js';
import { assertEndUserTermsAccepted } from '../customers/index.js';
import { assertScaFactorServed } from './quotes.sca-factor.js';
import { railChoice } from './ref-reads.js';
import { enqueueSubmit } from './transactions.jobs.js';
import { awaitApprovalIn, insertPendingQuote, insertPendingQuoteIn, insertStartedPayment, startPaymentIn, startPendingPayment } from './money-path.repo.js';
import type { StatementPart } from '../../platform/one-statement.js';
import { Prisma } from '../../generated/prisma/client.js';
import { admitAgentExecution, announcePendingAction, assertWithinTransactionLimit, toPolicyAmount } from '../agents/index.js';
import { quoteResource } from './quotes.resource.js';
import { quoteChallengeConsumption, requireScaSession, verifyQuoteChallenge } from '../sca/index.js';
import { requireQuoteAuthorization } from './quotes.authorization.js';
import type { CreateQuoteBody } from './quotes.schemas.js';
import { assertDestinationVisible, checkUmaLimits, requestUmaPayment, resolveUmaDestination, type ResolvedDestination } from './quotes.destinations.js';
import { fundingInstructions, resolveRealtimeSource, fundingInstructionRows, type ResolvedRealtimeSource } from './quotes.funding.js';
import { feeSplitColumns, type FeeSplitColumns } from './rate-details.js';
import { beforeMovement, immediateVolume, withinDailyVolume } from './quotes.limits.js'; // hook:25b

const field = (f: string, message: string) => new ValidationError([{ field: f, message }]);

type ResolvedSource = InternalAccount & { platformCustomerId: string | null; realtime?: ResolvedRealtimeSource; customer?: Customer };

async function resolveSource(ctx: Ctx, body: CreateQuoteBody): Promise<ResolvedSource> {
  if (body.source.sourceType === 'REALTIME_FUNDING') {
    const realtime = await resolveRealtimeSource(ctx, body);
    return { ...realtime, realtime };
  }
  // Issue 12: the money path's reads as prepared raw statements (Prisma's query path costs more CPU than the statement).
  const account = await rowById<InternalAccount>(poolOf(ctx.prisma), 'internal_accounts', ctx.platformId, body.source.accountId);
  // An agent acts for one customer (A17): other accounts do not exist for it.
  if (!account || !visibleToCaller(ctx, account.customerId)) throw new NotFoundError('NOT_FOUND', 'Source account not found.');
  if (account.status !== 'ACTIVE') throw field('source.accountId', `The source account is ${account.status}.`);
  if (body.source.customerId && body.source.customerId !== account.customerId) return onBehalfOf(ctx, account, body.source.customerId); // hook:25c — REF's FBO funding
  if (account.customerId) {
    // A21: a customer's money moves only once its KYC/KYB is APPROVED.
    const customer = await rowById<Customer>(poolOf(ctx.prisma), 'customers', ctx.platformId, account.customerId);
    if (!customer || customer.isDeleted) throw new NotFoundError('USER_NOT_FOUND', 'The source account\'s customer was not found.');
    if (customer.status !== 'APPROVED') throw new ForbiddenError('USER_NOT_READY', `The customer's verification status is ${customer.status}; money movement needs APPROVED.`);
    return Object.assign({ platformCustomerId: customer.platformCustomerId, customer }, account);
  }
  return Object.assign({ platformCustomerId: null }, account);
}

async function resolveDestination(ctx: Ctx, body: CreateQuoteBody, source: InternalAccount): Promise<ResolvedDestination> {
  const d = body.destination;
  if (d.destinationType === 'UMA_ADDRESS') return resolveUmaDestination(ctx, body, source);
  if (d.accountId.startsWith('InternalAccount:')) {
    const target = await ctx.db.internalAccount.findFirst({ where: { id: d.accountId } });
    if (!target) throw new NotFoundError('NOT_FOUND', 'Destination account not found.');
    assertDestinationVisible(ctx, target.customerId);
    if (target.id === source.id) throw new BadRequestError('SELF_PAYMENT', 'The source and destination are the same account.', { errors: [{ field: 'destination.accountId', message: 'Same as the source.' }] });
    if (target.status !== 'ACTIVE') throw field('destination.accountId', `The destination account is ${target.status}.`);
    if (d.paymentRail) throw field('destination.paymentRail', 'Transfers between internal accounts take no payment rail.');
    return { kind: 'INTERNAL', accountId: target.id, currency: target.currency, rail: null, identifierLast3: null, accountType: null, customerId: target.customerId, wire: { destinationType: 'ACCOUNT', accountId: target.id, currency: target.currency } };
  }
  const ext = await getPayableExternalAccount(ctx, d.accountId);
  assertDestinationVisible(ctx, ext.customerId);
  if (ext.customerId && source.customerId && ext.customerId !== source.customerId) {
    throw field('destination.accountId', "The external account belongs to another customer.");
  }
  const rails = ext.paymentRails;
  const rail = d.paymentRail ?? rails[0] ?? defaultPaymentRail(ext.currency);
  if (d.paymentRail && rails.length > 0 && !rails.includes(d.paymentRail)) {
    throw new ValidationError([{ field: 'destination.paymentRail', constraint: { enum: rails }, message: `The account takes ${rails.join(', ')}.` }]);
  }
  return { kind: 'EXTERNAL', accountId: ext.id, currency: ext.currency, rail, identifierLast3: ext.identifierLast3, accountType: ext.accountType, customerId: ext.customerId, wire: { destinationType: 'ACCOUNT', accountId: ext.id, currency: ext.currency, paymentRail: rail } };
}

/** A12: per-currency bounds of the platform's configuration. */
async function checkLimits(ctx: Ctx, sendingCurrency: string, receivingCurrency: string, p: Pricing): Promise<void> {
  const { currencies: configs } = await getConfig(ctx);
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
  const { feeConfigs: configs } = await getConfig(ctx);
  const fees = applicableFees({ configs, override, sendingCurrency, receivingCurrency: dest.currency, rail: dest.rail, service: serviceFeeSchedule(ctx.config) });
  const rate = sendingCurrency === dest.currency ? { rate: '1' } : await getExchangeRate(ctx, sendingCurrency, dest.currency).catch((err) => {
    if (err instanceof FxRateUnavailableError) {
      throw err.retryable
        ? new BadRequestError('QUOTE_REQUEST_FAILED', 'No exchange rate is available right now; retry shortly.')
        : new BadRequestError('INVALID_CURRENCY', `${sendingCurrency} to ${dest.currency} is not a supported corridor.`);
    }
    throw err;
  });
  const pricing = priceQuoteForWire({
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
 * `immediatelyExecute`, starts it in the same database transaction). UMA destinations get the
 * receiver's pay-request terms; real-time funded quotes get their payment instructions. An agent's
 * quote is checked against its per-transaction maximum.
 * Errors: 400 INVALID_INPUT, SELF_PAYMENT, AMOUNT_OUT_OF_RANGE, TRANSACTION_SIZE_LIMIT_EXCEEDED,
 * INVALID_CURRENCY, EXTERNAL_ACCOUNT_VERIFICATION_REQUIRED, INSUFFICIENT_FUNDS (immediate), PLATFORM_FEE_ACCOUNT_MISSING,
 * INVALID_UMA_ADDRESS, MISSING_MANDATORY_USER_INFO, the UMA counterparty codes; 403 USER_NOT_READY,
 * VELOCITY_LIMIT_EXCEEDED; 404 (LOOKUP_REQUEST_NOT_FOUND); 424; 501 NOT_IMPLEMENTED.
 */
export async function createQuote(ctx: Ctx, body: CreateQuoteBody): Promise<Quote> {
  assertScaFactorServed(body.scaFactor); // hook:25a
  const parties = await resolveParties(ctx, body);
  const priced = await priceAndCheck(ctx, body, parties);
  const terms = await quoteTerms(ctx, body, parties, priced.pricing);
  // Checks before any money moves (volume limits, frozen accounts, end-user terms) belong here, before persistQuote.
  return persistQuote(ctx, body, parties, priced, terms);
}

/** Who pays whom: the source (and its customer), the SCA session it needs, the destination. */
interface Parties {
  source: ResolvedSource;
  dest: ResolvedDestination;
  /** The customer's live SCA session: the payment then waits for POST /quotes/{id}/authorize. */
  sca: Awaited<ReturnType<typeof requireScaSession>>;
}

async function resolveParties(ctx: Ctx, body: CreateQuoteBody): Promise<Parties> {
  const source = await resolveSource(ctx, body);
  await assertEndUserTermsAccepted(ctx, source.customer ?? source.customerId); // hook:25a
  // Spec Authentication 4: an SCA customer needs a live session (409 SCA_SESSION_REQUIRED), and its
  // payment waits in PENDING_AUTHORIZATION for POST /quotes/{id}/authorize (src/domains/sca).
  const sca = await requireScaSession(ctx, source.customer ?? source.customerId);
  const dest = await resolveDestination(ctx, body, source);
  if (body.destination.currency && body.destination.currency !== dest.currency) throw field('destination.currency', `The destination account holds ${dest.currency}.`);
  if (dest.kind !== 'INTERNAL' && !body.purposeOfPayment && ctx.config.PURPOSE_OF_PAYMENT_REQUIRED_CURRENCIES.includes(dest.currency)) {
    throw new ValidationError([{ field: 'purposeOfPayment', message: `Payments in ${dest.currency} need a purpose of payment.` }]);
  }
  return { source, dest, sca };
}

/** The price, checked against the platform's bounds, the UMA receiver's and an agent's maximum. */
/** The price and what it is checked against; `railReads`: the rail chosen and its timing (issue 25). */
interface Priced {
  pricing: Pricing;
  agentAmount?: bigint;
  railReads: ReturnType<typeof railChoice>;
}

async function priceAndCheck(ctx: Ctx, body: CreateQuoteBody, { source, dest }: Parties): Promise<Priced> {
  const pricing = await price(ctx, body, source.currency, dest);
  await checkLimits(ctx, source.currency, dest.currency, pricing);
  const railReads = railChoice(dest.kind === 'INTERNAL' ? null : dest.rail, body.destination.destinationType === 'ACCOUNT' ? body.destination.paymentRail : null, (r) => ctx.adapters.rails.expectedSettlementMs(r)); // hook:25a
  checkUmaLimits(dest, pricing);
  if (!ctx.agent) return { pricing, railReads };
  const agentAmount = await toPolicyAmount(ctx, ctx.agent, pricing.totalSendingAmount, source.currency);
  assertWithinTransactionLimit(ctx.agent, agentAmount, source.id);
  return { pricing, agentAmount, railReads };
}

/** The quote's ids, expiry, UMA terms, funding instructions and the columns its quote and transaction share. */
interface QuoteTerms {
  quoteId: string;
  transactionId: string;
  expiresAt: Date;
  umaPayment?: Awaited<ReturnType<typeof requestUmaPayment>>;
  instructions: ReturnType<typeof fundingInstructions>;
  common: QuoteCommon;
}

async function quoteTerms(ctx: Ctx, body: CreateQuoteBody, { source, dest }: Parties, pricing: Pricing): Promise<QuoteTerms> {
  const now = ctx.clock.now();
  const quoteId = newId('Quote');
  const transactionId = newId('Transaction');
  noteIdempotentResource(ctx, quoteId);
  const umaPayment = dest.uma ? await requestUmaPayment(ctx, quoteId, dest, pricing.totalReceivingAmount, body.senderCustomerInfo) : undefined;
  const ttlSeconds = source.realtime ? ctx.config.REALTIME_FUNDING_TTL_SECONDS : ctx.config.QUOTE_TTL_SECONDS;
  let expiresAt = new Date(now.getTime() + ttlSeconds * 1000);
  // The receiver holds its terms only so long: the quote cannot outlive them.
  if (umaPayment && new Date(umaPayment.termsExpireAt) < expiresAt) expiresAt = new Date(umaPayment.termsExpireAt);
  const instructions = source.realtime ? fundingInstructions(ctx, source.realtime, quoteId, pricing.totalSendingAmount, now, expiresAt) : [];
  const walletInstructions = await walletExecutionInstructions(ctx, source, { quoteId, amount: pricing.totalSendingAmount, currency: source.currency, immediatelyExecute: body.immediatelyExecute }); // hook:28
  const common = commonColumns(ctx, body, source, dest, pricing, { now, instructions, walletInstructions, multiplier: umaPayment?.multiplier });
  return { quoteId, transactionId, expiresAt, umaPayment, instructions, common };
}

/** The columns a quote and its transaction share. */
function commonColumns(
  ctx: Ctx,
  body: CreateQuoteBody,
  source: ResolvedSource,
  dest: ResolvedDestination,
  pricing: Pricing,
  o: { now: Date; instructions: ReturnType<typeof fundingInstructions>; walletInstructions: Awaited<ReturnType<typeof walletExecutionInstructions>>; multiplier?: number },
): QuoteCommon {
  const sourceJson = source.realtime
    ? { sourceType: 'REALTIME_FUNDING', currency: source.currency, ...(source.customerId ? { customerId: source.customerId } : {}), ...(body.source.sourceType === 'REALTIME_FUNDING' && body.source.cryptoNetwork ? { cryptoNetwork: body.source.cryptoNetwork.toUpperCase() } : {}) }
    : { sourceType: 'ACCOUNT', accountId: source.id, currency: source.currency, ...(source.customerId ? { customerId: source.customerId } : {}) };
  // Object.assign, not a spread, adds the fee columns (and the rows' shared columns, pendingRows): keys
  // added to an object after a spread cost Node 20's V8 a new hidden class each (docs/decisions.md, 24m).
  const shared = {
    customerId: source.customerId,
    sourceAccountId: source.id,
    source: sourceJson,
    destination: dest.wire,
    destinationKind: dest.kind,
    destinationAccountId: dest.accountId,
    paymentRail: dest.rail,
    sendingCurrency: source.currency,
    receivingCurrency: dest.currency,
    exchangeRate: pricing.exchangeRate,
    description: body.description ?? null,
    remittanceInformation: body.remittanceInformation ?? null,
    purposeOfPayment: body.purposeOfPayment ?? null,
    agentId: ctx.agent?.agentId ?? null,
    // REF's paymentInstructions and rateDetails (the fee split's columns), on the quote and its transaction alike (issue 13).
    paymentInstructions: [...o.instructions.map((i) => i.wire), ...o.walletInstructions] as QuoteCommon['paymentInstructions'], // hook:28
    createdAt: o.now,
    updatedAt: o.now,
  };
  return Object.assign(shared, feeSplitColumns(pricing, source.currency, dest.currency, o.multiplier));
}

/**
 * Writes the quote. A platform's prefunded immediate payment is inserted already started, by the
 * payments' one statement (money-path.repo.ts insertStartedPayment); any other quote is created PENDING,
 * then waits for SCA authorization or starts through beginExecution, in one transaction.
 */
async function persistQuote(ctx: Ctx, body: CreateQuoteBody, parties: Parties, priced: Priced, terms: QuoteTerms): Promise<Quote> {
  const { source, dest, sca } = parties;
  const pending = pendingRows(ctx, body, parties, priced, terms);
  if (body.immediatelyExecute && !sca && !ctx.agent && !source.realtime && !terms.umaPayment) {
    const { quote } = await withinDailyVolume(ctx, immediateVolume(body, pending.quote), () => insertStartedPayment(ctx, pending)); // hook:25b
    await enqueueSubmit(ctx, { platformId: ctx.platformId, transactionId: terms.transactionId });
    return quote;
  }
  const volume = immediateVolume(body, { sendingCurrency: source.currency, receivingCurrency: dest.currency, totalSendingAmount: priced.pricing.totalSendingAmount }); // hook:25b
  const instructions = fundingInstructionRows(ctx.platformId, terms.quoteId, terms.instructions, terms.common.createdAt);
  // A quote that only waits (for its execute, its deposit): written by one statement with its key's record.
  if (!sca && !body.immediatelyExecute) return (await withinDailyVolume(ctx, volume, () => insertPendingQuote(ctx, pending, instructions))).quote; // hook:25b
  const created = await withinDailyVolume(ctx, volume, () => ctx.db.$transaction(async (tx) => { // hook:25b
    const t = await insertPendingQuoteIn(ctx, tx, pending, instructions);
    let afterCommit: (() => Promise<void>) | undefined;
    if (sca) afterCommit = await requireQuoteAuthorization(ctx, tx, t);
    else if (body.immediatelyExecute) afterCommit = (await beginExecution(ctx, tx, t, { by: 'EXECUTE', agent: ctx.agent, agentAmount: priced.agentAmount })).afterCommit;
    return { quote: await tx.quote.findFirstOrThrow({ where: { id: terms.quoteId } }), afterCommit };
  }));
  if (created.afterCommit) await created.afterCommit();
  return created.quote;
}

type QuoteCommon = Pick<Quote, 'customerId' | 'sourceAccountId' | 'destinationKind' | 'destinationAccountId' | 'paymentRail' | 'sendingCurrency' | 'receivingCurrency' | 'exchangeRate' | 'description' | 'remittanceInformation' | 'purposeOfPayment' | 'agentId' | 'paymentInstructions' | 'createdAt' | 'updatedAt'> &
  FeeSplitColumns & { source: object; destination: object };

/** The PENDING quote and transaction rows, as the database holds them. */
function pendingRows(ctx: Ctx, body: CreateQuoteBody, { source, dest }: Parties, { pricing, railReads }: Priced, terms: QuoteTerms): { quote: Quote; transaction: Transaction } {
  const i = { quoteId: terms.quoteId, transactionId: terms.transactionId, expiresAt: terms.expiresAt, common: terms.common, body, pricing, source, dest, railReads };
  const uma = terms.umaPayment as (Quote['umaPayment'] & { counterpartyInformation?: Transaction['counterpartyInformation'] }) | undefined;
  // The shared columns added by Object.assign (commonColumns): the rows' own keys are disjoint from them.
  const quote: Quote = Object.assign({
    id: i.quoteId,
    platformId: ctx.platformId,
    status: 'PENDING',
    lockedSide: i.body.lockedCurrencySide,
    lockedAmount: BigInt(i.body.lockedCurrencyAmount),
    totalSendingAmount: i.pricing.totalSendingAmount,
    totalReceivingAmount: i.pricing.totalReceivingAmount,
    feesIncluded: i.pricing.feesIncluded,
    platformFeesIncluded: i.pricing.platformFee,
    serviceFeesIncluded: i.pricing.serviceFee,
    senderCustomerInfo: (i.body.senderCustomerInfo ?? null) as Quote['senderCustomerInfo'],
    transactionId: i.transactionId,
    // Written by the insert trigger quotes_born from destination.umaAddress (issue 30); the same value here.
    destinationUmaAddress: ((i.common.destination as { umaAddress?: string }).umaAddress ?? null),
    expiresAt: i.expiresAt,
    executedAt: null,
    lookupId: dest.uma?.lookupId ?? null,
    umaPayment: uma ?? null,
    funding: source.realtime ? 'REALTIME' as const : 'ACCOUNT' as const,
  }, i.common);
  const transaction: Transaction = Object.assign({
    id: i.transactionId,
    platformId: ctx.platformId,
    quoteId: i.quoteId,
    platformCustomerId: i.source.platformCustomerId,
    status: 'PENDING',
    type: 'OUTGOING',
    direction: 'DEBIT',
    identifierLast3: i.dest.identifierLast3,
    sentAmount: i.pricing.totalSendingAmount,
    receivedAmount: i.pricing.totalReceivingAmount,
    fees: i.pricing.feesIncluded,
    platformFees: i.pricing.platformFee,
    serviceFees: i.pricing.serviceFee,
    failureReason: null,
    railReference: null,
    submittedAt: null,
    reconcileAfter: null,
    settledAt: null,
    refundStatus: null,
    refundReference: null,
    refundReason: null,
    refundInitiatedAt: null,
    refundSettledAt: null,
    pendingReason: null,
    approvalRequestedAt: null,
    agentCountedAmount: null,
    counterpartyInformation: uma?.counterpartyInformation ?? null,
    railSelectionMode: i.railReads.railSelectionMode, // hook:25a
    settlementTimelineSeconds: i.railReads.settlementTimelineSeconds, // hook:25a
    receiptDeliveryConfirmedAt: null,
  }, i.common);
  return { quote, transaction };
}

/**
 * Starts an execution in the caller's transaction. A platform's execution holds and processes. An
 * agent's (its own call, or the deposit of a real-time quote it created) is counted against its daily limit first; above its approval threshold it only waits for
 * the platform (A17, pendingReason PLATFORM_APPROVAL): nothing is held until approval, and the
 * quote stays valid for AGENT_APPROVAL_WINDOW_SECONDS, after which it expires.
 */
async function startExecution(ctx: Ctx, tx: TenantTx, t: Transaction, agent: AgentActor | undefined, agentAmount: bigint | undefined): Promise<'PROCESSING' | 'AWAITING_APPROVAL'> {
  if (!agent) {
    await startPaymentIn(ctx, tx, t, { event: 'execute', hold: true });
    return 'PROCESSING';
  }
  const now = ctx.clock.now();
  const admitted = await admitAgentExecution(ctx, tx, agent, t, agentAmount!, now); // issue 26: usage counted, AgentAction recorded
  const agentFields = { agentId: agent.agentId, agentCountedAmount: agentAmount! };
  if (admitted.needsApproval) {
    // Announced as a PENDING transaction carrying pendingReason PLATFORM_APPROVAL (money-path.repo.ts, the payments' writer).
    await awaitApprovalIn(ctx, tx, t, { ...agentFields, requestedAt: now, windowMs: ctx.config.AGENT_APPROVAL_WINDOW_SECONDS * 1000 });
    await announcePendingAction(tx, admitted.action, t.platformCustomerId, quoteResource(await tx.quote.findFirstOrThrow({ where: { id: t.quoteId! } }))); // issue 26
    return 'AWAITING_APPROVAL';
  }
  await startPaymentIn(ctx, tx, t, { event: 'execute', hold: true, set: agentFields });
  return 'PROCESSING';
}

/**
 * What begins the execution of a payment (issue 12: every start goes through `beginExecution`):
 *   EXECUTE    POST /quotes/{id}/execute, or POST /quotes with `immediatelyExecute`
 *   FUNDING    the exact deposit of a real-time funded quote (src/domains/funding)
 *   AUTHORIZE  POST /quotes/{id}/authorize with a verified SCA code (authorizeQuote)
 *   APPROVAL   POST /transactions/{id}/approve: the platform approves an agent's payment
 *   INCOMING   the platform's approval of an incoming payment that waited for it (REF's handshake, incoming-approval.ts);
 *              one that needs no approval is written already started (transactions.incoming.ts, insertIncoming)
 * An agent's EXECUTE or FUNDING (`agent`, with `agentAmount` in its policy currency) follows its policy. A platform's
 * EXECUTE of a prefunded quote without SCA has its one-statement form (money-path.repo.ts: the same transition, hold,
 * history and events in one SQL statement), which createQuote and executeQuote take first.
 */
export type ExecutionTrigger =
  | { by: 'EXECUTE' | 'FUNDING'; agent?: AgentActor; agentAmount?: bigint }
  | { by: 'AUTHORIZE'; challenge: StatementPart }
  | { by: 'APPROVAL' | 'INCOMING' };

export interface ExecutionStart {
  /** PROCESSING: funds held (outgoing), to be submitted to the rail; AWAITING_APPROVAL: an agent's payment waits for the platform. */
  status: 'PROCESSING' | 'AWAITING_APPROVAL';
  /** To run after the caller's commit: queues the rail submission of a PROCESSING payment. */
  afterCommit: () => Promise<void>;
}

/**
 * The one entry point that begins a payment's execution, in the caller's database transaction (with whatever
 * else must commit with it: the quote, the deposit, the consumed SCA challenge). Outgoing payments are held and
 * move to PROCESSING (`authorize` from PENDING_AUTHORIZATION, `execute` from PENDING); an incoming one moves to
 * PROCESSING with nothing to hold (its money waits in clearing). The caller runs `afterCommit` once committed.
 * Errors: 400 INSUFFICIENT_FUNDS, TRANSACTION_SIZE_LIMIT_EXCEEDED; 403 VELOCITY_LIMIT_EXCEEDED; 409 QUOTE_NOT_PENDING
 * (an agent's payment already waiting for approval); INVALID_STATE_TRANSITION (a lost race: the caller maps it).
 */
export async function beginExecution(ctx: Ctx, tx: TenantTx, t: Transaction, trigger: ExecutionTrigger): Promise<ExecutionStart> {
  await beforeMovement(ctx, t, tx); // hook:25b
  let status: ExecutionStart['status'] = 'PROCESSING';
  // Every start is written by startPaymentIn (money-path.repo.ts), the statement the autocommit starts run too.
  if (trigger.by === 'EXECUTE' || trigger.by === 'FUNDING') status = await startExecution(ctx, tx, t, trigger.agent, trigger.agentAmount);
  else if (trigger.by === 'AUTHORIZE') await startPaymentIn(ctx, tx, t, { event: 'authorize', hold: true, part: trigger.challenge });
  else if (trigger.by === 'APPROVAL') await startPaymentIn(ctx, tx, t, { event: 'execute', hold: true, where: Prisma.sql`"pending_reason" = 'PLATFORM_APPROVAL'` });
  else await startPaymentIn(ctx, tx, t, { event: 'execute', hold: false });
  const submit = () => enqueueSubmit(ctx, { platformId: ctx.platformId, transactionId: t.id });
  return { status, afterCommit: status === 'PROCESSING' ? submit : async () => undefined };
}

/** Errors: 404 QUOTE_NOT_FOUND (also another platform's quote, and for an agent another customer's). */
export async function getQuote(ctx: Ctx, id: string): Promise<Quote> {
  const q = await ctx.db.quote.findFirst({ where: { id } });
  if (!q || !visibleToCaller(ctx, q.customerId)) throw new NotFoundError('QUOTE_NOT_FOUND', 'Quote not found.');
  return q;
}

/**
 * POST /quotes/{id}/execute: holds the funds and starts the transfer, exactly once. The status
 * compare-and-set and the hold are one database transaction: a concurrent second execute loses
 * the race and moves nothing; an insufficient balance rolls back both. Real-time funded quotes are
 * executed by their deposit, never by this call. An agent's execution follows its policy.
 * Errors: 404 QUOTE_NOT_FOUND; 409 QUOTE_EXPIRED, QUOTE_NOT_PENDING, QUOTE_NOT_EXECUTABLE; 400 INSUFFICIENT_FUNDS,
 * TRANSACTION_SIZE_LIMIT_EXCEEDED; 403 VELOCITY_LIMIT_EXCEEDED.
 */
export async function executeQuote(ctx: Ctx, id: string, walletSignature: SignatureHeaders = {}): Promise<Quote> {
  const quote = await getQuote(ctx, id);
  await requireWalletStamp(ctx, quote, walletSignature); // hook:28 — an EMBEDDED_WALLET source's stamp, before any money moves
  if (quote.funding === 'REALTIME') {
    throw new ConflictError('QUOTE_NOT_EXECUTABLE', 'A real-time funded quote executes when its exact deposit arrives; it cannot be executed by a call.');
  }
  if (quote.status === 'PENDING' && quote.expiresAt <= ctx.clock.now()) {
    throw new ConflictError('QUOTE_EXPIRED', 'The quote expired; create a new one.', { expiresAt: quote.expiresAt.toISOString() });
  }
  // Spec Authentication 4: an SCA customer needs a live session (409 SCA_SESSION_REQUIRED); with one, the
  // payment waits in PENDING_AUTHORIZATION for POST /quotes/{id}/authorize (src/domains/sca).
  const sca = await requireScaSession(ctx, quote.customerId);
  if (quote.status !== 'PENDING') throw new ConflictError('QUOTE_NOT_PENDING', `The quote is ${quote.status}; only a PENDING quote can be executed.`, { status: quote.status });
  const agentAmount = ctx.agent ? await toPolicyAmount(ctx, ctx.agent, quote.totalSendingAmount, quote.sendingCurrency) : undefined;
  if (ctx.agent) assertWithinTransactionLimit(ctx.agent, agentAmount!, quote.sourceAccountId);
  const volume = await beforeMovement(ctx, quote); // hook:25b
  if (!sca && !ctx.agent) return withinDailyVolume(ctx, volume, () => executePrefunded(ctx, quote)); // hook:25b
  const outcome = await withinDailyVolume(ctx, volume, () => ctx.db // hook:25b
    .$transaction(async (tx) => {
      const t = await tx.transaction.findFirstOrThrow({ where: { id: quote.transactionId } });
      if (t.status !== 'PENDING') throw new ConflictError('QUOTE_NOT_PENDING', `The quote is ${t.status}; only a PENDING quote can be executed.`, { status: t.status });
      if (t.pendingReason) throw new ConflictError('QUOTE_NOT_PENDING', 'The quote was executed and waits for the platform\'s approval.', { pendingReason: t.pendingReason });
      if (sca) return requireQuoteAuthorization(ctx, tx, t);
      return (await beginExecution(ctx, tx, t, { by: 'EXECUTE', agent: ctx.agent, agentAmount })).afterCommit;
    })
    .catch((err) => {
      // A concurrent execute won the compare-and-set.
      if (err?.code === 'INVALID_STATE_TRANSITION') throw new ConflictError('QUOTE_NOT_PENDING', 'The quote was already executed.');
      throw err;
    }));
  await outcome();
  return getQuote(ctx, id);
}

/**
 * POST /quotes/{id}/authorize {code}: src/domains/sca verifies the code; the verified challenge is consumed by the
 * statement that begins the execution (funds held, PROCESSING) and the submission is queued after the commit.
 * Errors: 400 INVALID_INPUT (wrong or expired code), INSUFFICIENT_FUNDS; 404 QUOTE_NOT_FOUND; 409 CONFLICT,
 * SCA_SESSION_REQUIRED; 423 ACCOUNT_LOCKED.
 */
export async function authorizeQuote(ctx: Ctx, id: string, code: string): Promise<Quote> {
  const quote = await getQuote(ctx, id);
  const verified = await verifyQuoteChallenge(ctx, quote, code);
  const execution = await ctx.db.$transaction(async (tx) => {
    const t = await tx.transaction.findFirstOrThrow({ where: { id: quote.transactionId } });
    // The challenge is used up by the start's own statement, guarded before the hold.
    return beginExecution(ctx, tx, t, { by: 'AUTHORIZE', challenge: quoteChallengeConsumption(ctx, verified) });
  });
  await execution.afterCommit();
  return getQuote(ctx, id);
}

/** A platform's execution of a prefunded quote: one statement (money-path.repo.ts). Errors as executeQuote. */
async function executePrefunded(ctx: Ctx, quote: Quote): Promise<Quote> {
  const t = await ctx.db.transaction.findFirstOrThrow({ where: { id: quote.transactionId } });
  if (t.status !== 'PENDING') throw new ConflictError('QUOTE_NOT_PENDING', `The quote is ${t.status}; only a PENDING quote can be executed.`, { status: t.status });
  if (t.pendingReason) throw new ConflictError('QUOTE_NOT_PENDING', 'The quote was executed and waits for the platform\'s approval.', { pendingReason: t.pendingReason });
  noteIdempotentResource(ctx, quote.id);
  const started = await startPendingPayment(ctx, { quote, transaction: t });
  await enqueueSubmit(ctx, { platformId: ctx.platformId, transactionId: quote.transactionId });
  return started.quote;
}
