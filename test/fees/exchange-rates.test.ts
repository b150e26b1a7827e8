import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASE, createTestEnv, type TestEnv, type TestPlatform } from '../helpers/app.js';
import { assertMatchesResponseSchema } from '../helpers/openapi.js';
import { DEFAULT_CURRENCIES } from '../../src/domains/platforms/currency-config.js';
import { defaultPaymentRail } from '../../src/domains/fees/fee-rules.js';
import { priceQuote } from '../../src/domains/fees/pricing.js';
import { getExchangeRate } from '../../src/domains/fees/rates.service.js';

let env: TestEnv;
let p: TestPlatform;

beforeAll(async () => {
  env = await createTestEnv();
  p = await env.platform();
});
afterAll(() => env.close());

const PATH = `${BASE}/exchange-rates`;
const usdCross = (bps: number, fixed: number) => ({ feeType: 'CROSS_CURRENCY_TRANSACTION', sourceCurrency: 'USD', variableFeeBps: bps, fixedFee: { amount: fixed, currency: 'USD' } });
const achFee = (bps: number, fixed: number) => ({ feeType: 'RAIL', rail: 'ACH', direction: 'OUT', originator: 'SVC', variableFeeBps: bps, fixedFee: { amount: fixed, currency: 'USD' } });

async function rates(platform: TestPlatform, query: string, status = 200) {
  const res = await platform.request({ method: 'GET', url: `/exchange-rates?${query}` });
  expect(res.statusCode, res.body).toBe(status);
  assertMatchesResponseSchema('GET', PATH, status, res.json());
  return res.json();
}

const entryFor = (body: any, code: string) => body.data.find((e: any) => e.destinationCurrency.code === code);

describe('GET /exchange-rates', () => {
  it('lists every other supported currency with its rate, default rail and what 10000 minor units deliver', async () => {
    const body = await rates(p, 'sourceCurrency=USD');
    const codes = body.data.map((e: any) => e.destinationCurrency.code).sort();
    expect(codes).toEqual(DEFAULT_CURRENCIES.filter((c) => c !== 'USD').sort());
    for (const e of body.data) {
      const code = e.destinationCurrency.code;
      expect(e.sourceCurrency).toEqual({ code: 'USD', name: 'US Dollar', symbol: '$', decimals: 2 });
      expect(e.destinationPaymentRail).toBe(defaultPaymentRail(code));
      expect(e).toMatchObject({ sendingAmount: 10_000, minSendingAmount: 1, maxSendingAmount: 10_000_000_000 });
      const { rate } = await getExchangeRate(env.deps, 'USD', code);
      expect(e.exchangeRate).toBe(Number(rate));
      // The service's 50 bps cross-currency fee, no platform fee configured.
      const priced = priceQuote({ lockedSide: 'SENDING', lockedAmount: 10_000n, sendingCurrency: 'USD', receivingCurrency: code, rate, platformFee: { fixed: 0n, bps: 0 }, serviceFee: { fixed: 0n, bps: 50 } });
      expect(e.receivingAmount, code).toBe(Number(priced.totalReceivingAmount));
      expect(e.fees).toEqual({ fixed: 0, total: 50 });
    }
    // 99.50 USD at 1/0.86 USD per EUR plus 0.5 % spread: 85.14 EUR, rounded down.
    expect(entryFor(body, 'EUR')).toMatchObject({ receivingAmount: 8514, destinationPaymentRail: 'SEPA' });
  });

  it('includes the platform fees configured in /config, computed as a quote would charge them', async () => {
    const q = await env.platform();
    const patched = await q.request({ method: 'PATCH', url: '/config', payload: { feeConfigs: [usdCross(30, 50), achFee(10, 25)] } });
    expect(patched.statusCode).toBe(200);
    const body = await rates(q, 'sourceCurrency=USD&destinationCurrency=EUR,USD');
    // EUR: base 10000 − 50 = 9950; platform 50 + 29.85→30; service 49.75→50: 130 in all.
    expect(entryFor(body, 'EUR').fees).toEqual({ fixed: 50, total: 130 });
    // USD over ACH: platform rail fee 25 + 9.95→10, service ACH fee 25: 60; same currency delivers the rest.
    expect(entryFor(body, 'USD')).toMatchObject({ exchangeRate: 1, destinationPaymentRail: 'ACH', fees: { fixed: 50, total: 60 }, receivingAmount: 9940 });
  });

  it('accepts destination currencies as repeated keys or comma-joined, in the order asked', async () => {
    const repeated = await rates(p, 'sourceCurrency=USD&destinationCurrency=MXN&destinationCurrency=BTC&sendingAmount=123456');
    const joined = await rates(p, 'sourceCurrency=USD&destinationCurrency=MXN,BTC,MXN&sendingAmount=123456');
    expect(repeated.data.map((e: any) => e.destinationCurrency.code)).toEqual(['MXN', 'BTC']);
    expect(joined.data).toEqual(repeated.data);
    expect(entryFor(joined, 'BTC')).toMatchObject({ sendingAmount: 123_456, destinationPaymentRail: 'LIGHTNING', destinationCurrency: { decimals: 8 } });
  });

  it('reports the per-currency limits of the platform for the source currency', async () => {
    const q = await env.platform();
    const entry = { currencyCode: 'USD', minAmount: 100, maxAmount: 500_000, requiredCounterpartyFields: [], enabledTransactionTypes: ['OUTGOING'] };
    expect((await q.request({ method: 'PATCH', url: '/config', payload: { supportedCurrencies: [entry] } })).statusCode).toBe(200);
    const body = await rates(q, 'sourceCurrency=USD&destinationCurrency=GBP');
    expect(body.data[0]).toMatchObject({ minSendingAmount: 100, maxSendingAmount: 500_000 });
  });

  it('an amount the fees swallow delivers 0 and still shows the fees', async () => {
    const body = await rates(p, 'sourceCurrency=USD&destinationCurrency=USD,EUR&sendingAmount=10');
    expect(entryFor(body, 'USD')).toMatchObject({ receivingAmount: 0, fees: { fixed: 25, total: 25 } });
    expect(entryFor(body, 'EUR')).toMatchObject({ receivingAmount: 8 }); // 10 − 0.05→0 fee = 0.10 USD = 0.08 EUR
    const zero = await rates(p, 'sourceCurrency=USD&destinationCurrency=EUR&sendingAmount=0');
    expect(zero.data[0]).toMatchObject({ sendingAmount: 0, receivingAmount: 0, fees: { total: 0 } });
  });

  it("one platform's fees never show in another's rates", async () => {
    const a = await env.platform();
    const b = await env.platform();
    await a.request({ method: 'PATCH', url: '/config', payload: { feeConfigs: [usdCross(100, 500)] } });
    expect(entryFor(await rates(a, 'sourceCurrency=USD&destinationCurrency=EUR'), 'EUR').fees.fixed).toBe(500);
    expect(entryFor(await rates(b, 'sourceCurrency=USD&destinationCurrency=EUR'), 'EUR').fees.fixed).toBe(0);
  });
});

describe('GET /exchange-rates errors', () => {
  const fieldsOf = (body: any) => body.details.errors.map((e: any) => e.field);

  it('names each invalid query parameter', async () => {
    expect(fieldsOf(await rates(p, 'destinationCurrency=EUR', 400))).toEqual(['sourceCurrency']);
    expect(fieldsOf(await rates(p, 'sourceCurrency=usd', 400))).toEqual(['sourceCurrency']);
    expect(fieldsOf(await rates(p, 'sourceCurrency=USD&destinationCurrency=EUR,XYZ', 400))).toEqual(['destinationCurrency[1]']);
    for (const amount of ['-1', 'abc', '1.5', '9000000000000001', '']) {
      const body = await rates(p, `sourceCurrency=USD&sendingAmount=${amount}`, 400);
      expect(body.code).toBe('INVALID_INPUT');
      expect(fieldsOf(body), amount).toEqual(['sendingAmount']);
    }
  });

  it('a source the platform does not support, or a destination without a rate, is 400 INVALID_CURRENCY', async () => {
    const source = await rates(p, 'sourceCurrency=JPY', 400);
    expect(source).toMatchObject({ code: 'INVALID_CURRENCY', details: { errors: [{ field: 'sourceCurrency' }] } });
    const destination = await rates(p, 'sourceCurrency=USD&destinationCurrency=EUR,JPY', 400);
    expect(destination).toMatchObject({ code: 'INVALID_CURRENCY', details: { errors: [{ field: 'destinationCurrency' }] } });
  });

  it('a platform fee that cannot be charged is 501 for a requested destination and left out of a full listing', async () => {
    const q = await env.platform();
    await q.request({ method: 'PATCH', url: '/config', payload: { feeConfigs: [achFee(10, 25)] } });
    const refused = await rates(q, 'sourceCurrency=EUR&destinationCurrency=USD', 501);
    expect(refused).toMatchObject({ status: 501, code: 'NOT_IMPLEMENTED' });
    const listed = await rates(q, 'sourceCurrency=EUR');
    const codes = listed.data.map((e: any) => e.destinationCurrency.code);
    expect(codes).not.toContain('USD');
    expect(codes).toContain('GBP');
  });

  it('an amount that converts past 2^53 minor units: left out of a full listing, 400 AMOUNT_OUT_OF_RANGE for a requested destination (never a 500)', async () => {
    // 9e15 US cents are about 1.4e19 kobo: more than a JSON number carries exactly.
    const all = await rates(p, 'sourceCurrency=USD&sendingAmount=9000000000000000');
    expect(all.data.length).toBeGreaterThan(0);
    expect(entryFor(all, 'NGN')).toBeUndefined();
    for (const e of all.data) expect(Number.isSafeInteger(e.receivingAmount)).toBe(true);
    const body = await rates(p, 'sourceCurrency=USD&sendingAmount=9000000000000000&destinationCurrency=NGN', 400);
    expect(body).toMatchObject({ code: 'AMOUNT_OUT_OF_RANGE', details: { errors: [{ field: 'sendingAmount' }] } });
  });

  it('needs credentials', async () => {
    const res = await env.app.inject({ method: 'GET', url: `${PATH}?sourceCurrency=USD` });
    expect(res.statusCode).toBe(401);
    assertMatchesResponseSchema('GET', PATH, 401, res.json());
  });
});

describe('exchange-rate cache', () => {
  it('stores each rate in Redis for FX_CACHE_TTL_SECONDS, so every process prices with the one stored', async () => {
    const key = `${env.config.REDIS_PREFIX}:fx:USD:PHP`;
    await env.deps.redis.del(key);
    const first = await rates(p, 'sourceCurrency=USD&destinationCurrency=PHP');
    const ttl = await env.deps.redis.ttl(key);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(300);
    const stored = JSON.parse((await env.deps.redis.get(key))!);
    expect(Number(stored.rate)).toBe(first.data[0].exchangeRate);
    expect(stored.asOf).toBe(first.data[0].updatedAt);

    // Another process stored a different rate: this one uses it rather than asking the provider.
    const asOf = '2026-01-01T00:00:00.000Z';
    await env.deps.redis.set(key, JSON.stringify({ rate: '0.02', asOf }), 'EX', 300);
    const second = await rates(p, 'sourceCurrency=USD&destinationCurrency=PHP');
    // 99.50 USD at 0.02 USD per PHP.
    expect(second.data[0]).toMatchObject({ exchangeRate: 0.02, updatedAt: asOf, receivingAmount: 497_500 });
  });

  it('a cached rate keeps its quote time until it expires; a fresh one is quoted now', async () => {
    const key = `${env.config.REDIS_PREFIX}:fx:EUR:GBP`;
    await env.deps.redis.del(key);
    const a = await getExchangeRate(env.deps, 'EUR', 'GBP');
    env.clock.advance(60_000);
    const b = await getExchangeRate(env.deps, 'EUR', 'GBP');
    expect(b).toEqual(a);
    await env.deps.redis.del(key);
    const c = await getExchangeRate(env.deps, 'EUR', 'GBP');
    expect(c.rate).toBe(a.rate);
    expect(c.asOf.getTime()).toBeGreaterThan(a.asOf.getTime());
  });

  it('the same currency is 1 without a cache entry', async () => {
    expect((await getExchangeRate(env.deps, 'USD', 'USD')).rate).toBe('1');
    expect(await env.deps.redis.exists(`${env.config.REDIS_PREFIX}:fx:USD:USD`)).toBe(0);
  });
});
