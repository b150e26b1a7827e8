import type { AppDeps } from '../../deps.js';
import type { RailAdapter } from './port.js';

/**
 * The adapter serving a rail, as RAIL_ADAPTERS configures it (built and validated at start-up by
 * src/adapters/registry.ts; rails not named there go to the `*` adapter, sandbox by default).
 */
export function railFor(deps: AppDeps, rail: string): RailAdapter {
  return deps.adapters.rails.forRail(rail === 'NONE' ? null : rail);
}
