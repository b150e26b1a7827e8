import type { DomainModule } from '../../platform/module.js';
import { stablecoinRoutes } from './stablecoin.routes.js';

export const stablecoinModule: DomainModule = {
  name: 'stablecoin',
  routes: (api) => stablecoinRoutes(api),
};
