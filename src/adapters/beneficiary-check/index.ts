import type { AppConfig } from '../../config.js';
import { adaptersFor } from '../current.js';
import type { BeneficiaryCheckAdapter } from './port.js';
import { sandboxBeneficiaryCheck } from './sandbox/index.js';

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

/** The adapter built at start-up (src/adapters/registry.ts); prefer `deps.adapters.beneficiaryCheck`. */
export function beneficiaryCheckAdapter(config: AppConfig): BeneficiaryCheckAdapter {
  return adaptersFor(config)?.beneficiaryCheck ?? (config.SVC_ENV === 'sandbox' ? sandboxBeneficiaryCheck : noBeneficiaryCheck);
}
