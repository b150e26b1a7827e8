import type { DomainModule } from '../../platform/module.js';
import { plaidRoutes, plaidSandboxPages } from './plaid.routes.js';

/** Bank-account linking through the bank-link adapter (REF's `plaid.*`, issue 13). */
export const plaidModule: DomainModule = {
  name: 'plaid',
  routes: (api) => plaidRoutes(api),
  publicRoutes: (app, deps) => plaidSandboxPages(app, deps),
};
