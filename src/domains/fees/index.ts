import type { DomainModule } from '../../platform/module.js';
import { exchangeRateRoutes } from './rates.routes.js';

export const feesModule: DomainModule = {
  name: 'fees',
  routes: (api) => exchangeRateRoutes(api),
};

/** What other domains call: pricing (payments), exchange rates (payments, agents, uma), fee configuration rules (platforms). */
export { getExchangeRate } from './rates.service.js';
export { priceQuoteForWire, type Pricing } from './pricing.js';
export { applicableFees, defaultPaymentRail, serviceFeeSchedule, validatePlatformFeeOverride } from './fee-rules.js';
export { assertFeeConfigSupported, feeConfigInput, feeConfigKey, isActiveFee } from './fees.model.js';
