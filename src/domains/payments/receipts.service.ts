import { z } from 'zod';
import type { Ctx } from '../../deps.js';
import { ValidationError } from '../../platform/errors.js';
import type { Transaction } from '../../generated/prisma/client.js';
import { getTransaction } from './transactions.service.js';

/** A receipt's time may be this far ahead of the server's clock (the platform's clock drifts). */
const CLOCK_SKEW_MS = 5 * 60_000;

/** REF `ConfirmReceiptDeliveryRequest`. */
export const confirmReceiptBody = z.strictObject({
  receiptDeliveryConfirmedAt: z.iso.datetime({ offset: true, message: 'Must be an ISO 8601 date-time with a time zone.' }).optional(),
});

/**
 * POST /transactions/{id}/confirm (REF `confirmReceiptDelivery`, issue 25): records when the platform
 * delivered the transaction's receipt to its customer; the server's time when the body leaves it out.
 * Calling it again replaces the time (REF). Any status: a receipt obligation is the platform's
 * contract, not the payment's state. It is not a status change, so no event is sent.
 * Errors: 400 INVALID_INPUT (a time before the transaction was created, or in the future);
 * 404 TRANSACTION_NOT_FOUND (also another platform's, or an agent's other customer's).
 */
export async function confirmReceiptDelivery(ctx: Ctx, id: string, body: z.output<typeof confirmReceiptBody>): Promise<Transaction> {
  const t = await getTransaction(ctx, id);
  const now = ctx.clock.now();
  const at = body.receiptDeliveryConfirmedAt ? new Date(body.receiptDeliveryConfirmedAt) : now;
  const field = 'receiptDeliveryConfirmedAt';
  if (at.getTime() > now.getTime() + CLOCK_SKEW_MS) throw new ValidationError([{ field, message: 'Must not be in the future.' }]);
  if (at < t.createdAt) throw new ValidationError([{ field, message: `Must not be before the transaction was created (${t.createdAt.toISOString()}).` }]);
  await ctx.db.transaction.updateMany({ where: { id: t.id }, data: { receiptDeliveryConfirmedAt: at, updatedAt: now } });
  return getTransaction(ctx, id);
}
