import { randomBytes } from 'node:crypto';
import type { AppDeps, Ctx } from '../../deps.js';
import { ctxFor } from '../../deps.js';
import { BadRequestError, ForbiddenError, NotFoundError, ValidationError } from '../../platform/errors.js';
import { newId } from '../../platform/ids.js';
import { nextStatus, statusColumn, transition } from '../../platform/state-machine.js';
import type { UmaInvitation } from '../../generated/prisma/client.js';
import { normalizeUmaAddress } from '../uma/index.js';
import { invitationCode, invitationLifecycle, statusAt, type InvitationEvent } from './invitations.model.js';
import { invitationResource, type CreateInvitationBody } from './invitations.schemas.js';
import { platformOfLookup, syncLookups } from '../../platform/tenant-lookups.js';

const notFound = () => new NotFoundError('INVITATION_NOT_FOUND', 'Invitation not found.');
const badAddress = (field: string) => new BadRequestError('INVALID_UMA_ADDRESS', 'The UMA address is malformed; expected $user@domain.', { errors: [{ field, message: 'Not an UMA address.' }] });

/**
 * POST /invitations: an invitation from one of the platform's customers, named by its UMA address.
 * `amountToSend` is in the inviter's first currency (display only: the platform pays it after
 * INVITATION.CLAIMED). Errors: 400 INVALID_UMA_ADDRESS, INVALID_INPUT (expiresAt not in the future);
 * 404 USER_NOT_FOUND.
 */
export async function createInvitation(ctx: Ctx, body: CreateInvitationBody): Promise<UmaInvitation> {
  const address = normalizeUmaAddress(body.inviterUma);
  if (!address) throw badAddress('inviterUma');
  const now = ctx.clock.now();
  if (body.expiresAt && body.expiresAt <= now) throw new ValidationError([{ field: 'expiresAt', message: 'Must be in the future.' }]);
  const inviter = await ctx.db.customer.findFirst({ where: { umaAddress: address, isDeleted: false } });
  if (!inviter) throw new ValidationError([{ field: 'inviterUma', message: 'No customer of this platform has this UMA address.' }]);
  const currency = inviter.currencies[0] ?? 'USD';
  return ctx.db.$transaction(async (tx) => {
    const created = await tx.umaInvitation.create({
      data: {
        id: newId('Invitation'),
        code: invitationCode(randomBytes(12)),
        inviterUma: address,
        inviterCustomerId: inviter.id,
        firstName: body.firstName ?? null,
        amountToSend: body.amountToSend === undefined ? null : BigInt(body.amountToSend),
        amountCurrency: body.amountToSend === undefined ? null : currency,
        status: 'PENDING',
        expiresAt: body.expiresAt ?? null,
        createdAt: now,
        updatedAt: now,
      } as never,
    });
    await syncLookups(tx, 'uma_invitations', null, created);
    return created;
  });
}

/**
 * An invitation by its code. Codes are shared with invitees who may be customers of another platform
 * of this deployment: any authenticated platform may read and claim one (the code is the proof, like a
 * link token); only the creating platform may cancel it. Errors: 404 INVITATION_NOT_FOUND.
 */
export async function getInvitation(deps: AppDeps, code: string): Promise<UmaInvitation> {
  const platformId = await platformOfLookup(deps.prisma, 'UMA_INVITATION_CODE', code);
  const inv = platformId ? await deps.prisma.umaInvitation.findUnique({ where: { platformId_code: { platformId, code } } }) : null;
  if (!inv) throw notFound();
  return inv;
}

/** Why `event` cannot happen to `inv` now, as REF's error codes; undefined when it can. */
function refusal(inv: UmaInvitation, now: Date, event: InvitationEvent): BadRequestError | undefined {
  const status = statusAt(inv, now);
  if (status === 'CLAIMED') return new BadRequestError('INVITATION_ALREADY_CLAIMED', 'The invitation has already been claimed.');
  if (status === 'CANCELLED') return new BadRequestError('INVITATION_CANCELLED', 'The invitation has been cancelled.');
  if (status === 'EXPIRED') return new BadRequestError('INVITATION_EXPIRED', 'The invitation has expired.', { expiresAt: inv.expiresAt?.toISOString() });
  nextStatus(invitationLifecycle, event, inv.status as 'PENDING');
  return undefined;
}

const invitationStatus = statusColumn(invitationLifecycle, 'uma_invitations', 'status', { notFound });

/**
 * transition() in the creating platform's scope, with INVITATION.CLAIMED in the same transaction. A move
 * that changed nothing is refused by what the invitation is now (claimed, cancelled, expired).
 */
async function moveInvitation(deps: AppDeps, inv: UmaInvitation, event: InvitationEvent, set: Partial<UmaInvitation>, now: Date): Promise<UmaInvitation> {
  const owner = ctxFor(deps, inv.platformId);
  return transition(owner.db, owner, invitationStatus, event, inv.id, {
    set,
    onMiss: (after) => (after ? refusal(after, now, event) : undefined) ?? new BadRequestError('INVALID_STATE_TRANSITION', 'The invitation changed meanwhile.'),
    ...(event === 'claim' ? { events: (moved: UmaInvitation) => ({ type: 'INVITATION.CLAIMED', data: invitationResource(moved, now, deps.config.PUBLIC_BASE_URL) }) } : {}),
  });
}

/**
 * POST /invitations/{code}/claim: PENDING → CLAIMED with the invitee's UMA address, exactly once;
 * INVITATION.CLAIMED goes to the creating platform. Errors: 400 INVALID_UMA_ADDRESS,
 * INVITATION_ALREADY_CLAIMED, INVITATION_CANCELLED, INVITATION_EXPIRED, INVALID_INPUT (the inviter
 * claiming its own invitation); 404 INVITATION_NOT_FOUND.
 */
export async function claimInvitation(ctx: Ctx, code: string, inviteeUma: string): Promise<UmaInvitation> {
  const address = normalizeUmaAddress(inviteeUma);
  if (!address) throw badAddress('inviteeUma');
  const inv = await getInvitation(ctx, code);
  const now = ctx.clock.now();
  const refused = refusal(inv, now, 'claim');
  if (refused) throw refused;
  if (address === inv.inviterUma) throw new ValidationError([{ field: 'inviteeUma', message: 'The inviter cannot claim its own invitation.' }]);
  return moveInvitation(ctx, inv, 'claim', { inviteeUma: address, claimedAt: now }, now);
}

/**
 * POST /invitations/{code}/cancel: PENDING → CANCELLED, by the creating platform only.
 * Errors: 400 INVITATION_ALREADY_CLAIMED, INVITATION_CANCELLED, INVITATION_EXPIRED; 403 FORBIDDEN
 * (another platform's invitation); 404 INVITATION_NOT_FOUND.
 */
export async function cancelInvitation(ctx: Ctx, code: string): Promise<UmaInvitation> {
  const inv = await getInvitation(ctx, code);
  if (inv.platformId !== ctx.platformId) throw new ForbiddenError('FORBIDDEN', 'Only the platform that created the invitation can cancel it.');
  const now = ctx.clock.now();
  const refused = refusal(inv, now, 'cancel');
  if (refused) throw refused;
  return moveInvitation(ctx, inv, 'cancel', { cancelledAt: now }, now);
}
