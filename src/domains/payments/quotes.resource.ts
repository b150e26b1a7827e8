import type { Quote } from '../../generated/prisma/client.js';
import { currencyOf } from '../../platform/currencies.js';
import { toWireNumber } from '../../platform/money.js';
import { omitAbsent } from '../../platform/http/omit-absent.js';
import { rateDetailsResource } from './rate-details.js';
import { wireDestination } from './payment-rails.js';

/** Optional fields REF leaves out while empty (issue 13). */
const OPTIONAL = ['description', 'remittanceInformation', 'purposeOfPayment', 'rateDetails'] as const;

/** The spec's Quote response (decisions Part B §4.2). */
export function quoteResource(q: Quote, scaChallenge?: object) {
  return omitAbsent({
    id: q.id,
    status: q.status,
    createdAt: q.createdAt.toISOString(),
    expiresAt: q.expiresAt.toISOString(),
    source: q.source,
    destination: wireDestination(q.destination),
    sendingCurrency: currencyOf(q.sendingCurrency),
    receivingCurrency: currencyOf(q.receivingCurrency),
    totalSendingAmount: toWireNumber(q.totalSendingAmount),
    totalReceivingAmount: toWireNumber(q.totalReceivingAmount),
    exchangeRate: Number(q.exchangeRate),
    feesIncluded: toWireNumber(q.feesIncluded),
    platformFeesIncluded: toWireNumber(q.platformFeesIncluded),
    transactionId: q.transactionId,
    description: q.description,
    remittanceInformation: q.remittanceInformation,
    purposeOfPayment: q.purposeOfPayment,
    // Real-time funded quotes: how to pay them (decisions B§4.3); empty for prefunded ones.
    paymentInstructions: Array.isArray(q.paymentInstructions) ? q.paymentInstructions : [],
    // REF's fee breakdown, kept since the quote was priced (issue 13).
    rateDetails: rateDetailsResource(q),
    // SCA customers' quotes awaiting authorization (decisions B§6.5).
    ...(scaChallenge ? { scaChallenge } : {}),
  }, OPTIONAL);
}
