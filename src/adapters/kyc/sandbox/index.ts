import type { CallOptions } from '../../common.js';
import type { HostedLink, HostedLinkRequest, KycCase, KycOutcome, KycProvider } from '../port.js';

export const SANDBOX_HOSTED_PATH = '/hosted/kyc';

/**
 * The deterministic sandbox provider (decision A9, README "Sandbox behaviour"). Its hosted page is
 * served by this service itself at `<PUBLIC_BASE_URL><API_BASE_PATH>/hosted/kyc/<token>`. Decisions
 * by the last three characters of the name (fullName or businessInfo.legalName):
 * `004` HOLD the first time (approved after a new submission), `005` REJECTED, `006` manual review
 * then APPROVED; an owner whose lastName ends in `002` fails, rejecting the case; anything else APPROVED.
 * With SVC_ENV=production it decides nothing: every case goes to PENDING_MANUAL_REVIEW and stays there.
 */
export function sandboxKycProvider(publicBaseUrl: string, basePath: string, sandbox = true): KycProvider {
  const root = `${publicBaseUrl.replace(/\/$/, '')}${basePath}${SANDBOX_HOSTED_PATH}`;
  return {
    id: 'sandbox',
    provider: 'SANDBOX',
    async createHostedLink(request: HostedLinkRequest, callOpts?: CallOptions): Promise<HostedLink> {
      callOpts?.signal?.throwIfAborted();
      return { kycUrl: `${root}/${request.token}` };
    },
    async decide(c: KycCase, callOpts?: CallOptions): Promise<KycOutcome> {
      callOpts?.signal?.throwIfAborted();
      // Decision A2: outside sandbox nothing is decided by magic values; the case waits for a reviewer.
      if (!sandbox) return c.reviewed ? { status: 'PENDING' } : { status: 'MANUAL_REVIEW' };
      const failedOwner = c.owners.find((o) => o.lastName.trim().endsWith('002'));
      if (failedOwner) return { status: 'REJECTED', reason: 'A beneficial owner failed identity verification.', ownerId: failedOwner.id };
      switch (c.name.trim().slice(-3)) {
        case '005':
          return { status: 'REJECTED', reason: 'The provider rejected the applicant.' };
        case '004':
          if (c.previousHolds === 0) return { status: 'HOLD', reason: 'The identity document is of poor quality; upload a clearer one and submit again.' };
          return { status: 'APPROVED' };
        case '006':
          return c.reviewed ? { status: 'APPROVED' } : { status: 'MANUAL_REVIEW' };
        default:
          return { status: 'APPROVED' };
      }
    },
  };
}
