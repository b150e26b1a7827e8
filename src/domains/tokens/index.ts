import type { DomainModule } from '../../platform/module.js';
import { tokenRoutes } from './tokens.routes.js';

export const tokensModule: DomainModule = {
  name: 'tokens',
  routes: (api) => tokenRoutes(api),
};
