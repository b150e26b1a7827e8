import type { ContactCodeMessage } from './port.js';

/**
 * The text of a one-time code message, as every notifier sends it (issue 28, anchor 28b): an embedded-wallet
 * OTP carries the platform's `embeddedWalletConfig` brand (REF: the app name in the template, the sender's
 * address and name — "Notifications" by default —, reply-to and logo); a contact-verification code is plain.
 */
interface RenderedCodeMessage {
  subject: string;
  text: string;
  from?: { address?: string; name: string };
  replyTo?: string;
  logoUrl?: string;
}

export function renderContactCode(m: ContactCodeMessage): RenderedCodeMessage {
  const minutes = Math.max(1, Math.round((m.expiresAt.getTime() - Date.now()) / 60_000));
  if (!m.brand) return { subject: 'Your verification code', text: `Your verification code is ${m.code}. It expires in ${minutes} minutes.` };
  const app = m.brand.appName ?? 'your wallet';
  return {
    subject: `Your ${app} login code`,
    text: `${m.code} is your ${app} login code. It expires in ${minutes} minutes. If you did not ask for it, ignore this message.`,
    from: { name: m.brand.sendFromEmailSenderName ?? 'Notifications', ...(m.brand.sendFromEmailAddress ? { address: m.brand.sendFromEmailAddress } : {}) },
    ...(m.brand.replyToEmailAddress ? { replyTo: m.brand.replyToEmailAddress } : {}),
    ...(m.brand.logoUrl ? { logoUrl: m.brand.logoUrl } : {}),
  };
}
