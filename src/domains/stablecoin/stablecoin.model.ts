import { defineLifecycle, type TransitionTable } from '../../platform/state-machine.js';

/** Spec "Stablecoin enablement status"; decision A16. */
export const STABLECOIN_ENABLEMENT_STATUSES = ['NOT_ENABLED', 'PENDING_APPROVAL', 'ENABLING', 'ENABLED', 'DISABLED'] as const;
export type StablecoinEnablementStatus = (typeof STABLECOIN_ENABLEMENT_STATUSES)[number];

/**
 * `request` is the platform's only move (POST /stablecoin-enablement); the others are the operator's
 * (npm run stablecoin:set). A repeated request while PENDING_APPROVAL succeeds without a move (spec), so it
 * is not in the table: the service answers it before consulting the table.
 */
export const stablecoinEnablementTransitions = {
  request: { from: ['NOT_ENABLED'], to: 'PENDING_APPROVAL' },
  approve: { from: ['PENDING_APPROVAL', 'DISABLED'], to: 'ENABLING' },
  enable: { from: ['PENDING_APPROVAL', 'ENABLING'], to: 'ENABLED' },
  disable: { from: ['PENDING_APPROVAL', 'ENABLING', 'ENABLED'], to: 'DISABLED' },
} as const satisfies TransitionTable<StablecoinEnablementStatus>;
export type StablecoinEnablementEvent = keyof typeof stablecoinEnablementTransitions;

/** No status is final: the operator can disable an enabled platform and approve a disabled one again. */
export const stablecoinEnablementLifecycle = defineLifecycle({
  name: 'stablecoin-enablement',
  label: 'Stablecoin enablement',
  statuses: STABLECOIN_ENABLEMENT_STATUSES,
  transitions: stablecoinEnablementTransitions,
  terminal: [],
});

/** The operator names a target status; this is the event that reaches it. */
export const OPERATOR_EVENT_FOR: Record<'ENABLING' | 'ENABLED' | 'DISABLED', StablecoinEnablementEvent> = {
  ENABLING: 'approve',
  ENABLED: 'enable',
  DISABLED: 'disable',
};
