import type { Ctx } from '../../deps.js';
import { newId } from '../../platform/ids.js';
import { noteIdempotentResource, withoutClaim } from '../../platform/idempotency.js';
import type { Customer, Transaction } from '../../generated/prisma/client.js';
import { openInternalAccounts, systemAccount, type Posting } from '../ledger/index.js';
import { getDefaultUmaDepositAccount } from '../external-accounts/index.js';
import { defaultPaymentRail } from '../fees/index.js';
import { insertIncoming, insertIncomingIn } from './money-path.repo.js';
import { enqueueSubmit } from './transactions.jobs.js';
import type { TenantTx } from '../../platform/db.js';
import { beforeMovement } from './quotes.limits.js'; // hook:25b
import { receiveWithApproval } from './incoming-approval.js'; // hook:25c
import { incomingApprovalOn } from '../platforms/index.js'; // hook:25c

/** A payment to one of the platform's customers, as the network it came over reports it (today: UMA). */
export interface IncomingPayment {
  customer: Customer;
  amount: bigint;
  currency: string;
  /** UMA: the money is in UMA_CLEARING, where the counterparty's settlement lands. */
  from: { network: 'UMA'; senderUmaAddress?: string };
  description?: string;
  counterpartyInformation?: Record<string, string>;
  /** What the sender's VASP asks about the receiver (REF's `requestedReceiverCustomerInfoFields`), sent to the platform to approve. */
  requestedReceiverCustomerInfoFields?: Array<{ name: string; mandatory: boolean }>;
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
 * INCOMING transaction that goes PENDING → PROCESSING → COMPLETED through that account's rail, and whose
 * failure credits the internal account instead — else credited at once to the customer's internal account
 * in that currency (opened if missing): INTERNAL_ACCOUNT.BALANCE_UPDATED and INCOMING_PAYMENT.COMPLETED.
 * Every way is written by the incoming payments' one writer (money-path.repo.ts insertIncoming).
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
  const f: IncomingFields = {
    id,
    platformId: ctx.platformId,
    customerId: customer.id,
    platformCustomerId: customer.platformCustomerId,
    sourceAccountId: clearing,
    source: { sourceType: 'UMA_ADDRESS', umaAddress: p.from.senderUmaAddress ?? null, currency: p.currency },
    sentAmount: p.amount,
    sendingCurrency: p.currency,
    receivedAmount: p.amount,
    receivingCurrency: p.currency,
    description: p.description ?? null,
    counterpartyInformation: (p.counterpartyInformation ?? null) as Transaction['counterpartyInformation'],
    createdAt: ctx.clock.now(),
    ...destinationFields(external, internal.id, p.currency),
  };
  if (await approvalFirst(ctx)) return receiveWithApproval(ctx, incomingRow(f, 'PENDING'), p.requestedReceiverCustomerInfoFields); // hook:25c
  if (external) return payOutIncoming(ctx, f);
  return creditIncomingPayment(ctx, f, { key: `${id}:settle`, kind: 'UMA_INCOMING', postings: incomingCreditPostings(clearing, internal.id, p.currency, p.amount) });
}

/**
 * An incoming payment paid out to the customer's default UMA deposit account: written already started (PROCESSING,
 * with its `execute` history, INCOMING_PAYMENT.PENDING and .PROCESSING; its money waits in clearing, nothing is
 * held), then queued for its rail's submission. Errors: 400 INVALID_INPUT (an account that cannot take it).
 */
async function payOutIncoming(ctx: Ctx, f: IncomingFields): Promise<Transaction> {
  const pending = incomingRow(f, 'PENDING');
  await beforeMovement(ctx, pending); // hook:25b
  const started: Transaction = { ...pending, status: 'PROCESSING' };
  await insertIncoming(ctx, { row: started, moves: ['execute'], eventStates: [pending, started] });
  await enqueueSubmit(ctx, { platformId: ctx.platformId, transactionId: started.id });
  return started;
}

/** Issue 25 (25c): the platform decides first (REF's handshake) when it chose so and has an endpoint to ask. */
async function approvalFirst(ctx: Ctx): Promise<boolean> {
  const platform = await ctx.db.platform.findFirstOrThrow({});
  return incomingApprovalOn(ctx.config, platform) && platform.webhookEndpoint !== null;
}

/** Where an incoming payment goes: the default UMA deposit account (paid out on its rail), else the internal account. */
function destinationFields(external: { id: string; currency: string; paymentRails: string[]; identifierLast3: string | null } | null | undefined, internalId: string, currency: string) {
  if (!external) return { destinationKind: 'INTERNAL', destinationAccountId: internalId, destination: { destinationType: 'ACCOUNT', accountId: internalId, currency }, paymentRail: null, identifierLast3: null };
  const rail = external.paymentRails[0] ?? defaultPaymentRail(external.currency);
  return { destinationKind: 'EXTERNAL', destinationAccountId: external.id, destination: { destinationType: 'ACCOUNT', accountId: external.id, currency: external.currency, paymentRail: rail }, paymentRail: rail, identifierLast3: external.identifierLast3 };
}

/**
 * An incoming payment credited at once to an internal account: its transaction COMPLETED, with history,
 * journal and events, written by insertIncoming (money-path.repo.ts) — the UMA credit above and
 * POST /transfer-in's sandbox pull alike. Errors: 409 CONFLICT (the Idempotency-Key was taken).
 */
export async function creditIncomingPayment(ctx: Ctx, f: Omit<IncomingFields, 'platformId'>, journal: { key: string; kind: string; postings: Posting[] }): Promise<Transaction> {
  noteIdempotentResource(ctx, f.id);
  const row = incomingRow({ ...f, platformId: ctx.platformId }, 'COMPLETED');
  await insertIncoming(ctx, { row, moves: ['execute', 'complete'], journal });
  return row;
}

/**
 * An incoming payment that arrived but could not be credited (REF IncomingTransactionFailureReason;
 * COLLECTION_FAILED: a credit on pay-in coordinates of a FROZEN or CLOSED account, src/domains/collection):
 * written FAILED by insertIncoming (history execute, fail; INCOMING_PAYMENT.FAILED), in the caller's transaction
 * (which records why the money is held). No money moves: the collection provider keeps the funds until they are
 * released or returned.
 */
export async function recordFailedIncoming(ctx: Ctx, tx: TenantTx, f: Omit<IncomingFields, 'platformId'>, failureReason: string): Promise<Transaction> {
  const row: Transaction = { ...incomingRow({ ...f, platformId: ctx.platformId }, 'FAILED'), failureReason };
  await insertIncomingIn(ctx, tx, { row, moves: ['execute', 'fail'], reason: failureReason });
  return row;
}

/** What an incoming payment's row is made of; `destinationKind` INTERNAL unless given. */
type IncomingFields = Pick<Transaction, 'id' | 'platformId' | 'customerId' | 'platformCustomerId' | 'sourceAccountId' | 'destinationAccountId' | 'paymentRail' | 'identifierLast3' | 'sentAmount' | 'sendingCurrency' | 'receivedAmount' | 'receivingCurrency' | 'createdAt'> &
  Partial<Pick<Transaction, 'description' | 'counterpartyInformation' | 'destinationKind'>> & { source: object; destination: object };

/** The row of an INCOMING payment arrived in `status` (settled when COMPLETED), as the database holds it. */
function incomingRow(f: IncomingFields, status: 'PENDING' | 'COMPLETED' | 'FAILED'): Transaction {
  const at = f.createdAt;
  return {
    id: f.id, platformId: f.platformId, quoteId: null, customerId: f.customerId, platformCustomerId: f.platformCustomerId,
    status, type: 'INCOMING', direction: 'CREDIT', sourceAccountId: f.sourceAccountId, source: f.source as Transaction['source'],
    destination: f.destination as Transaction['destination'], destinationKind: f.destinationKind ?? 'INTERNAL', destinationAccountId: f.destinationAccountId,
    identifierLast3: f.identifierLast3, paymentRail: f.paymentRail, sentAmount: f.sentAmount, sendingCurrency: f.sendingCurrency,
    receivedAmount: f.receivedAmount, receivingCurrency: f.receivingCurrency, exchangeRate: '1', fees: 0n, platformFees: 0n, serviceFees: 0n,
    description: f.description ?? null, remittanceInformation: null, purposeOfPayment: null, failureReason: null, railReference: null,
    submittedAt: null, reconcileAfter: null, settledAt: status === 'COMPLETED' ? at : null, refundStatus: null, refundReference: null, refundReason: null,
    refundInitiatedAt: null, refundSettledAt: null, agentId: null, pendingReason: null, approvalRequestedAt: null, agentCountedAmount: null,
    counterpartyInformation: (f.counterpartyInformation ?? null) as Transaction['counterpartyInformation'], platformFixedFee: null,
    platformVariableFeeBps: null, platformVariableFee: null, serviceFixedFee: null, serviceVariableFeeBps: null, serviceVariableFee: null,
    counterpartyFixedFee: null, counterpartyMultiplier: null, sendingMultiplier: null, paymentInstructions: null, railSelectionMode: null,
    settlementTimelineSeconds: null, receiptDeliveryConfirmedAt: null, createdAt: at, updatedAt: at,
  };
}
