import { defineLifecycle } from '../../platform/state-machine.js';

/**
 * A bank link (REF's `plaid.*`): PENDING until a public token is exchanged and the account registered,
 * once. FAILED is a status the table allows for a provider's refusal; no move leads there yet.
 */
export const BANK_LINK_STATUSES = ['PENDING', 'COMPLETED', 'FAILED'] as const;

export const bankLinkLifecycle = defineLifecycle({
  name: 'bank-link',
  label: 'The bank link',
  statuses: BANK_LINK_STATUSES,
  transitions: { complete: { from: ['PENDING'], to: 'COMPLETED' } },
  terminal: ['COMPLETED', 'FAILED'],
});
