import type { AppConfig } from '../../config.js';
import type { KycProvider } from './port.js';
import { sandboxKycProvider } from './sandbox/index.js';

/** The provider KYC_PROVIDER names (validated by config: an unknown id stops start-up). */
export function kycProviderFor(config: AppConfig): KycProvider {
  switch (config.KYC_PROVIDER) {
    case 'sandbox':
      return sandboxKycProvider(config.PUBLIC_BASE_URL, config.API_BASE_PATH, config.SVC_ENV === 'sandbox');
  }
}
