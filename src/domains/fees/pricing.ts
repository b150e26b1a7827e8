import { Decimal } from 'decimal.js';
import { BadRequestError, invariant } from '../../platform/errors.js';
import { currencyOf } from '../../platform/currencies.js';
import { MAX_WIRE_AMOUNT } from '../../platform/money.js';

/**
 * Quote pricing: amounts, fees and conversion (spec "Platform fees", decision A19). Pure and exact:
 * amounts are bigint minor units, rates are decimal strings turned into exact fractions, and every
 * rounding happens in one named function per rule (`roundFee`, `roundReceivingDown`,
 * `roundSendingUp`). No floats.
 */

export interface FeeComponents {
  /** Fixed part, in sending-currency minor units. */
  fixed: bigint;
  /** Variable part, basis points of the sending amount after all fixed fees. */
  bps: number;
}

export interface PricingInput {
  lockedSide: 'SENDING' | 'RECEIVING';
  /** Minor units of the locked side's currency. */
  lockedAmount: bigint;
  sendingCurrency: string;
  receivingCurrency: string;
  /** Sending-currency major units per one receiving-currency major unit (A19); '1' for same currency. */
  rate: string;
  platformFee: FeeComponents;
  serviceFee: FeeComponents;
}

export interface Pricing {
  /** S, debited from the sender. */
  totalSendingAmount: bigint;
  /** R, credited to the recipient (receiving minor units). */
  totalReceivingAmount: bigint;
  /** S - feesIncluded: the part converted and delivered. */
  netSendingAmount: bigint;
  /** Platform fixed + platform variable. */
  platformFee: bigint;
  /** Service fixed + service variable. */
  serviceFee: bigint;
  /** platformFee + serviceFee. */
  feesIncluded: bigint;
  /** The rate used, decimal string. */
  exchangeRate: string;
  /** How each fee is made up (REF's rateDetails): fixed parts and variable parts with their rates. */
  split: FeeSplit;
}

export interface FeeSplit {
  platformFixed: bigint;
  platformBps: number;
  platformVariable: bigint;
  serviceFixed: bigint;
  serviceBps: number;
  serviceVariable: bigint;
  /** The amount the variable fees are taken from: S minus both fixed fees. */
  base: bigint;
}

const BPS_DENOMINATOR = 10_000;
/** Parses rates; ample precision for `toFraction` to return the exact fraction of any published rate. */
const D = Decimal.clone({ precision: 100 });

/** An exact fraction num/den (den > 0): each rounding rule below takes the exact value in this form. */
export interface Fraction {
  num: bigint;
  den: bigint;
}

/** Spec "Platform fees": each variable component is rounded on its own to the minor unit, half up (2.85 → 3, 9.5 → 10). */
export function roundFee(exact: Fraction): bigint {
  invariant(exact.num >= 0n && exact.den > 0n, 'a fee is never negative');
  return (2n * exact.num + exact.den) / (2n * exact.den);
}

/** Variable fee on `base` (the sending amount after all fixed fees) at `bps` basis points. */
export function variableFee(base: bigint, bps: number): bigint {
  return roundFee({ num: base * BigInt(bps), den: BigInt(BPS_DENOMINATOR) });
}

/** Sending → receiving never delivers more than was paid for: round the converted amount down. */
export function roundReceivingDown(exact: Fraction): bigint {
  invariant(exact.num >= 0n && exact.den > 0n, 'conversion of a non-negative amount');
  return exact.num / exact.den;
}

/** Receiving → sending: the sender covers at least the locked receiving amount, so round up. */
export function roundSendingUp(exact: Fraction): bigint {
  invariant(exact.num >= 0n && exact.den > 0n, 'conversion of a non-negative amount');
  return (exact.num + exact.den - 1n) / exact.den;
}

/** The rate as an exact fraction (decimal strings are finite, so this is lossless). */
export function parseRate(rate: string): Fraction {
  let d: Decimal;
  try {
    d = new D(rate);
  } catch {
    invariant(false, `exchange rate ${rate} is not a decimal`);
  }
  invariant(d.isFinite() && d.greaterThan(0), `exchange rate ${rate} must be positive`);
  const [num, den] = d.toFraction();
  invariant(num && den, 'a fraction has two parts');
  return { num: BigInt(num.toFixed(0)), den: BigInt(den.toFixed(0)) };
}

const pow10 = (n: number) => 10n ** BigInt(n);

/**
 * Exact receiving minor units for `net` sending minor units: net / 10^ds / rate × 10^dr, with
 * rate = num/den, as one fraction.
 */
function toReceiving(net: bigint, rate: Fraction, ds: number, dr: number): Fraction {
  return { num: net * rate.den * pow10(dr), den: rate.num * pow10(ds) };
}

/** Exact sending minor units that buy `received` receiving minor units. */
function toSending(received: bigint, rate: Fraction, ds: number, dr: number): Fraction {
  return { num: received * rate.num * pow10(ds), den: rate.den * pow10(dr) };
}

/**
 * Either side of a quote must fit the wire (amounts are JSON numbers, exact below 2^53, decision
 * A19): a large amount converted at a steep rate (cents to satoshis, dollars to dong) can overflow.
 */
export function amountOutOfWireRange(): never {
  throw new BadRequestError('AMOUNT_OUT_OF_RANGE', `The amount converts to more than ${MAX_WIRE_AMOUNT} minor units on one side of the quote.`, {
    errors: [{ field: 'lockedCurrencyAmount', constraint: { maximum: Number(MAX_WIRE_AMOUNT) }, message: 'Too large once converted.' }],
  });
}

function feesSwallowAmount(): never {
  throw new BadRequestError('INVALID_AMOUNT', 'The amount does not cover the fees.', {
    errors: [{ field: 'lockedCurrencyAmount', message: 'The amount does not cover the fees.' }],
  });
}

export interface FeeBreakdown {
  base: bigint;
  platformVariable: bigint;
  serviceVariable: bigint;
  platformFee: bigint;
  serviceFee: bigint;
  feesIncluded: bigint;
  net: bigint;
}

/** Fees on a total sending amount S: base = S − platform fixed − service fixed (spec "Platform fees"). */
export function feesForSendingAmount(total: bigint, platformFee: FeeComponents, serviceFee: FeeComponents): FeeBreakdown {
  return feesForBase(total - platformFee.fixed - serviceFee.fixed, platformFee, serviceFee);
}

function feesForBase(base: bigint, platformFee: FeeComponents, serviceFee: FeeComponents): FeeBreakdown {
  const positiveBase = base > 0n ? base : 0n;
  const platformVariable = variableFee(positiveBase, platformFee.bps);
  const serviceVariable = variableFee(positiveBase, serviceFee.bps);
  const platform = platformFee.fixed + platformVariable;
  const service = serviceFee.fixed + serviceVariable;
  return {
    base,
    platformVariable,
    serviceVariable,
    platformFee: platform,
    serviceFee: service,
    feesIncluded: platform + service,
    net: base - platformVariable - serviceVariable,
  };
}

/**
 * The smallest base whose net (base − both variable fees) reaches `required`. Net grows by at most
 * one per unit of base (each variable fee grows by 0 or 1), so the first base that reaches it hits it
 * exactly, and from any base with a deficit d no base below base + d can reach it. Net stays within
 * one unit of base × (1 − bps/10^4), which bounds where the search starts.
 */
function smallestBaseFor(required: bigint, platformFee: FeeComponents, serviceFee: FeeComponents): FeeBreakdown {
  const keptBps = BigInt(BPS_DENOMINATOR - platformFee.bps - serviceFee.bps);
  invariant(keptBps > 0n && required > 0n, 'a reachable net amount');
  const floorStart = ((required - 1n) * BigInt(BPS_DENOMINATOR)) / keptBps;
  let base = floorStart > 0n ? floorStart : 0n;
  for (;;) {
    const fees = feesForBase(base, platformFee, serviceFee);
    if (fees.net >= required) {
      invariant(fees.net === required, 'net grows by at most one per unit of base');
      return fees;
    }
    base += required - fees.net;
  }
}

function assertFeeComponents(c: FeeComponents, name: string): void {
  invariant(c.fixed >= 0n, `${name} fixed fee is non-negative`);
  invariant(Number.isInteger(c.bps) && c.bps >= 0 && c.bps <= BPS_DENOMINATOR, `${name} bps within 0..10000`);
}

/**
 * Prices a quote. SENDING locked: S is the locked amount, R = net converted, rounded down.
 * RECEIVING locked: R is the locked amount; the net that buys it is rounded up, and S is the
 * smallest total whose net reaches it. Same currency: R = net exactly.
 * Throws 400 INVALID_AMOUNT (field `lockedCurrencyAmount`) when the fees swallow the amount.
 */
export function priceQuote(input: PricingInput): Pricing {
  const { platformFee, serviceFee } = input;
  assertFeeComponents(platformFee, 'platform');
  assertFeeComponents(serviceFee, 'service');
  const sameCurrency = input.sendingCurrency === input.receivingCurrency;
  const rate = parseRate(input.rate);
  invariant(!sameCurrency || rate.num === rate.den, 'same-currency quotes use rate 1');
  const ds = currencyOf(input.sendingCurrency).decimals;
  const dr = currencyOf(input.receivingCurrency).decimals;

  let fees: FeeBreakdown;
  let received: bigint;
  if (input.lockedSide === 'SENDING') {
    fees = feesForSendingAmount(input.lockedAmount, platformFee, serviceFee);
    if (fees.base < 0n || fees.net <= 0n) feesSwallowAmount();
    received = sameCurrency ? fees.net : roundReceivingDown(toReceiving(fees.net, rate, ds, dr));
  } else {
    received = input.lockedAmount;
    if (received <= 0n || platformFee.bps + serviceFee.bps >= BPS_DENOMINATOR) feesSwallowAmount();
    const required = sameCurrency ? received : roundSendingUp(toSending(received, rate, ds, dr));
    fees = smallestBaseFor(required, platformFee, serviceFee);
  }
  if (received <= 0n) feesSwallowAmount();

  const total = fees.base + platformFee.fixed + serviceFee.fixed;
  invariant(total === fees.net + fees.feesIncluded, 'S = net + fees');
  return {
    totalSendingAmount: total,
    totalReceivingAmount: received,
    netSendingAmount: fees.net,
    platformFee: fees.platformFee,
    serviceFee: fees.serviceFee,
    feesIncluded: fees.feesIncluded,
    exchangeRate: sameCurrency ? '1' : new D(input.rate).toFixed(),
    split: {
      platformFixed: platformFee.fixed,
      platformBps: platformFee.bps,
      platformVariable: fees.platformVariable,
      serviceFixed: serviceFee.fixed,
      serviceBps: serviceFee.bps,
      serviceVariable: fees.serviceVariable,
      base: fees.base,
    },
  };
}

/** priceQuote for an answer on the wire: 400 AMOUNT_OUT_OF_RANGE when either side passes 2^53 minor units. */
export function priceQuoteForWire(input: PricingInput): Pricing {
  const p = priceQuote(input);
  if (p.totalSendingAmount > MAX_WIRE_AMOUNT || p.totalReceivingAmount > MAX_WIRE_AMOUNT) amountOutOfWireRange();
  return p;
}
