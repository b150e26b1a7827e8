import type { AppConfig } from '../../config.js';
import type { Clock } from '../../platform/clock.js';
import type { FxRateProvider } from './port.js';
import { sandboxFxProvider } from './sandbox/index.js';

/** The provider named by `FX_PROVIDER` (loadConfig refuses unknown ids, so start-up fails on them). */
export function fxRateProvider(config: AppConfig, clock: Clock): FxRateProvider {
  switch (config.FX_PROVIDER) {
    case 'sandbox':
      return sandboxFxProvider({ spreadBps: config.FX_SPREAD_BPS, clock });
  }
}
