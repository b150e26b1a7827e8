import type { AppConfig } from '../../config.js';
import { adaptersFor } from '../current.js';
import type { LivenessAdapter } from './port.js';
import { sandboxLiveness } from './sandbox/index.js';

/**
 * The provider LIVENESS_PROVIDER names, as built at start-up (src/adapters/registry.ts); prefer
 * `deps.adapters.liveness`. undefined when none is configured (production default).
 */
export function livenessAdapter(config: AppConfig): LivenessAdapter | undefined {
  const registered = adaptersFor(config);
  if (registered) return registered.liveness;
  return config.SVC_ENV === 'sandbox' ? sandboxLiveness(config.PUBLIC_BASE_URL, config.API_BASE_PATH) : undefined;
}
