import type { AppDeps } from '../../deps.js';
import type { RailAdapter } from './port.js';
import { createSandboxRail } from './sandbox/index.js';

const cache = new WeakMap<AppDeps, RailAdapter>();

/**
 * The adapter serving a rail. Today every rail is served by the sandbox rail; per-rail selection
 * by configuration (RAIL_ADAPTERS) arrives with the pluggable-providers work.
 */
export function railFor(deps: AppDeps, _rail: string): RailAdapter {
  let adapter = cache.get(deps);
  if (!adapter) {
    adapter = createSandboxRail({
      redis: deps.redis,
      prefix: deps.config.REDIS_PREFIX,
      now: () => deps.clock.now().getTime(),
      delayScale: deps.config.SANDBOX_RAIL_DELAY_SCALE,
      slowMs: deps.config.SANDBOX_SLOW_MS,
      returnAfterMs: deps.config.SANDBOX_RETURN_AFTER_MS,
    });
    cache.set(deps, adapter);
  }
  return adapter;
}
