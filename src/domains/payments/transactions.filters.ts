import type { Ctx } from '../../deps.js';
import type { Prisma } from '../../generated/prisma/client.js';
import { matchKeyFor } from '../../adapters/deposits/port.js';

/**
 * The list filters REF's client sends beyond the spec's (issue 13):
 * - `platformCustomerId`: transactions of the customers carrying that id of the platform's;
 * Each filter is a list of alternatives (one alternative: a plain condition).
 * - `reference`: the rail's reference of the payout, the refund's reference, or the reference a
 *   real-time funded quote told the payer to quote.
 */
export async function refFilters(ctx: Ctx, q: { platformCustomerId?: string; reference?: string }): Promise<Prisma.TransactionWhereInput[][]> {
  const out: Prisma.TransactionWhereInput[][] = [];
  if (q.platformCustomerId) {
    const customers = await ctx.db.customer.findMany({ where: { platformCustomerId: q.platformCustomerId }, select: { id: true } });
    out.push([{ customerId: { in: customers.map((c) => c.id) } }]);
  }
  if (q.reference) {
    const instructions = await ctx.db.fundingInstruction.findMany({ where: { matchKey: matchKeyFor('REFERENCE', q.reference) }, select: { quoteId: true } });
    // Either of three: each is its own index scan (issue 30), merged by the list.
    out.push([
      { railReference: q.reference },
      { refundReference: q.reference },
      ...(instructions.length ? [{ quoteId: { in: instructions.map((i) => i.quoteId) } }] : []),
    ]);
  }
  return out;
}
