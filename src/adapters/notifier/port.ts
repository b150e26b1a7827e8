import type { AdapterLifecycle, CallOptions } from '../common.js';

/**
 * Delivers one-time contact-verification codes (email or SMS). The service makes the code, keeps
 * only its hash, and hands the plain code to the notifier once; a notifier never stores it.
 */
export type NotifierChannel = 'email' | 'phone';

export interface ContactCodeMessage {
  /** Our customer id: the provider's idempotency reference. */
  customerId: string;
  channel: NotifierChannel;
  /** Email address or E.164 phone number. */
  to: string;
  code: string;
  expiresAt: Date;
  /**
   * Embedded-wallet OTPs (issue 28): the platform's `embeddedWalletConfig` (appName, sender, reply-to,
   * logo) to brand the message with. Absent for contact verification.
   */
  brand?: { appName?: string; sendFromEmailAddress?: string; sendFromEmailSenderName?: string; replyToEmailAddress?: string; logoUrl?: string };
}

/**
 * Called after the code is committed, outside any transaction; a throw is reported to the caller
 * (who can ask for a new code). Resolve once the provider accepted the message.
 */
export interface Notifier extends AdapterLifecycle {
  readonly id: string;
  sendContactCode(message: ContactCodeMessage, opts?: CallOptions): Promise<void>;
}
