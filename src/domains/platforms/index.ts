import type { DomainModule } from '../../platform/module.js';
import { configRoutes } from './config.routes.js';

export { getConfig, invalidatePlatformSettings, type PlatformConfigView } from './config.service.js';
export { bindWalletConfig } from './config.service.js'; // hook:28
export { PROVIDER_REQUIRED_CUSTOMER_FIELDS } from './currency-config.js';
export { incomingApprovalOn } from './platforms.model.js'; // hook:25c

export const platformsModule: DomainModule = {
  name: 'platforms',
  routes: (api, deps) => configRoutes(api, deps),
};
