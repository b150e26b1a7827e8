import type { InternalAccount } from '../../generated/prisma/client.js';
import { toWireAmount } from '../../platform/money.js';

/** Decision Part B §5.1: `balance` is what can be spent, `totalBalance` includes held amounts. */
export function internalAccountResource(a: InternalAccount) {
  return {
    id: a.id,
    customerId: a.customerId,
    type: a.type,
    status: a.status,
    balance: toWireAmount({ amount: a.availableBalance, currency: a.currency }),
    totalBalance: toWireAmount({ amount: a.availableBalance + a.heldBalance, currency: a.currency }),
    // Issue 26 (26a): kept by src/domains/collection from the account's open coordinates.
    fundingPaymentInstructions: Array.isArray(a.fundingPaymentInstructions) ? a.fundingPaymentInstructions : [],
    createdAt: a.createdAt.toISOString(),
    updatedAt: a.updatedAt.toISOString(),
  };
}
