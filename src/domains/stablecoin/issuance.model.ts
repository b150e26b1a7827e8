import { defineLifecycle, type TransitionTable } from '../../platform/state-machine.js';
import { STABLECOIN_ENABLEMENT_STATUSES, stablecoinEnablementTransitions } from './stablecoin.model.js';

/*
 * Stablecoin issuance (REF "Stablecoins", docs/decisions.md anchor 26): provider account links, tokens
 * with their per-token operations status, and mint/burn operations. Pure: statuses, transition tables,
 * the amount rule and the mapping of the issuer's answers onto our lifecycle.
 */

export const STABLECOIN_PROVIDERS = ['BRALE'] as const;
export const STABLECOIN_NETWORKS = ['SPARK'] as const;
export const ISSUANCE_STATUSES = ['PENDING_REVIEW', 'PROVISIONING', 'PROVISIONED', 'REJECTED', 'FAILED'] as const;
export const OPERATION_TYPES = ['MINT', 'BURN'] as const;

// ------------------------------------------------------------------ provider account link

export const PROVIDER_ACCOUNT_STATUSES = ['ACTIVE', 'INVALID', 'REVOKED'] as const;
export type ProviderAccountStatus = (typeof PROVIDER_ACCOUNT_STATUSES)[number];

/**
 * A link is ACTIVE from creation (the credentials were verified first). The re-verification job and a
 * provider refusal move it to INVALID or REVOKED; REVOKED is final (the platform links again). An INVALID
 * link that verifies again (the provider fixed its side) returns to ACTIVE.
 */
export const providerAccountTransitions = {
  invalidate: { from: ['ACTIVE'], to: 'INVALID' },
  revoke: { from: ['ACTIVE', 'INVALID'], to: 'REVOKED' },
  reactivate: { from: ['INVALID'], to: 'ACTIVE' },
} as const satisfies TransitionTable<ProviderAccountStatus>;
export type ProviderAccountEvent = keyof typeof providerAccountTransitions;

export const providerAccountLifecycle = defineLifecycle({
  name: 'stablecoin-provider-account',
  label: 'The stablecoin provider account',
  statuses: PROVIDER_ACCOUNT_STATUSES,
  transitions: providerAccountTransitions,
  terminal: ['REVOKED'],
});

// ------------------------------------------------------------------ per-token operations status

/** REF `StablecoinGridOperationsStatus`: the five values and moves of /stablecoin-enablement, per token (decision A16). */
export const GRID_OPERATIONS_STATUSES = STABLECOIN_ENABLEMENT_STATUSES;
export const gridOperationsLifecycle = defineLifecycle({
  name: 'stablecoin-grid-operations',
  label: 'The stablecoin',
  statuses: GRID_OPERATIONS_STATUSES,
  transitions: stablecoinEnablementTransitions,
  terminal: [],
});
/** The operator names a target; this is the event reaching it (`npm run stablecoin:token-status`). */
export const GRID_OPERATIONS_EVENT_FOR = { PENDING_APPROVAL: 'request', ENABLING: 'approve', ENABLED: 'enable', DISABLED: 'disable' } as const;
export type GridOperationsTarget = keyof typeof GRID_OPERATIONS_EVENT_FOR;

// ------------------------------------------------------------------ operation

export const OPERATION_STATUSES = ['CREATED', 'PENDING_FUNDING', 'PENDING_PROVIDER', 'PROCESSING', 'COMPLETED', 'FAILED', 'EXPIRED'] as const;
export type OperationStatus = (typeof OPERATION_STATUSES)[number];

const OPEN = ['CREATED', 'PENDING_FUNDING', 'PENDING_PROVIDER', 'PROCESSING'] as const;

/**
 * REF's lifecycle. The provider may skip steps (an ACH-debited mint is never PENDING_FUNDING; a poll may
 * find it already COMPLETED), so each step is allowed from every earlier open status, never backwards.
 * Only the service expires an operation: one still waiting for funds at `expiresAt`.
 */
export const operationTransitions = {
  awaitFunding: { from: ['CREATED'], to: 'PENDING_FUNDING' },
  fund: { from: ['CREATED', 'PENDING_FUNDING'], to: 'PENDING_PROVIDER' },
  process: { from: ['CREATED', 'PENDING_FUNDING', 'PENDING_PROVIDER'], to: 'PROCESSING' },
  complete: { from: OPEN, to: 'COMPLETED' },
  fail: { from: OPEN, to: 'FAILED' },
  expire: { from: ['PENDING_FUNDING'], to: 'EXPIRED' },
} as const satisfies TransitionTable<OperationStatus>;
export type OperationEvent = keyof typeof operationTransitions;

export const operationLifecycle = defineLifecycle({
  name: 'stablecoin-operation',
  label: 'The stablecoin operation',
  statuses: OPERATION_STATUSES,
  transitions: operationTransitions,
  terminal: ['COMPLETED', 'FAILED', 'EXPIRED'],
});


/** Where the issuer's word puts an operation, as the event that gets it there. */
const EVENT_FOR_ISSUER_STATUS = { AWAITING_FUNDS: 'awaitFunding', PENDING: 'fund', PROCESSING: 'process', COMPLETED: 'complete', FAILED: 'fail' } as const;

/**
 * The event that moves an operation in `current` to what the issuer reports, or null when it is no
 * move: the same status (a repeated poll), an older one (a stale push: statuses never go back), or a
 * PENDING that is the issuer not knowing the operation (notFound).
 */
export function operationEventFor(current: OperationStatus, issuer: keyof typeof EVENT_FOR_ISSUER_STATUS, notFound = false): OperationEvent | null {
  if (notFound) return null;
  const event = EVENT_FOR_ISSUER_STATUS[issuer];
  return (operationTransitions[event].from as readonly string[]).includes(current) ? event : null;
}

/**
 * REF: "the amount must convert exactly to a whole fiat cent for the token decimals". Returns the fiat
 * amount in the base currency's minor units, or undefined when the amount does not convert exactly.
 */
export function fiatAmountOf(amount: bigint, tokenDecimals: number, fiatDecimals: number): bigint | undefined {
  if (tokenDecimals < fiatDecimals) return amount * 10n ** BigInt(fiatDecimals - tokenDecimals);
  const unit = 10n ** BigInt(tokenDecimals - fiatDecimals);
  return amount % unit === 0n ? amount / unit : undefined;
}

/** REF's static rail timing guidance for a burn's fiat payout (`estimatedDelivery.timing`). */
export const PAYOUT_TIMING: Record<string, string> = {
  WIRE: 'Same business day',
  ACH_CREDIT: '1-3 business days',
  SAME_DAY_ACH_CREDIT: 'Same business day',
  RTP_CREDIT: 'Within minutes',
};
