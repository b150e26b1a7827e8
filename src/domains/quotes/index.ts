import type { DomainModule } from '../../platform/module.js';
import { quoteRoutes } from './quotes.routes.js';

export const quotesModule: DomainModule = {
  name: 'quotes',
  routes: (api) => quoteRoutes(api),
};
