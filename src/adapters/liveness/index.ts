import type { AppConfig } from '../../config.js';
import type { LivenessAdapter } from './port.js';
import { sandboxLiveness } from './sandbox/index.js';

/** Only the sandbox implementation exists; in production no liveness provider is configured (undefined). */
export function livenessAdapter(config: AppConfig): LivenessAdapter | undefined {
  return config.SVC_ENV === 'sandbox' ? sandboxLiveness(config.PUBLIC_BASE_URL, config.API_BASE_PATH) : undefined;
}
