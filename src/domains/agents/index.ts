import type { DomainModule } from '../../platform/module.js';
import { agentPublicRoutes, agentRoutes } from './agents.routes.js';

/** Agents (A17; REF's shape, issue 26): created by the platform for one customer, authenticated by Bearer tokens from device codes. */
export const agentsModule: DomainModule = {
  name: 'agents',
  routes: (api) => agentRoutes(api),
  publicRoutes: (app, deps) => agentPublicRoutes(app, deps),
};

/** What other domains call: payments and funding ask the agent's policy (limits, approval); agent-actions runs the actions. */
export { agentActorOf, getAgent } from './agents.service.js';
export { agentResource } from './agents.schemas.js';
export { assertMayAct, assertWithinTransactionLimit, convertForPolicy, countUsage, releaseDailyUsage, toPolicyAmount } from './agents.policy.js';
export { actionNotFound, admitAgentExecution, agentActionResource, announcePendingAction, moveAction, settleActionOfTransaction } from './agents.actions.js';
export { needsApproval, policyOf, type ActionType, type AgentPermission } from './agents.model.js';
