import type { DomainModule } from '../../platform/module.js';
import { withdrawalFeeRoutes } from './withdrawal-fee.routes.js';

/** Issue 25: REF's crypto withdrawal fee estimate (POST /crypto/estimate-withdrawal-fee). */
export const withdrawalsModule: DomainModule = {
  name: 'withdrawals',
  routes: (api) => withdrawalFeeRoutes(api),
};
