import type { BeneficialOwner, Customer } from '../../generated/prisma/client.js';
import { maskIdentifier } from './customers.model.js';

/** A customer as the service reads it: the row and, for businesses, its owners. */
export interface CustomerView {
  customer: Customer;
  owners: BeneficialOwner[];
}

const dateOnly = (d: Date | null | undefined) => (d ? d.toISOString().slice(0, 10) : undefined);

/** Drops undefined and null members: absent fields are omitted from responses, not null. */
function compact<T extends Record<string, unknown>>(o: T): T {
  for (const k of Object.keys(o)) if (o[k] === undefined || o[k] === null) delete o[k];
  return o;
}

export function ownerResource(o: BeneficialOwner) {
  const info = { ...(o.personalInfo as Record<string, unknown>) };
  if (typeof info.identifier === 'string') info.identifier = maskIdentifier(info.identifier);
  return compact({
    id: o.id,
    customerId: o.customerId,
    roles: o.roles,
    ownershipPercentage: o.ownershipBps / 100,
    personalInfo: info,
    kycStatus: o.kycStatus,
    createdAt: o.createdAt.toISOString(),
    updatedAt: o.updatedAt.toISOString(),
  });
}

/** The Customer resource (spec "Customer"; decisions B§5.3), as GET returns it and as CUSTOMER.* events carry it. */
export function customerResource({ customer: c, owners }: CustomerView) {
  const contact = compact({ email: c.emailVerification ?? undefined, phone: c.phoneVerification ?? undefined });
  const common = {
    id: c.id,
    platformCustomerId: c.platformCustomerId,
    customerType: c.customerType,
    region: c.region ?? undefined,
    currencies: c.currencies,
    email: c.email ?? undefined,
    phoneNumber: c.phoneNumber ?? undefined,
    umaAddress: c.umaAddress,
    contactVerification: Object.keys(contact).length ? contact : undefined,
    address: (c.address as Record<string, unknown> | null) ?? undefined,
    // REF (issue 25): omitted until acceptance is recorded.
    endUserTermsConsent: (c.endUserTermsConsent as Record<string, unknown> | null) ?? undefined,
  };
  const tail = { createdAt: c.createdAt.toISOString(), updatedAt: c.updatedAt.toISOString(), isDeleted: c.isDeleted };
  if (c.customerType === 'BUSINESS') {
    return compact({
      ...common,
      kybStatus: c.status,
      businessInfo: (c.businessInfo as Record<string, unknown> | null) ?? undefined,
      beneficialOwners: owners.map(ownerResource),
      ...tail,
    });
  }
  return compact({
    ...common,
    kycStatus: c.status,
    fullName: c.fullName ?? undefined,
    birthDate: dateOnly(c.birthDate),
    nationality: c.nationality ?? undefined,
    idType: c.idType ?? undefined,
    identifier: maskIdentifier(c.identifier),
    countryOfIssuance: c.countryOfIssuance ?? undefined,
    ...((c.dueDiligence as Record<string, unknown> | null) ?? {}),
    ...tail,
  });
}
