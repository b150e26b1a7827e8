import type { DomainModule } from '../../platform/module.js';
import { agentPublicRoutes, agentRoutes } from './agents.routes.js';

/** Agents (A17): created by the platform for one customer, authenticated by Bearer tokens from device codes. */
export const agentsModule: DomainModule = {
  name: 'agents',
  routes: (api) => agentRoutes(api),
  publicRoutes: (app, deps) => agentPublicRoutes(app, deps),
};

/** What other domains call: payments and funding ask the agent's policy (limits, approval threshold). */
export { agentActorOf } from './agents.service.js';
export { assertWithinTransactionLimit, countDailyUsage, releaseDailyUsage, toPolicyAmount } from './agents.policy.js';
export { policyDecision } from './agents.model.js';
