import type { Logger } from 'pino';
import type { AppConfig } from '../../config.js';
import { adaptersFor } from '../current.js';
import type { Notifier } from './port.js';
import { sandboxNotifier } from './sandbox/index.js';

/**
 * The notifier NOTIFIER names, as built at start-up (src/adapters/registry.ts); prefer
 * `deps.adapters.notifier`. Without a registry (scripts, unit tests) the sandbox notifier.
 */
export function notifierFor(config: AppConfig, logger: Logger): Notifier {
  return adaptersFor(config)?.notifier ?? sandboxNotifier(logger);
}
