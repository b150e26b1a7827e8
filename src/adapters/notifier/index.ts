import type { Logger } from 'pino';
import type { AppConfig } from '../../config.js';
import type { Notifier } from './port.js';
import { sandboxNotifier } from './sandbox/index.js';

/** The notifier NOTIFIER names (validated by config: an unknown id stops start-up). */
export function notifierFor(config: AppConfig, logger: Logger): Notifier {
  switch (config.NOTIFIER) {
    case 'sandbox':
      return sandboxNotifier(logger);
  }
}
