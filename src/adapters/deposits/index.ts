import type { AppConfig } from '../../config.js';
import type { DepositDetector } from './port.js';
import { createSandboxDepositDetector } from './sandbox/index.js';

const cache = new WeakMap<AppConfig, DepositDetector>();

/** The detector named by DEPOSIT_DETECTOR (loadConfig refuses unknown ids). */
export function depositDetectorFor(config: AppConfig): DepositDetector {
  let d = cache.get(config);
  if (!d) {
    d = createSandboxDepositDetector();
    cache.set(config, d);
  }
  return d;
}
