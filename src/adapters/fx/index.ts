import type { AppConfig } from '../../config.js';
import type { Clock } from '../../platform/clock.js';
import { adaptersFor } from '../current.js';
import type { FxRateProvider } from './port.js';
import { sandboxFxProvider } from './sandbox/index.js';

/**
 * The provider `FX_PROVIDER` names, as built at start-up (src/adapters/registry.ts); prefer
 * `deps.adapters.fx`. Without a registry (scripts, unit tests) the sandbox provider.
 */
export function fxRateProvider(config: AppConfig, clock: Clock): FxRateProvider {
  return adaptersFor(config)?.fx ?? sandboxFxProvider({ spreadBps: config.FX_SPREAD_BPS, clock });
}
