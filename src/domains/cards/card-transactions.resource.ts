import type { CardTransaction } from '../../generated/prisma/client.js';
import { toWireAmount, toWireNumber } from '../../platform/money.js';

/**
 * REF's CardTransaction (`type: CARD` in GET /transactions): amounts in the transaction's currency,
 * `pullSummary` in the funding source's. Our additions fill REF's gaps: `declineReason` on DECLINED,
 * `exchangeRate` (funding minor units per transaction minor unit, locked at authorization) and
 * `fundingCurrency` when the card currency differs from the network's, `exceptionAmount` on EXCEPTION.
 */
export function cardTransactionResource(t: CardTransaction) {
  const amount = (a: bigint) => toWireAmount({ amount: a, currency: t.currency });
  return {
    type: 'CARD' as const,
    id: t.id,
    cardId: t.cardId,
    customerId: t.customerId,
    platformCustomerId: t.platformCustomerId,
    issuerTransactionToken: t.issuerTransactionToken,
    status: t.status,
    ...(t.declineReason ? { declineReason: t.declineReason } : {}),
    direction: t.direction,
    merchant: {
      descriptor: t.merchantDescriptor,
      ...(t.merchantMcc ? { mcc: t.merchantMcc } : {}),
      ...(t.merchantCountry ? { country: t.merchantCountry } : {}),
    },
    authorizedAmount: amount(t.authorizedAmount),
    settledAmount: amount(t.settledAmount),
    refundedAmount: amount(t.refundedAmount),
    accountId: t.accountId,
    ...(t.fundingCurrency !== t.currency ? { fundingCurrency: t.fundingCurrency, exchangeRate: t.exchangeRate } : {}),
    pullSummary: { count: t.pullCount, totalAmount: toWireNumber(t.pullTotal), pendingCount: t.pullPendingCount },
    settlementSummary: { count: t.settlementCount, totalAmount: toWireNumber(t.settlementTotal) },
    refundSummary: { count: t.refundCount, totalAmount: toWireNumber(t.refundTotal) },
    ...(t.exceptionAmount > 0n ? { exceptionAmount: toWireNumber(t.exceptionAmount) } : {}),
    authorizedAt: t.authorizedAt.toISOString(),
    lastEventAt: t.lastEventAt.toISOString(),
    createdAt: t.createdAt.toISOString(),
    updatedAt: t.updatedAt.toISOString(),
  };
}
