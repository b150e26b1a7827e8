import type { DomainModule } from '../../platform/module.js';
import { fundingRoutes } from './funding.routes.js';

/** Real-time funding (issue 6): deposits detected against real-time funded quotes' instructions. */
export const fundingModule: DomainModule = {
  name: 'funding',
  routes: (api) => fundingRoutes(api),
};
