import type { AppDeps, Ctx } from '../../deps.js';
import { BadRequestError, DomainError, NotImplementedError } from '../../platform/errors.js';
import { FxRateUnavailableError, type FxRate, type FxRateProvider } from '../../adapters/fx/port.js';
import { applicableFees, defaultPaymentRail, serviceFeeSchedule } from './fee-rules.js';
import { feesForSendingAmount, priceQuoteForWire } from './pricing.js';

/** The provider FX_PROVIDER names, built and validated at start (src/adapters/registry.ts). */
function providerFor(deps: AppDeps): FxRateProvider {
  return deps.adapters.fx;
}

function cacheKey(deps: AppDeps, sending: string, receiving: string): string {
  return `${deps.config.REDIS_PREFIX}:fx:${sending}:${receiving}`;
}

function parseCached(raw: string | null): FxRate | undefined {
  if (!raw) return undefined;
  try {
    const v = JSON.parse(raw) as { rate?: unknown; asOf?: unknown };
    if (typeof v.rate !== 'string' || typeof v.asOf !== 'string') return undefined;
    const asOf = new Date(v.asOf);
    return Number.isNaN(asOf.getTime()) ? undefined : { rate: v.rate, asOf };
  } catch {
    return undefined;
  }
}

/**
 * The rate for a pair (sending major units per receiving major unit, spread included), cached in
 * Redis for `FX_CACHE_TTL_SECONDS` so every process prices with the same rate. The first process to
 * store a rate wins (SET NX); a process that loses the race uses the stored one. Same currency is
 * always '1'. A Redis failure falls back to the provider. Throws FxRateUnavailableError
 * (`retryable` says whether a retry can help).
 */
export async function getExchangeRate(deps: AppDeps, sending: string, receiving: string): Promise<{ rate: string; asOf: Date }> {
  if (sending === receiving) return { rate: '1', asOf: deps.clock.now() };
  const key = cacheKey(deps, sending, receiving);
  const cached = await deps.redis.get(key).then(parseCached, (err: unknown) => {
    deps.logger.warn({ err, key }, 'fx cache read failed');
    return undefined;
  });
  if (cached) return cached;

  const fresh = await providerFor(deps).getRate(sending, receiving);
  try {
    const stored = await deps.redis.set(key, JSON.stringify({ rate: fresh.rate, asOf: fresh.asOf.toISOString() }), 'EX', deps.config.FX_CACHE_TTL_SECONDS, 'NX');
    if (stored !== 'OK') return parseCached(await deps.redis.get(key)) ?? fresh;
  } catch (err) {
    deps.logger.warn({ err, key }, 'fx cache write failed');
  }
  return fresh;
}

export interface ExchangeRatesQuery {
  sourceCurrency: string;
  /** Undefined: every other currency the platform supports. */
  destinationCurrencies?: string[];
  sendingAmount: bigint;
}

export interface ExchangeRateView {
  sourceCurrency: string;
  destinationCurrency: string;
  destinationPaymentRail: string;
  sendingAmount: bigint;
  minSendingAmount: bigint;
  maxSendingAmount: bigint;
  receivingAmount: bigint;
  exchangeRate: string;
  fixedFees: bigint;
  totalFees: bigint;
  updatedAt: Date;
}

function rateProviderUnavailable(): DomainError {
  return new DomainError(503, 'SERVICE_UNAVAILABLE', 'Exchange rates are temporarily unavailable; retry later.', { retryable: true });
}

/**
 * GET /exchange-rates (decisions B§9.3): for each destination, the rate, what `sendingAmount` of
 * the source currency delivers over the destination's default rail, and the fees it carries (the
 * platform's active fee configs plus the service's schedule). Explicitly requested destinations
 * must be priceable; defaulted ones that are not (no rate, fees not chargeable) are left out.
 * Errors: 400 INVALID_CURRENCY (source not supported by the platform, no rate for a requested
 * destination), 501 NOT_IMPLEMENTED (a platform fee that cannot be charged on a requested
 * destination), 503 SERVICE_UNAVAILABLE (rate provider down).
 */
export async function listExchangeRates(ctx: Ctx, q: ExchangeRatesQuery): Promise<ExchangeRateView[]> {
  const [currencies, configs] = await Promise.all([
    ctx.db.platformCurrency.findMany({ orderBy: { currencyCode: 'asc' } }),
    ctx.db.feeConfig.findMany({ where: { active: true } }),
  ]);
  const source = currencies.find((c) => c.currencyCode === q.sourceCurrency);
  if (!source) {
    throw new BadRequestError('INVALID_CURRENCY', `${q.sourceCurrency} is not a supported currency of this platform.`, {
      errors: [{ field: 'sourceCurrency', message: 'Not a supported currency of this platform.' }],
    });
  }
  const explicit = q.destinationCurrencies !== undefined;
  const destinations = q.destinationCurrencies ?? currencies.map((c) => c.currencyCode).filter((c) => c !== q.sourceCurrency);
  const service = serviceFeeSchedule(ctx.config);

  const views = await Promise.all(
    destinations.map(async (destination): Promise<ExchangeRateView | undefined> => {
      let fx: FxRate;
      try {
        fx = await getExchangeRate(ctx, q.sourceCurrency, destination);
      } catch (err) {
        if (!(err instanceof FxRateUnavailableError)) throw err;
        if (err.retryable) throw rateProviderUnavailable();
        if (!explicit) return undefined;
        throw new BadRequestError('INVALID_CURRENCY', `No exchange rate from ${q.sourceCurrency} to ${destination}.`, {
          errors: [{ field: 'destinationCurrency', message: `No exchange rate to ${destination}.` }],
        });
      }
      const rail = defaultPaymentRail(destination);
      let fees: ReturnType<typeof applicableFees>;
      try {
        fees = applicableFees({ configs, sendingCurrency: q.sourceCurrency, receivingCurrency: destination, rail, service });
      } catch (err) {
        if (err instanceof NotImplementedError && !explicit) return undefined;
        throw err;
      }
      let priced: ReturnType<typeof priceOrZero>;
      try {
        priced = priceOrZero(q.sendingAmount, q.sourceCurrency, destination, fx.rate, fees);
      } catch (err) {
        // The amount converts past what the wire carries (2^53): a defaulted destination is left
        // out like an unpriceable one; a requested one names the amount.
        if (!(err instanceof BadRequestError && err.code === 'AMOUNT_OUT_OF_RANGE')) throw err;
        if (!explicit) return undefined;
        throw new BadRequestError('AMOUNT_OUT_OF_RANGE', `${q.sendingAmount} ${q.sourceCurrency} converts to more ${destination} than an amount can carry.`, {
          errors: [{ field: 'sendingAmount', message: `Too large once converted to ${destination}.` }],
        });
      }
      return {
        sourceCurrency: q.sourceCurrency,
        destinationCurrency: destination,
        destinationPaymentRail: rail,
        sendingAmount: q.sendingAmount,
        minSendingAmount: source.minAmount,
        maxSendingAmount: source.maxAmount,
        receivingAmount: priced.receivingAmount,
        exchangeRate: fx.rate,
        fixedFees: fees.platformFee.fixed + fees.serviceFee.fixed,
        totalFees: priced.totalFees,
        updatedAt: fx.asOf,
      };
    }),
  );
  return views.filter((v): v is ExchangeRateView => v !== undefined);
}

/** An amount the fees swallow delivers nothing; the listing still shows what the fees would be. */
function priceOrZero(amount: bigint, sending: string, receiving: string, rate: string, fees: ReturnType<typeof applicableFees>) {
  try {
    const p = priceQuoteForWire({ lockedSide: 'SENDING', lockedAmount: amount, sendingCurrency: sending, receivingCurrency: receiving, rate, platformFee: fees.platformFee, serviceFee: fees.serviceFee });
    return { receivingAmount: p.totalReceivingAmount, totalFees: p.feesIncluded };
  } catch (err) {
    if (!(err instanceof BadRequestError && err.code === 'INVALID_AMOUNT')) throw err;
    return { receivingAmount: 0n, totalFees: feesForSendingAmount(amount, fees.platformFee, fees.serviceFee).feesIncluded };
  }
}
