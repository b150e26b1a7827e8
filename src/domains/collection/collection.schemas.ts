import { z } from 'zod';
import type { CollectionCoordinates, CollectionCredit } from '../../generated/prisma/client.js';
import { paginationQuery } from '../../platform/http/pagination.js';
import { toWireAmount, toWireNumber } from '../../platform/money.js';
import { isKnownCurrency } from '../../platform/currencies.js';
import { HELD_REASONS } from './collection.model.js';

export const accountParams = z.object({ accountId: z.string().min(1).max(200) });

/** POST /sandbox/internal-accounts/{accountId}/credits (README "Sandbox: pay-in coordinates"). */
export const simulateCreditBody = z.strictObject({
  /** Minor units of the account's currency (or of `currency`). */
  amount: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER),
  /** The coordinates' rail; default: the account's first OPEN coordinates. */
  rail: z.string().regex(/^[A-Z0-9_]{2,32}$/, 'Must be a rail name such as ACH or SPEI.').optional(),
  /** Another currency than the account's: the credit is held (CURRENCY_MISMATCH). */
  currency: z.string().refine(isKnownCurrency, 'Must be a currency this service knows.').optional(),
  /** The provider's credit id; repeat one to re-send the same credit. Default: a new one. */
  creditId: z.string().min(1).max(120).regex(/^[\w.:-]+$/, 'Letters, digits, and . _ : - only.').optional(),
  /** UNMATCHED: the credit names coordinates nobody has (it cannot be applied: held and reported). */
  scenario: z.enum(['MATCHED', 'UNMATCHED']).default('MATCHED'),
  /** false: the bank records the credit without pushing it (a lost webhook; only the reconciliation poll brings it). */
  push: z.boolean().default(true),
  sender: z.strictObject({ name: z.string().min(1).max(140).optional(), accountLast4: z.string().regex(/^\d{4}$/).optional(), bankName: z.string().min(1).max(140).optional() }).optional(),
});
export type SimulateCreditBody = z.output<typeof simulateCreditBody>;

export const listCreditsQuery = z.object({
  ...paginationQuery,
  status: z.enum(['RECEIVED', 'APPLIED', 'HELD']).optional(),
  internalAccountId: z.string().min(1).max(200).optional(),
  heldReason: z.enum(HELD_REASONS).optional(),
});
export type ListCreditsQuery = z.output<typeof listCreditsQuery>;

/** A credit reported on pay-in coordinates: what it became (APPLIED, HELD with its reason) and its transaction. */
export function collectionCreditResource(c: CollectionCredit) {
  return {
    id: c.id,
    providerCreditId: c.providerCreditId,
    internalAccountId: c.internalAccountId,
    rail: c.rail,
    // A provider may report a currency this service does not know (held CURRENCY_MISMATCH): its code as given.
    amount: isKnownCurrency(c.currency) ? toWireAmount({ amount: c.amount, currency: c.currency }) : { amount: toWireNumber(c.amount), currency: { code: c.currency } },
    status: c.status,
    ...(c.heldReason ? { heldReason: c.heldReason } : {}),
    // The INCOMING transaction (COMPLETED when APPLIED, FAILED with COLLECTION_FAILED when HELD on a known account).
    ...(c.status !== 'RECEIVED' && c.internalAccountId ? { transactionId: c.transactionId } : {}),
    receivedAt: c.receivedAt.toISOString(),
    createdAt: c.createdAt.toISOString(),
    updatedAt: c.updatedAt.toISOString(),
  };
}

/** An account's coordinates with their provisioning status (the open ones are its fundingPaymentInstructions). */
export function coordinatesResource(c: CollectionCoordinates) {
  return {
    id: c.id,
    internalAccountId: c.internalAccountId,
    rail: c.rail,
    status: c.status,
    ...(c.instructions ? { paymentInstructions: c.instructions } : {}),
    createdAt: c.createdAt.toISOString(),
    updatedAt: c.updatedAt.toISOString(),
  };
}
