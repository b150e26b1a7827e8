import type { Transaction } from '../../generated/prisma/client.js';
import { toWireAmount, toWireNumber } from '../../platform/money.js';
import { omitAbsent } from '../../platform/http/omit-absent.js';
import { wireFailureReason } from './failure-reasons.js';
import { rateDetailsResource } from './rate-details.js';
import { wireDestination, wirePaymentRail } from './payment-rails.js';
import { outgoingRefReads, reconciliationInstructions, withOnChainTransaction } from './ref-reads.js';

/** Optional fields REF leaves out while empty (issue 13). */
const OPTIONAL = ['quoteId', 'paymentRail', 'description', 'remittanceInformation', 'purposeOfPayment', 'failureReason', 'failureDetail', 'agentId', 'pendingReason', 'counterpartyInformation', 'settledAt', 'refund', 'paymentInstructions', 'rateDetails',
  'reconciliationInstructions', 'receiptDeliveryConfirmedAt', 'railSelectionMode', 'expectedSettlementAt', 'settlementTimelineSeconds'] as const;

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/** The Transaction of the spec and decisions Part B §3 (`fees`, `platformFees` plain integers). */
export function transactionResource(t: Transaction) {
  const outgoing = t.type === 'OUTGOING';
  const failure = wireFailureReason(t.type, t.failureReason);
  return omitAbsent({
    id: t.id,
    status: t.status,
    type: t.type,
    direction: t.direction,
    customerId: t.customerId,
    platformCustomerId: t.platformCustomerId,
    source: t.source,
    // hook:25a REF's onChainTransaction on a settled wallet leg.
    destination: withOnChainTransaction(wireDestination(t.destination), t),
    sentAmount: toWireAmount({ amount: t.sentAmount, currency: t.sendingCurrency }),
    receivedAmount: toWireAmount({ amount: t.receivedAmount, currency: t.receivingCurrency }),
    exchangeRate: Number(t.exchangeRate),
    fees: toWireNumber(t.fees),
    platformFees: toWireNumber(t.platformFees),
    quoteId: t.quoteId,
    // REF's rails only: none for UMA (Lightning) and wallet (chain) payouts (issue 13).
    paymentRail: wirePaymentRail(t.paymentRail),
    description: t.description,
    remittanceInformation: t.remittanceInformation,
    purposeOfPayment: t.purposeOfPayment,
    // REF's enum; the server's own cause in failureDetail where REF has no value for it (issue 13).
    failureReason: failure.failureReason,
    failureDetail: failure.failureDetail,
    // Agent payments (A17): who initiated it, and PLATFORM_APPROVAL while it waits for the platform.
    agentId: t.agentId,
    pendingReason: t.pendingReason,
    counterpartyInformation: t.counterpartyInformation ?? null,
    settledAt: iso(t.settledAt),
    createdAt: t.createdAt.toISOString(),
    updatedAt: t.updatedAt.toISOString(),
    refund: t.refundStatus
      ? {
          reference: t.refundReference,
          initiatedAt: iso(t.refundInitiatedAt),
          settledAt: iso(t.refundSettledAt),
          status: t.refundStatus,
          reason: t.refundReason,
        }
      : null,
    // REF's OutgoingTransaction: the quote's funding instructions and fee breakdown (issue 13).
    paymentInstructions: outgoing ? (Array.isArray(t.paymentInstructions) ? t.paymentInstructions : []) : undefined,
    rateDetails: outgoing ? rateDetailsResource(t) : undefined,
    // hook:25a REF's reads (issue 25): src/domains/payments/ref-reads.ts.
    reconciliationInstructions: reconciliationInstructions(t),
    receiptDeliveryConfirmedAt: iso(t.receiptDeliveryConfirmedAt),
    ...(outgoing ? outgoingRefReads(t) : {}),
  }, OPTIONAL);
}
