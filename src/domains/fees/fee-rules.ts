import { z } from 'zod';
import type { AppConfig } from '../../config.js';
import { NotImplementedError, ValidationError, invariant } from '../../platform/errors.js';
import { toFieldErrors } from '../../platform/http/validate.js';
import { SUPPORTED_FEE_CURRENCY, SUPPORTED_ORIGINATOR } from './fees.model.js';
import type { FeeComponents } from './pricing.js';

/** An active FeeConfig row (the Prisma shape): only active configs are passed in. */
export interface ActiveFeeConfig {
  feeType: string;
  sourceCurrency: string | null;
  rail: string | null;
  direction: string | null;
  originator: string | null;
  variableFeeBps: number;
  fixedFeeAmount: bigint;
  fixedFeeCurrency: string;
}

/** `platformFeeOverride` of POST /quotes (spec "Platform fees"), validated. */
export interface PlatformFeeOverride {
  platformFixedFee: { amount: number; currency: string };
  platformVariableFeeBps: number;
}

/**
 * The service's own fee, charged on top of any platform fee and kept by the service.
 * - `crossCurrencyBps`: when sending and receiving currencies differ.
 * - `crossCurrencyFixed`: per sending currency (minor units of it), when currencies differ.
 * - `railFixed`: per rail; key `RAIL` is minor units of USD charged when sending USD, key
 *   `RAIL:CUR` minor units of CUR charged when sending CUR (the currency-specific key wins). A
 *   sending currency with no entry for the rail pays no fixed rail fee.
 * - `railBps`: per rail, whatever the sending currency.
 */
export interface ServiceFeeSchedule {
  crossCurrencyBps: number;
  crossCurrencyFixed: Record<string, bigint>;
  railFixed: Record<string, bigint>;
  railBps: Record<string, number>;
}

/**
 * Defaults (docs/decisions.md "Fees and FX"): 50 bps on cross-currency payments; fixed rail fees
 * on the US rails in cents (ACH 0.25, RTP 0.50, FedNow 0.50, wire 15.00); nothing else.
 */
export const DEFAULT_SERVICE_FEE_SCHEDULE: ServiceFeeSchedule = Object.freeze({
  crossCurrencyBps: 50,
  crossCurrencyFixed: Object.freeze({}) as Record<string, bigint>,
  railFixed: Object.freeze({ ACH: 25n, RTP: 50n, FEDNOW: 50n, WIRE: 1500n }) as Record<string, bigint>,
  railBps: Object.freeze({}) as Record<string, number>,
});

const toBigints = (r: Record<string, number>): Record<string, bigint> => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, BigInt(v)]));

/** The schedule in force: `SERVICE_FEE_SCHEDULE` (validated by loadConfig) over the defaults, field by field. */
export function serviceFeeSchedule(config: AppConfig): ServiceFeeSchedule {
  const env = config.SERVICE_FEE_SCHEDULE;
  const d = DEFAULT_SERVICE_FEE_SCHEDULE;
  return {
    crossCurrencyBps: env?.crossCurrencyBps ?? d.crossCurrencyBps,
    crossCurrencyFixed: env?.crossCurrencyFixed ? toBigints(env.crossCurrencyFixed) : { ...d.crossCurrencyFixed },
    railFixed: env?.railFixed ? toBigints(env.railFixed) : { ...d.railFixed },
    railBps: env?.railBps ? { ...env.railBps } : { ...d.railBps },
  };
}

/**
 * Default payment rail per destination currency, where the caller names none (GET /exchange-rates;
 * quotes to an account pick from the account's own `paymentRails`). Crypto assets go out on a chain:
 * USDC on Base, USDT on Tron, BTC over Lightning, USDB on Spark. Any other currency: SWIFT.
 */
const DEFAULT_RAIL: Record<string, string> = {
  USD: 'ACH',
  EUR: 'SEPA',
  DKK: 'SEPA',
  GBP: 'FASTER_PAYMENTS',
  MXN: 'SPEI',
  BRL: 'PIX',
  INR: 'UPI',
  SGD: 'PAYNOW',
  USDC: 'BASE',
  USDT: 'TRON',
  BTC: 'LIGHTNING',
  USDB: 'SPARK',
  ...Object.fromEntries(['BWP', 'HTG', 'KES', 'MWK', 'RWF', 'TZS', 'UGX', 'XAF', 'XOF', 'ZMW'].map((c) => [c, 'MOBILE_MONEY'])),
  ...Object.fromEntries(
    ['AED', 'BDT', 'CAD', 'CNY', 'COP', 'EGP', 'GHS', 'GTQ', 'HKD', 'IDR', 'ILS', 'JMD', 'MYR', 'NGN', 'PHP', 'PKR', 'THB', 'VND', 'ZAR'].map((c) => [c, 'BANK_TRANSFER']),
  ),
};

export function defaultPaymentRail(currency: string): string {
  return DEFAULT_RAIL[currency] ?? 'SWIFT';
}

function describeConfig(c: ActiveFeeConfig): string {
  return c.feeType === 'RAIL' ? `RAIL fee (${c.rail}, ${c.direction}, ${c.originator})` : `${c.feeType} fee (source ${c.sourceCurrency})`;
}

function configAppliesTo(c: ActiveFeeConfig, sendingCurrency: string, receivingCurrency: string, rail: string | null): boolean {
  if (c.feeType === 'CROSS_CURRENCY_TRANSACTION') return sendingCurrency !== receivingCurrency && c.sourceCurrency === sendingCurrency;
  if (c.feeType === 'RAIL') return rail !== null && c.rail === rail && c.direction === 'OUT' && c.originator === SUPPORTED_ORIGINATOR;
  return false;
}

/** Spec "Platform fees": fees are charged in USD only; anything else applying to a payment is 501. */
function assertChargeable(c: ActiveFeeConfig, sendingCurrency: string): void {
  if (sendingCurrency === SUPPORTED_FEE_CURRENCY && c.fixedFeeCurrency === SUPPORTED_FEE_CURRENCY) return;
  const what = describeConfig(c);
  throw new NotImplementedError(`The platform's ${what} cannot be charged on a payment sent in ${sendingCurrency}: platform fees are supported only in ${SUPPORTED_FEE_CURRENCY}.`, {
    feeConfig: { feeType: c.feeType, sourceCurrency: c.sourceCurrency, rail: c.rail, direction: c.direction, originator: c.originator, fixedFeeCurrency: c.fixedFeeCurrency },
  });
}

function serviceFeeFor(service: ServiceFeeSchedule, sendingCurrency: string, receivingCurrency: string, rail: string | null): FeeComponents {
  let fixed = 0n;
  let bps = 0;
  if (sendingCurrency !== receivingCurrency) {
    bps += service.crossCurrencyBps;
    fixed += service.crossCurrencyFixed[sendingCurrency] ?? 0n;
  }
  if (rail !== null) {
    bps += service.railBps[rail] ?? 0;
    fixed += service.railFixed[`${rail}:${sendingCurrency}`] ?? (sendingCurrency === 'USD' ? (service.railFixed[rail] ?? 0n) : 0n);
  }
  return { fixed, bps };
}

/**
 * The fee components of one payment. Platform: every active config that applies (cross-currency
 * when the currencies differ and its source currency is the sending currency; RAIL when the rail,
 * direction OUT and originator SVC match), summed; an override replaces all of them.
 * `platformFeeTypes` names what was charged: the applying configs' fee types, or `OVERRIDE`.
 * Throws 501 NOT_IMPLEMENTED when an applying config cannot be charged (sending currency or fixed
 * fee currency other than USD).
 */
export function applicableFees(args: {
  configs: ActiveFeeConfig[];
  override?: PlatformFeeOverride;
  sendingCurrency: string;
  receivingCurrency: string;
  rail: string | null;
  service: ServiceFeeSchedule;
}): { platformFee: FeeComponents; serviceFee: FeeComponents; platformFeeTypes: string[] } {
  const { sendingCurrency, receivingCurrency, rail } = args;
  const serviceFee = serviceFeeFor(args.service, sendingCurrency, receivingCurrency, rail);
  if (args.override) {
    invariant(args.override.platformFixedFee.currency === sendingCurrency, 'override validated against the sending currency');
    return {
      platformFee: { fixed: BigInt(args.override.platformFixedFee.amount), bps: args.override.platformVariableFeeBps },
      serviceFee,
      platformFeeTypes: ['OVERRIDE'],
    };
  }
  const applying = args.configs.filter((c) => configAppliesTo(c, sendingCurrency, receivingCurrency, rail));
  applying.forEach((c) => assertChargeable(c, sendingCurrency));
  return {
    platformFee: {
      fixed: applying.reduce((sum, c) => sum + c.fixedFeeAmount, 0n),
      bps: applying.reduce((sum, c) => sum + c.variableFeeBps, 0),
    },
    serviceFee,
    platformFeeTypes: [...new Set(applying.map((c) => c.feeType))],
  };
}

const overrideSchema = z
  .object({
    platformFixedFee: z
      .object({
        amount: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
        currency: z.string().regex(/^[A-Z]{3,4}$/),
      })
      .strict(),
    platformVariableFeeBps: z.number().int().min(0).max(10_000),
  })
  .strict();

const OVERRIDE_FIELD = 'platformFeeOverride';

/**
 * Validates `platformFeeOverride` (spec "Platform fees"): both fields required, non-negative, bps at
 * most 10000, sending currency USD, fixed fee in the sending currency. Every problem is a 400
 * INVALID_INPUT with its field under `platformFeeOverride.`.
 */
export function validatePlatformFeeOverride(o: unknown, sendingCurrency: string): PlatformFeeOverride {
  const parsed = overrideSchema.safeParse(o);
  if (!parsed.success) throw new ValidationError(toFieldErrors(parsed.error, OVERRIDE_FIELD));
  const errors = [];
  if (sendingCurrency !== SUPPORTED_FEE_CURRENCY) {
    errors.push({ field: OVERRIDE_FIELD, message: `A platform fee override is accepted only when the sending currency is ${SUPPORTED_FEE_CURRENCY}.` });
  } else if (parsed.data.platformFixedFee.currency !== sendingCurrency) {
    errors.push({ field: `${OVERRIDE_FIELD}.platformFixedFee.currency`, message: `Must equal the sending currency (${sendingCurrency}).`, constraint: { enum: [sendingCurrency] } });
  }
  if (errors.length > 0) throw new ValidationError(errors);
  return parsed.data;
}
