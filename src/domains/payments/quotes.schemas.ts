import { z } from 'zod';
import { scaFactorField } from './quotes.sca-factor.js';

export const PURPOSES_OF_PAYMENT = [
  'GIFT', 'SELF', 'GOODS_OR_SERVICES', 'EDUCATION', 'HEALTH_OR_MEDICAL', 'REAL_ESTATE_PURCHASE', 'TAX_PAYMENT',
  'LOAN_PAYMENT', 'UTILITY_BILL', 'DONATION', 'TRAVEL', 'FAMILY_SUPPORT', 'SALARY_PAYMENT', 'OTHER',
] as const;

/** Decisions Part B §4.1: lockedCurrencyAmount up to 9e15, and JSON numbers are exact below 2^53. */
const MAX_LOCKED_AMOUNT = Number.MAX_SAFE_INTEGER;
const id = z.string().min(1).max(200);
const currency = z.string().regex(/^[A-Z]{3,4}$/);

export const createQuoteBody = z.object({
  source: z.discriminatedUnion('sourceType', [
    z.object({ sourceType: z.literal('ACCOUNT'), accountId: id, customerId: id.optional() }),
    z.object({ sourceType: z.literal('REALTIME_FUNDING'), currency, customerId: id.optional(), cryptoNetwork: z.string().max(20).optional() }),
  ]),
  destination: z.discriminatedUnion('destinationType', [
    z.object({ destinationType: z.literal('ACCOUNT'), accountId: id, paymentRail: z.string().regex(/^[A-Z_]{2,20}$/).optional(), currency: currency.optional() }),
    z.object({ destinationType: z.literal('UMA_ADDRESS'), umaAddress: z.string().min(1).max(300), currency: currency.optional() }),
  ]),
  lockedCurrencySide: z.enum(['SENDING', 'RECEIVING']),
  lockedCurrencyAmount: z.number().int().min(1).max(MAX_LOCKED_AMOUNT),
  immediatelyExecute: z.boolean().optional(),
  lookupId: id.optional(),
  description: z.string().max(1000).optional(),
  remittanceInformation: z.string().max(80).optional(),
  purposeOfPayment: z.enum(PURPOSES_OF_PAYMENT).optional(),
  senderCustomerInfo: z.record(z.string(), z.unknown()).optional(),
  platformFeeOverride: z.unknown().optional(),
  /** REF (issue 25): the SCA challenge's preferred factor (quotes.sca-factor.ts). */
  scaFactor: scaFactorField.optional(),
});
export type CreateQuoteBody = z.infer<typeof createQuoteBody>;

export const quoteIdParams = z.object({ quoteId: id });
