import type { BeneficiaryCheckAdapter } from './port.js';

/**
 * Without a provider (BENEFICIARY_CHECK_PROVIDER=none, the production default) nothing can be verified:
 * every account reports UNSUPPORTED, honestly, and proceeds. The sandbox adapter's magic outcomes never
 * run in production (A2).
 */
export const noBeneficiaryCheck: BeneficiaryCheckAdapter = {
  id: 'none',
  async check(req, callOpts) {
    callOpts?.signal?.throwIfAborted();
    return { status: req.accountType === 'USD_ACCOUNT' ? 'CHECKED_BY_RECEIVING_FI' : 'UNSUPPORTED', requiresReview: false };
  },
};

