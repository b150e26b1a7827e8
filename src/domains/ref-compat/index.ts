import type { DomainModule } from '../../platform/module.js';
import { refCompatRoutes } from './ref-compat.routes.js';

/**
 * The paths and bodies REF's official client calls where the spec has others (issue 13): thin
 * wrappers over the spec's own services, so a platform on the hosted service switches by changing
 * only its base URL and credentials.
 */
export const refCompatModule: DomainModule = {
  name: 'ref-compat',
  routes: (api) => refCompatRoutes(api),
};
// Issue 26: /agents/me/transfer-out and transfer-in (src/domains/agent-actions).
export { transferIn, transferOut } from './ref-compat.service.js';
export { transferOutBody } from './ref-compat.schemas.js';
