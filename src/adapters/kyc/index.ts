import type { AppConfig } from '../../config.js';
import { adaptersFor } from '../current.js';
import type { KycProvider } from './port.js';
import { sandboxKycProvider } from './sandbox/index.js';

/**
 * The provider KYC_PROVIDER names, as built at start-up (src/adapters/registry.ts); prefer
 * `deps.adapters.kyc`. Without a registry (scripts, unit tests) the sandbox provider.
 */
export function kycProviderFor(config: AppConfig): KycProvider {
  return adaptersFor(config)?.kyc ?? sandboxKycProvider(config.PUBLIC_BASE_URL, config.API_BASE_PATH, config.SVC_ENV === 'sandbox');
}
