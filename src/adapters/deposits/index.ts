import type { AppConfig } from '../../config.js';
import type { DepositDetector } from './port.js';
import { createSandboxDepositDetector } from './sandbox/index.js';

/**
 * @deprecated The detector is `deps.adapters.deposits` (built and checked by src/adapters/registry.ts).
 * Kept only for src/domains/payments/quotes.funding.ts until the payments rewrite (issue 24) calls
 * `ctx.adapters.deposits`; answers the built-in sandbox detector, the only one DEPOSIT_DETECTOR can
 * name until then (so instructions and matching always agree).
 */
export function depositDetectorFor(_config: AppConfig): DepositDetector {
  return sandboxDetector;
}

const sandboxDetector = createSandboxDepositDetector();
