import { defineLifecycle, type TransitionTable } from '../../platform/state-machine.js';

/** Stored statuses; `EXPIRED` is what a PENDING invitation past its `expiresAt` reads as. */
export const INVITATION_STATES = ['PENDING', 'CLAIMED', 'CANCELLED'] as const;
export type InvitationState = (typeof INVITATION_STATES)[number];
export type InvitationStatus = InvitationState | 'EXPIRED';

export const invitationTransitions = {
  claim: { from: ['PENDING'], to: 'CLAIMED' },
  cancel: { from: ['PENDING'], to: 'CANCELLED' },
} as const satisfies TransitionTable<InvitationState>;
export type InvitationEvent = keyof typeof invitationTransitions;

export const invitationLifecycle = defineLifecycle({
  name: 'invitation',
  label: 'The invitation',
  statuses: INVITATION_STATES,
  transitions: invitationTransitions,
  terminal: ['CLAIMED', 'CANCELLED'],
});

/** What the invitation reads as at `now`. */
export function statusAt(i: { status: string; expiresAt: Date | null }, now: Date): InvitationStatus {
  if (i.status === 'PENDING' && i.expiresAt && i.expiresAt <= now) return 'EXPIRED';
  return i.status as InvitationState;
}

/** 12 characters of lower-case base32 (60 bits): unguessable, short enough for a link. */
const ALPHABET = 'abcdefghijklmnopqrstuvwxyz234567';
export function invitationCode(random: Uint8Array): string {
  let out = '';
  for (let i = 0; i < 12; i++) out += ALPHABET[random[i]! & 31];
  return out;
}
