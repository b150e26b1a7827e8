import type { Ctx } from '../deps.js';

/**
 * Agents act for one customer (A17): any other customer's data, and the platform's own, does not
 * exist for them. Services call these with the customer a resource belongs to.
 */
export function visibleToCaller(ctx: Ctx, customerId: string | null | undefined): boolean {
  return !ctx.agent || customerId === ctx.agent.customerId;
}

/** Matches no customer: what an agent's list of another customer filters on. */
const NO_CUSTOMER = 'Customer:none';

/** The customer filter of a list: an agent sees only its customer; asking for another one lists nothing. */
export function customerFilterFor(ctx: Ctx, requested: string | undefined): string | undefined {
  if (!ctx.agent) return requested;
  return requested && requested !== ctx.agent.customerId ? NO_CUSTOMER : ctx.agent.customerId;
}
