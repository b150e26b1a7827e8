import { z } from 'zod';
import { feeConfigInput } from '../fees/index.js';
import { isKnownCurrency } from '../../platform/currencies.js';
import { cardTokenization2faConfigInput } from './card-tokenization.js';

export const CUSTOMER_INFO_FIELD_NAMES = [
  'FULL_NAME', 'BIRTH_DATE', 'NATIONALITY', 'PHONE_NUMBER', 'EMAIL', 'POSTAL_ADDRESS', 'TAX_ID',
  'REGISTRATION_NUMBER', 'USER_TYPE', 'COUNTRY_OF_RESIDENCE', 'ACCOUNT_IDENTIFIER', 'FI_LEGAL_ENTITY_NAME',
  'FI_ADDRESS', 'PURPOSE_OF_PAYMENT', 'ULTIMATE_INSTITUTION_COUNTRY', 'IDENTIFIER', 'BUSINESS_TYPE',
  'COMPANY_LEGAL_NAME', 'ID_TYPE', 'ID_NUMBER',
] as const;

const amount = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);

export const currencyConfigInput = z
  .object({
    currencyCode: z.string().refine(isKnownCurrency, { message: 'Unknown currency.' }),
    minAmount: amount,
    maxAmount: amount,
    requiredCounterpartyFields: z
      .array(z.object({ name: z.enum(CUSTOMER_INFO_FIELD_NAMES), mandatory: z.boolean() }))
      .max(CUSTOMER_INFO_FIELD_NAMES.length),
    enabledTransactionTypes: z.array(z.enum(['INCOMING', 'OUTGOING'])).max(2),
  })
  .refine((c) => c.maxAmount >= c.minAmount, { message: 'maxAmount must be at least minAmount.', path: ['maxAmount'] });

export const patchConfigBody = z.object({
  webhookEndpoint: z.string().max(2048).nullable().optional(),
  umaDomain: z
    .string()
    .regex(/^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/i, 'Must be a domain name.')
    .nullable()
    .optional(),
  feeConfigs: z.array(feeConfigInput).max(100).optional(),
  supportedCurrencies: z.array(currencyConfigInput).max(200).optional(),
  /** Cards (decision A13): live-card maximum and the one-card-per-cardholder rule. */
  maxLiveCards: z.number().int().min(0).max(10_000_000).optional(),
  oneCardPerCardholder: z.boolean().optional(),
  /**
   * Issue 25: refuse money movement of customers without recorded End User Terms consent (403
   * END_USER_TERMS_NOT_ACCEPTED); null returns to the deployment's END_USER_TERMS_ENFORCEMENT.
   */
  endUserTermsRequired: z.boolean().nullable().optional(),
  /** REF's Global Accounts branding (issue 28): fields sent merge into the stored ones; null turns Global Accounts off. */
  embeddedWalletConfig: z.lazy(() => embeddedWalletConfigInput).nullable().optional(), // hook:28
  cardTokenization2faConfig: cardTokenization2faConfigInput.optional(), // issue 27 (REF): merged field by field
  /** Issue 25 (25c): minimum beneficiary fields, the spec's or REF's; null returns to BENEFICIARY_RULES. */
  beneficiaryRules: z.enum(['SPEC', 'REF']).nullable().optional(),
  /** Issue 25 (25c): REF's incoming-payment approval handshake; null returns to INCOMING_PAYMENT_APPROVAL. */
  incomingPaymentApproval: z.boolean().nullable().optional(),
});
export type PatchConfigBody = z.infer<typeof patchConfigBody>;

/**
 * REF's EmbeddedWalletConfig (issue 28, anchor 28b), with REF's bounds. Its presence (with USDB among the
 * platform's currencies) turns Global Accounts on; it brands the OTP messages (src/adapters/notifier).
 */
const email255 = z.string().email().max(255);
export const embeddedWalletConfigInput = z.strictObject({
  appName: z.string().min(1).max(255).optional(),
  otpLength: z.number().int().min(4).max(12).optional(),
  alphanumeric: z.boolean().optional(),
  expirationSeconds: z.number().int().min(1).max(86_400).optional(),
  sendFromEmailAddress: email255.optional(),
  sendFromEmailSenderName: z.string().min(1).max(255).optional(),
  replyToEmailAddress: email255.optional(),
  logoUrl: z.string().url().max(512).refine((u) => /^https?:/i.test(u), { message: 'Must be an http(s) URL.' }).optional(),
});
export type EmbeddedWalletConfigInput = z.infer<typeof embeddedWalletConfigInput>;
