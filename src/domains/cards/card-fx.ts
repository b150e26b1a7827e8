import type { Ctx } from '../../deps.js';
import { getExchangeRate } from '../fees/index.js';
import { minorRate } from './card-transactions.model.js';

/**
 * The rate a card authorization is converted at when the network's currency differs from the funding
 * source's (issue 27 item 2): funding minor units per transaction minor unit, locked on the card
 * transaction (`exchangeRate`) and used by every later event of it (card-money.writer.ts).
 *
 * The hot path takes no round trip for it: the rate comes from the FX port through the shared rate cache
 * (getExchangeRate: Redis, FX_CACHE_TTL_SECONDS) and is kept by this process for CARD_FX_RATE_MAX_AGE_MS,
 * measured on the service clock. A rate older than that is read again; a provider that has no rate
 * for the pair makes the authorization CURRENCY_NOT_SUPPORTED (null here).
 */
interface Kept {
  rate: string;
  readAt: number;
}

const kept = new WeakMap<object, Map<string, Kept>>();

function keptOf(ctx: Ctx): Map<string, Kept> {
  // Per FX adapter instance: two apps in one process (tests) never share a rate.
  let m = kept.get(ctx.adapters.fx);
  if (!m) kept.set(ctx.adapters.fx, (m = new Map()));
  return m;
}

export async function cardAuthorizationRate(ctx: Ctx, transactionCurrency: string, fundingCurrency: string): Promise<string | null> {
  if (transactionCurrency === fundingCurrency) return '1';
  const key = `${fundingCurrency}/${transactionCurrency}`;
  const now = ctx.clock.now().getTime();
  const cache = keptOf(ctx);
  const hit = cache.get(key);
  if (hit && now - hit.readAt < ctx.config.CARD_FX_RATE_MAX_AGE_MS) return hit.rate;
  try {
    const { rate } = await getExchangeRate(ctx, fundingCurrency, transactionCurrency);
    const minor = minorRate(rate, transactionCurrency, fundingCurrency);
    cache.set(key, { rate: minor, readAt: now });
    return minor;
  } catch (err) {
    ctx.logger.warn({ err, transactionCurrency, fundingCurrency }, 'no rate for a card authorization: declined');
    return null;
  }
}
