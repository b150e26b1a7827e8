import type { Ctx } from '../../deps.js';
import { poolOf } from '../../platform/db.js';
import { ForbiddenError, ValidationError } from '../../platform/errors.js';
import { rowById } from '../../platform/raw-rows.js';
import type { Customer, InternalAccount } from '../../generated/prisma/client.js';

/**
 * REF's FBO funding (issue 25, anchor 25c): `source {accountId, customerId}` where the account is the platform's
 * own (for the benefit of its customers) and `customerId` the customer on whose behalf the payment is made —
 * the quote and its transaction are that customer's, the money leaves the platform's account. A customer's own
 * account names only its owner. Errors: 400 INVALID_INPUT (`source.customerId`: not the owner, or unknown);
 * 403 USER_NOT_READY (A21: its KYC/KYB is not APPROVED).
 */
export async function onBehalfOf(ctx: Ctx, account: InternalAccount, customerId: string): Promise<InternalAccount & { platformCustomerId: string | null; customer: Customer }> {
  const refuse = (message: string) => new ValidationError([{ field: 'source.customerId', message }]);
  if (account.customerId !== null) throw refuse('Does not own the source account.');
  const customer = await rowById<Customer>(poolOf(ctx.prisma), 'customers', ctx.platformId, customerId);
  if (!customer || customer.isDeleted) throw refuse('No customer of this platform has this id.');
  if (customer.status !== 'APPROVED') throw new ForbiddenError('USER_NOT_READY', `The customer's verification status is ${customer.status}; money movement needs APPROVED.`);
  return { ...account, customerId: customer.id, platformCustomerId: customer.platformCustomerId, customer };
}
