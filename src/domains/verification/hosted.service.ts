import type { Ctx } from '../../deps.js';
import type { Customer, KycLink, Prisma, Verification } from '../../generated/prisma/client.js';
import { unverifiedChannels } from '../customers/index.js';
import { openCase } from './verification.service.js';

/** A hosted flow that cannot complete: shown to the person as an error page. */
export class HostedFlowError extends Error {
  constructor(
    readonly status: number,
    readonly title: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Completing the hosted page: the link is used up (compare-and-set, so two tabs cannot both
 * complete it), the details entered are stored, and a HOSTED case opens IN_PROGRESS, moving the
 * customer to PENDING with CUSTOMER.*_PENDING (spec "Customer verification status": completing the
 * hosted flow means only that it was finished). The provider's decision is queued by the caller.
 */
export async function completeHostedFlow(ctx: Ctx, link: KycLink, customer: Customer, form: Record<string, string>): Promise<Verification> {
  if (customer.status !== 'UNVERIFIED' && customer.status !== 'HOLD') {
    throw new HostedFlowError(409, 'Nothing to verify', 'This verification is already under review or decided.');
  }
  if (unverifiedChannels(customer).length) throw new HostedFlowError(409, 'Contact details not verified', 'Your email and phone number must be verified first.');
  const address = {
    ...((customer.address as Record<string, unknown> | null) ?? {}),
    line1: form.line1!.trim(),
    postalCode: form.postalCode!.trim(),
    country: form.country!.trim().toUpperCase(),
    ...(form.city?.trim() ? { city: form.city.trim() } : {}),
  };
  const details =
    customer.customerType === 'BUSINESS'
      ? { address }
      : { address, fullName: form.fullName!.trim(), birthDate: new Date(`${form.birthDate}T00:00:00Z`), nationality: form.nationality!.trim().toUpperCase() };
  try {
    return await openCase(ctx, customer, 'IN_PROGRESS', [], 'HOSTED', async (tx, now) => {
      const used = await tx.kycLink.updateMany({ where: { id: link.id, usedAt: null, expiresAt: { gt: now } }, data: { usedAt: now } });
      if (used.count !== 1) throw new HostedFlowError(410, 'Link already used', 'This verification link was already used.');
      await tx.customer.update({ where: { platformId_id: { platformId: customer.platformId, id: customer.id } }, data: { ...details, updatedAt: now } as Prisma.CustomerUncheckedUpdateInput });
    });
  } catch (err) {
    if (err instanceof HostedFlowError) throw err;
    if ((err as { code?: string }).code === 'CONFLICT') throw new HostedFlowError(409, 'Nothing to verify', 'A verification is already in progress.');
    throw err;
  }
}
