import { defineLifecycle, type EventOf, type StatusOf } from '../../platform/state-machine.js';

/**
 * REF's InternalAccountStatus (issue 25): PENDING while provisioned, ACTIVE moves money, FROZEN (a compliance or fraud
 * hold) and CLOSED neither send nor receive, FAILED could not be provisioned. This service provisions an account in the
 * transaction that opens it, so accounts are born ACTIVE (the column's default); PENDING and FAILED are reached only by
 * an account an operator or a future provisioning adapter opens PENDING.
 */
export const internalAccountLifecycle = defineLifecycle({
  name: 'internal-account',
  label: 'The internal account',
  statuses: ['PENDING', 'ACTIVE', 'FROZEN', 'CLOSED', 'FAILED'],
  transitions: {
    activate: { from: ['PENDING'], to: 'ACTIVE' },
    fail: { from: ['PENDING'], to: 'FAILED' },
    freeze: { from: ['ACTIVE'], to: 'FROZEN' },
    unfreeze: { from: ['FROZEN'], to: 'ACTIVE' },
    close: { from: ['ACTIVE', 'FROZEN'], to: 'CLOSED' },
  },
  terminal: ['CLOSED', 'FAILED'],
});
export type InternalAccountStatus = StatusOf<typeof internalAccountLifecycle>;
export type InternalAccountEvent = EventOf<typeof internalAccountLifecycle>;

/** The statuses that move money: only ACTIVE (REF: every other status "cannot send or receive payments"). */
export const canMoveMoney = (status: string): boolean => status === 'ACTIVE';

/**
 * The event that brings an account from `from` to the operator's `target` status, or undefined when none does
 * (ACTIVE is `activate` from PENDING and `unfreeze` from FROZEN).
 */
export function eventTowards(from: string, target: InternalAccountStatus): InternalAccountEvent | undefined {
  for (const [event, t] of Object.entries(internalAccountLifecycle.transitions)) {
    if (t.to === target && (t.from as readonly string[]).includes(from)) return event as InternalAccountEvent;
  }
  return undefined;
}
