import { z } from 'zod';
import type { UmaInvitation } from '../../generated/prisma/client.js';
import { currencyOf } from '../../platform/currencies.js';
import { toWireNumber } from '../../platform/money.js';
import { statusAt } from './invitations.model.js';

const uma = z.string().min(3).max(400);

export const createInvitationBody = z.strictObject({
  inviterUma: uma,
  amountToSend: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER).optional(),
  expiresAt: z.iso.datetime({ offset: true }).transform((s) => new Date(s)).optional(),
  firstName: z.string().trim().min(1).max(100).optional(),
});
export type CreateInvitationBody = z.output<typeof createInvitationBody>;

export const claimInvitationBody = z.strictObject({ inviteeUma: uma });
export const invitationCodeParams = z.object({ invitationCode: z.string().min(1).max(64) });

/** REF's UmaInvitation: optional fields are left out while absent. */
export function invitationResource(i: UmaInvitation, now: Date, publicBaseUrl: string) {
  return {
    code: i.code,
    createdAt: i.createdAt.toISOString(),
    inviterUma: i.inviterUma,
    status: statusAt(i, now),
    url: `${publicBaseUrl.replace(/\/$/, '')}/invite/${i.code}`,
    ...(i.amountToSend !== null && i.amountCurrency ? { amountToSend: { amount: toWireNumber(i.amountToSend), currency: currencyOf(i.amountCurrency) } } : {}),
    ...(i.claimedAt ? { claimedAt: i.claimedAt.toISOString() } : {}),
    ...(i.expiresAt ? { expiresAt: i.expiresAt.toISOString() } : {}),
    ...(i.firstName ? { firstName: i.firstName } : {}),
    ...(i.inviteeUma ? { inviteeUma: i.inviteeUma } : {}),
  };
}
