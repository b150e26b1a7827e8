import type { Ctx } from '../../deps.js';
import type { Transaction } from '../../generated/prisma/client.js';
import type { StoredUmaPayment } from './quotes.destinations.js';

/**
 * What the LIGHTNING rail pays for a UMA payment: the invoice the receiver's VASP gave at quote time
 * (UMA settles over Lightning). The payment then lives the same life as any rail payout: polls,
 * failure and refund, events.
 */
export async function umaPayoutDestination(ctx: Ctx, t: Transaction): Promise<{ accountType: string; accountInfo: Record<string, unknown> }> {
  const quote = t.quoteId ? await ctx.db.quote.findFirst({ where: { id: t.quoteId } }) : null;
  const uma = quote?.umaPayment as StoredUmaPayment | null | undefined;
  if (!uma) return { accountType: 'UNKNOWN', accountInfo: {} };
  return { accountType: 'LIGHTNING', accountInfo: { invoice: uma.invoice, umaAddress: uma.receiverUmaAddress } };
}
