import type { AppConfig } from '../../config.js';
import type { BeneficiaryCheckAdapter } from './port.js';
import { sandboxBeneficiaryCheck } from './sandbox/index.js';

/**
 * Without a provider (production until one is integrated) nothing can be verified: every account reports
 * UNSUPPORTED, honestly, and proceeds. The sandbox adapter's magic outcomes never run in production (A2).
 */
const unsupported: BeneficiaryCheckAdapter = {
  id: 'none',
  async check(req) {
    return { status: req.accountType === 'USD_ACCOUNT' ? 'CHECKED_BY_RECEIVING_FI' : 'UNSUPPORTED', requiresReview: false };
  },
};

export function beneficiaryCheckAdapter(config: AppConfig): BeneficiaryCheckAdapter {
  return config.SVC_ENV === 'sandbox' ? sandboxBeneficiaryCheck : unsupported;
}
