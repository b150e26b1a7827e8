import type { Logger } from 'pino';
import type { CallOptions } from '../../common.js';
import type { ContactCodeMessage, Notifier } from '../port.js';
import { renderContactCode } from '../message.js';

/**
 * Sends nothing: it writes the code to the log at debug level (never the address or number), so a
 * developer can complete the flow. In sandbox the code is the documented fixed `123456` (decision A2).
 * The field is `sandboxCode` on purpose: `*.code` is redacted from every log line.
 */
export function sandboxNotifier(logger: Logger): Notifier {
  return {
    id: 'sandbox',
    async sendContactCode(m: ContactCodeMessage, callOpts?: CallOptions) {
      callOpts?.signal?.throwIfAborted();
      // The message as a real notifier would send it, without its text (the code is in it) and without the address.
      const { subject, from, replyTo } = renderContactCode(m);
      logger.debug({ customerId: m.customerId, channel: m.channel, sandboxCode: m.code, expiresAt: m.expiresAt.toISOString(), subject, from, replyTo }, 'contact verification code');
    },
  };
}
