import type { DomainModule } from '../../platform/module.js';
import { quoteRoutes } from './quotes.routes.js';
import { quoteListRoutes } from './quotes.list.js';

export const quotesModule: DomainModule = {
  name: 'quotes',
  routes: async (api) => {
    await quoteRoutes(api);
    await quoteListRoutes(api);
  },
};
