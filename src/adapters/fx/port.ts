import type { AdapterLifecycle, CallOptions } from '../common.js';

/**
 * Exchange rates, in our vocabulary (decision A19): `rate` is a decimal string of sending-currency
 * major units per one receiving-currency major unit, already including the provider's spread, so a
 * quote prices with it as is.
 */

export interface FxRate {
  rate: string;
  /** When the provider quoted it. */
  asOf: Date;
}

/**
 * Asked when a quote or GET /exchange-rates needs a pair the Redis cache (FX_CACHE_TTL_SECONDS) does
 * not hold; never for the same currency on both sides. No idempotency key: reads only. Throw
 * FxRateUnavailableError (or any error carrying `retryable`) when there is no rate.
 */
export interface FxRateProvider extends AdapterLifecycle {
  readonly id: string;
  getRate(sending: string, receiving: string, opts?: CallOptions): Promise<FxRate>;
}

/**
 * No rate for the pair. `retryable` tells a transient outage (try again later) from a pair the
 * provider does not quote at all (`PAIR_UNSUPPORTED`, never retryable).
 */
export class FxRateUnavailableError extends Error {
  constructor(
    readonly providerId: string,
    readonly reason: 'PAIR_UNSUPPORTED' | 'PROVIDER_UNAVAILABLE',
    readonly retryable: boolean,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'FxRateUnavailableError';
  }
}
