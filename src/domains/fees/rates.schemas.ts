import { z } from 'zod';
import { currencyOf, isKnownCurrency } from '../../platform/currencies.js';
import { toWireNumber } from '../../platform/money.js';
import type { ExchangeRateView } from './rates.service.js';

const currencyCode = z.string().refine(isKnownCurrency, { message: 'Unknown currency.' });
/** Decisions B§4.1: amounts up to 9 000 000 000 000 000 minor units. */
const MAX_SENDING_AMOUNT = 9_000_000_000_000_000n;
/** A bound on one listing; the platform's own currencies are far fewer. */
const MAX_DESTINATIONS = 100;

/** Repeated keys (`?d=INR&d=GBP`) and comma-joined values (`?d=INR,GBP`) both (decisions B§1). */
const queryList = z
  .union([z.string(), z.array(z.string())])
  .transform((v) => [...new Set([v].flat().flatMap((s) => s.split(',')).map((s) => s.trim()).filter(Boolean))])
  .pipe(z.array(currencyCode).min(1).max(MAX_DESTINATIONS));

export const exchangeRatesQuery = z.object({
  sourceCurrency: currencyCode,
  destinationCurrency: queryList.optional(),
  sendingAmount: z
    .string()
    .regex(/^\d{1,16}$/, 'Must be a non-negative integer.')
    .transform((s) => BigInt(s))
    .refine((n) => n <= MAX_SENDING_AMOUNT, { message: 'Must be at most 9000000000000000.' })
    .default(10_000n),
});

export function exchangeRateResource(v: ExchangeRateView) {
  return {
    sourceCurrency: currencyOf(v.sourceCurrency),
    destinationCurrency: currencyOf(v.destinationCurrency),
    destinationPaymentRail: v.destinationPaymentRail,
    sendingAmount: toWireNumber(v.sendingAmount),
    minSendingAmount: toWireNumber(v.minSendingAmount),
    maxSendingAmount: toWireNumber(v.maxSendingAmount),
    receivingAmount: toWireNumber(v.receivingAmount),
    // The wire carries the rate as a JSON number (decisions B§1); pricing used the exact decimal.
    exchangeRate: Number(v.exchangeRate),
    fees: { fixed: toWireNumber(v.fixedFees), total: toWireNumber(v.totalFees) },
    updatedAt: v.updatedAt.toISOString(),
  };
}
