import type { Ctx } from '../../deps.js';
import { NotFoundError } from '../../platform/errors.js';

/**
 * What this module needs to know about a customer, read in one place. The Customer model belongs to the
 * customers domain; this reads it through the tenant-scoped client, so another platform's customer is not
 * found. A business's name is `businessInfo.legalName`.
 */
export interface CustomerFacts {
  id: string;
  customerType: 'INDIVIDUAL' | 'BUSINESS';
  /** Individual fullName or business legalName. */
  name: string | null;
  region: string | null;
  addressCountry: string | null;
}

const str = (v: unknown) => (typeof v === 'string' && v.trim() !== '' ? v : null);
const field = (obj: unknown, key: string) => (obj && typeof obj === 'object' ? (obj as Record<string, unknown>)[key] : undefined);

/** Errors: 404 USER_NOT_FOUND when the customer is unknown, another platform's, or deleted. */
export async function getCustomerFacts(ctx: Ctx, customerId: string): Promise<CustomerFacts> {
  const row = await ctx.db.customer.findFirst({ where: { id: customerId } });
  if (!row || row.isDeleted) throw new NotFoundError('USER_NOT_FOUND', 'Customer not found.');
  return {
    id: row.id,
    customerType: row.customerType === 'BUSINESS' ? 'BUSINESS' : 'INDIVIDUAL',
    name: str(row.fullName) ?? str(field(row.businessInfo, 'legalName')),
    region: str(row.region),
    addressCountry: str(field(row.address, 'country')),
  };
}
