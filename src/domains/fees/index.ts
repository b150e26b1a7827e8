import type { DomainModule } from '../../platform/module.js';
import { exchangeRateRoutes } from './rates.routes.js';

export const feesModule: DomainModule = {
  name: 'fees',
  routes: (api) => exchangeRateRoutes(api),
};
