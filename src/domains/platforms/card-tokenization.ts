import { z } from 'zod';

/**
 * REF's `cardTokenization2faConfig` (issue 27; REF `CardTokenization2FAConfig`): the platform's branding
 * and sender settings for the codes a cardholder receives when adding a card to a digital wallet. Kept
 * with the platform and served by GET /config; the card issuer's tokenization flow reads it. A PATCH
 * changes only the fields it sends, nested ones included (REF: "Fields omitted from the nested object
 * are left unchanged").
 */
const email = z.strictObject({
  fromAddress: z.email().max(255).optional(),
  fromName: z.string().min(1).max(255).optional(),
  replyToAddress: z.email().max(255).optional(),
  subject: z.string().min(1).max(255).optional(),
  bodyText: z.string().min(1).max(2000).optional(),
});
const sms = z.strictObject({
  templateSid: z.string().min(1).max(64).optional(),
  bodyText: z.string().min(1).max(480).optional(),
});
export const cardTokenization2faConfigInput = z.strictObject({
  displayName: z.string().min(1).max(255).optional(),
  logoUrl: z.url({ protocol: /^https$/ }).max(512).optional(),
  email: email.optional(),
  sms: sms.optional(),
});
export type CardTokenization2faConfig = z.infer<typeof cardTokenization2faConfigInput>;

/** The stored configuration with `patch` applied, field by field (nested objects merged, not replaced). */
export function mergeCardTokenization2faConfig(stored: unknown, patch: CardTokenization2faConfig): CardTokenization2faConfig {
  const before = (stored && typeof stored === 'object' ? stored : {}) as CardTokenization2faConfig;
  return {
    ...before,
    ...patch,
    ...(patch.email ? { email: { ...before.email, ...patch.email } } : {}),
    ...(patch.sms ? { sms: { ...before.sms, ...patch.sms } } : {}),
  };
}
