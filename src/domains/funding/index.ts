import type { DomainModule } from '../../platform/module.js';
import { fundingRoutes } from './funding.routes.js';

/** Real-time funding (issue 6): deposits detected against real-time funded quotes' instructions. */
export const fundingModule: DomainModule = {
  name: 'funding',
  routes: (api) => fundingRoutes(api),
};

/** What ref-compat calls: a detected deposit (the sandbox's simulated one). */
export { receiveDeposit } from './funding.service.js';
