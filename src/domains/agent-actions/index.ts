import type { DomainModule } from '../../platform/module.js';
import { agentActionRoutes } from './agent-actions.routes.js';
import { expireAgentActions, finishOwedPulls } from './agent-actions.service.js';

/**
 * REF's agent surface (issue 26): the agent's own calls under /agents/me/* (Bearer token) and the platform's
 * decisions on AgentActions. Sits above agents and payments: the actions it approves execute through the
 * payments domain's one start (beginExecution).
 */
export const agentActionsModule: DomainModule = {
  name: 'agent-actions',
  routes: (api) => agentActionRoutes(api),
  loops: [{ name: 'agent-action-expiry', intervalMs: (deps) => deps.config.AGENT_ACTION_SWEEP_INTERVAL_MS, batch: (deps) => deps.config.AGENT_ACTION_SWEEP_BATCH, run: expireAgentActions },
    // 26c: TRANSFER_IN actions approved whose pull a dead process never ran.
    { name: 'agent-owed-pulls', intervalMs: (deps) => deps.config.AGENT_ACTION_SWEEP_INTERVAL_MS, batch: (deps) => deps.config.AGENT_ACTION_SWEEP_BATCH, run: finishOwedPulls },
  ],
};
