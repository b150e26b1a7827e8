/** Who may call what: below every domain (src/platform/principal.ts), since the auth hook needs it. */
export { PERMISSIONS, type Permission } from '../../platform/principal.js';

export interface PlatformFlags {
  isRegulated: boolean;
  counterpartyRules: boolean;
  scaRegion: boolean;
}

/**
 * Issue 25 (decisions anchor 25c): whether incoming payments wait for the platform's decision (REF's approval
 * handshake) — the platform's PATCH /config `incomingPaymentApproval`, else the deployment's INCOMING_PAYMENT_APPROVAL.
 */
export function incomingApprovalOn(config: { INCOMING_PAYMENT_APPROVAL: 'off' | 'on' }, platform: { incomingPaymentApproval: boolean | null }): boolean {
  return platform.incomingPaymentApproval ?? config.INCOMING_PAYMENT_APPROVAL === 'on';
}
