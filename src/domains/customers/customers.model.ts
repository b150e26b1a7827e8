import { defineLifecycle, type EventOf } from '../../platform/state-machine.js';

/** Spec "Customer verification status" (`kycStatus` / `kybStatus`). */
export const CUSTOMER_STATUSES = ['UNVERIFIED', 'PENDING', 'APPROVED', 'REJECTED', 'HOLD'] as const;
export type CustomerStatus = (typeof CUSTOMER_STATUSES)[number];

export const CUSTOMER_TYPES = ['INDIVIDUAL', 'BUSINESS'] as const;

/**
 * Spec "Customer verification status" plus decision A10 (HOLD is entered only by the provider's
 * decision and left by a new submission). REJECTED and APPROVED have no way out.
 */
export const customerStatusMachine = defineLifecycle({
  name: 'customer',
  label: 'The customer',
  statuses: CUSTOMER_STATUSES,
  transitions: {
    submit: { from: ['UNVERIFIED', 'HOLD'], to: 'PENDING' },
    approve: { from: ['PENDING'], to: 'APPROVED' },
    reject: { from: ['PENDING'], to: 'REJECTED' },
    hold: { from: ['PENDING'], to: 'HOLD' },
  },
  terminal: ['APPROVED', 'REJECTED'],
  conflictCode: 'CONFLICT',
});
export type CustomerEvent = EventOf<typeof customerStatusMachine>;

/** Owners follow the customer's case; they never sit on HOLD themselves. */
export const OWNER_STATUSES = ['UNVERIFIED', 'PENDING', 'APPROVED', 'REJECTED'] as const satisfies readonly CustomerStatus[];
export const ownerStatusMachine = defineLifecycle({
  name: 'beneficial-owner',
  label: 'The beneficial owner',
  statuses: OWNER_STATUSES,
  transitions: {
    submit: { from: ['UNVERIFIED'], to: 'PENDING' },
    approve: { from: ['PENDING'], to: 'APPROVED' },
    reject: { from: ['PENDING'], to: 'REJECTED' },
  },
  terminal: ['APPROVED', 'REJECTED'],
  conflictCode: 'CONFLICT',
});
export type OwnerEvent = EventOf<typeof ownerStatusMachine>;

export type ChannelState = 'PENDING' | 'VERIFIED' | null;
export const CONTACT_CHANNELS = ['email', 'phone'] as const;
export type ContactChannel = (typeof CONTACT_CHANNELS)[number];

/**
 * Spec "Contact verification channel" (PENDING → VERIFIED on a valid code), plus what keeps the
 * channel honest: a changed address or number must be verified again (reset), and a channel comes
 * and goes with the region's requirement (require / release; null = not required).
 */
export const contactChannelMachine = defineLifecycle({
  name: 'contact-channel',
  label: 'The contact channel',
  // NONE is the NULL column: the channel is not required.
  statuses: ['NONE', 'PENDING', 'VERIFIED'],
  absent: 'NONE',
  transitions: {
    confirm: { from: ['PENDING'], to: 'VERIFIED' },
    reset: { from: ['VERIFIED'], to: 'PENDING' },
    require: { from: ['NONE'], to: 'PENDING' },
    release: { from: ['PENDING', 'VERIFIED'], to: 'NONE' },
  },
  terminal: [],
  conflictCode: 'CONFLICT',
});
export type ChannelEvent = EventOf<typeof contactChannelMachine>;

/** `CUSTOMER.<KYC|KYB>_<status>`; only PENDING, APPROVED and REJECTED have events (spec "Events"). */
export function customerEventType(type: string, status: CustomerStatus): string | undefined {
  if (status !== 'PENDING' && status !== 'APPROVED' && status !== 'REJECTED') return undefined;
  return `CUSTOMER.${type === 'BUSINESS' ? 'KYB' : 'KYC'}_${status}`;
}

/** Decision A8: the European Economic Area. */
export const EEA_COUNTRIES = new Set([
  'AT', 'BE', 'BG', 'HR', 'CY', 'CZ', 'DK', 'EE', 'FI', 'FR', 'DE', 'GR', 'HU', 'IE', 'IT', 'LV', 'LT', 'LU', 'MT',
  'NL', 'PL', 'PT', 'RO', 'SK', 'SI', 'ES', 'SE', 'IS', 'LI', 'NO',
]);

/** Decision A8: a customer's region is `region`, else its address country. */
export function regionOf(c: { region?: string | null; address?: { country?: string | null } | null }): string | undefined {
  return c.region ?? c.address?.country ?? undefined;
}

/** Decision A8: EEA customers (or every customer of a platform flagged `scaRegion`) verify email and phone first. */
export function requiresContactVerification(region: string | undefined, platformScaRegion: boolean): boolean {
  return platformScaRegion || (region !== undefined && EEA_COUNTRIES.has(region));
}

/**
 * Decision A9: the initial status. Regulated platforms approve at creation (spec); in production an
 * unregulated platform's customer starts UNVERIFIED; in sandbox the name's last three characters
 * choose (001 PENDING, 002 REJECTED, 003-005 UNVERIFIED, anything else APPROVED).
 */
export function initialStatus(opts: { isRegulated: boolean; sandbox: boolean; name: string | undefined }): CustomerStatus {
  if (opts.isRegulated) return 'APPROVED';
  if (!opts.sandbox) return 'UNVERIFIED';
  switch (magicSuffix(opts.name)) {
    case '001':
      return 'PENDING';
    case '002':
      return 'REJECTED';
    case '003':
    case '004':
    case '005':
    case '006':
      return 'UNVERIFIED';
    default:
      return 'APPROVED';
  }
}

export function magicSuffix(name: string | null | undefined): string {
  return (name ?? '').trim().slice(-3);
}

/** Identifiers (SSN, ITIN, passport numbers) are returned with all but their last four characters masked. */
export function maskIdentifier(value: string | null | undefined): string | undefined {
  if (!value) return undefined;
  let keep = 4;
  const out: string[] = [];
  for (let i = value.length - 1; i >= 0; i--) {
    const ch = value[i]!;
    if (/[A-Za-z0-9]/.test(ch)) {
      out.push(keep > 0 ? ch : '*');
      keep--;
    } else out.push(ch);
  }
  return out.reverse().join('');
}
