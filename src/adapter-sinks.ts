import type { AppDeps } from './deps.js';
import type { AdapterSinks } from './adapters/registry.js';
import { NotFoundError } from './platform/errors.js';
import { platformOfLookup } from './platform/tenant-lookups.js';
import { receivePayoutReport } from './domains/payments/index.js';
import { receiveLivenessOutcome } from './domains/external-accounts/ownership.service.js';
import { receiveResetLivenessOutcome } from './domains/sca/index.js';
import { enqueueBeneficiaryCheck } from './domains/external-accounts/external-accounts.queue.js';
import { enqueueDecision } from './domains/verification/verification.jobs.js';
import { OPEN_STATUSES } from './domains/verification/verification.model.js';
import { receiveIssuerReport } from './domains/stablecoin/index.js';
import { applyCardEvent, authorizeCard, receiveProvisioned } from './domains/cards/index.js';
import { receiveCollectionCredit } from './domains/collection/index.js';

/**
 * Where adapters' asynchronous outcomes enter the domains (the callbacks of AdapterContext). Each
 * only finds the object and queues the step the domain would run anyway (apply a payout result,
 * ask the KYC provider again, apply a liveness outcome, re-run a beneficiary check), so a pushed
 * outcome takes the same code path as a polled one and a duplicate changes nothing.
 */
export function adapterSinks(deps: () => AppDeps): AdapterSinks {
  return {
    reportPayout: (report, serves) => receivePayoutReport(deps(), report, serves),
    // Issue 27: the card issuer's synchronous authorizations and asynchronous events.
    cardAuthorization: (adapterId, req) => authorizeCard(deps(), adapterId, req),
    cardEvent: (adapterId, event) => applyCardEvent(deps(), adapterId, event),
    cardProvisioned: (adapterId, result) => receiveProvisioned(deps(), adapterId, result),
    // Issue 26 (26a): a credit on pay-in coordinates.
    collectionCredit: (adapterId, credit) => receiveCollectionCredit(deps(), adapterId, credit),

    async kycCaseUpdated(caseId) {
      const d = deps();
      // Issue 29 (29a): the case's platform first (tenant_lookups), then the case by its key.
      const platformId = await platformOfLookup(d.prisma, 'KYC_CASE', caseId);
      const v = platformId ? await d.prisma.verification.findFirst({ where: { platformId, id: caseId }, select: { id: true, platformId: true, status: true, decisionCount: true } }) : null;
      if (!v || !(OPEN_STATUSES as readonly string[]).includes(v.status)) return 'UNKNOWN_CASE';
      await enqueueDecision(d, v.platformId, v, { suffix: `_p${d.clock.now().getTime()}` });
      return 'ACCEPTED';
    },

    async livenessOutcome(token, outcome) {
      try {
        await receiveLivenessOutcome(deps(), token, outcome);
        return 'ACCEPTED';
      } catch (err) {
        // Not a wallet-ownership session: perhaps an SCA factor reset's (src/domains/sca).
        if (err instanceof NotFoundError) return receiveResetLivenessOutcome(deps(), token, outcome);
        throw err;
      }
    },

    issuerOperationUpdated: (provider, reference) => receiveIssuerReport(deps(), provider, reference),

    async beneficiaryCheckUpdated(reference) {
      const d = deps();
      const platformId = await platformOfLookup(d.prisma, 'EXTERNAL_ACCOUNT', reference);
      const a = platformId
        ? await d.prisma.externalAccount.findFirst({ where: { platformId, id: reference, isDeleted: false, beneficiaryVerificationStatus: 'PENDING' }, select: { id: true, platformId: true } })
        : null;
      if (!a) return 'UNKNOWN_CHECK';
      await enqueueBeneficiaryCheck(d, { platformId: a.platformId, accountId: a.id }, `p${d.clock.now().getTime()}`);
      return 'ACCEPTED';
    },
  };
}
