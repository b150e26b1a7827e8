import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASE, createTestEnv, type TestEnv, type TestPlatform } from '../helpers/app.js';
import { assertMatchesResponseSchema } from '../helpers/openapi.js';
import { anApprovedCustomer, balances, expectLedgerConsistent, fund } from '../helpers/builders.js';

/**
 * Issue 27 item 2, through HTTP in the sandbox: an authorization in another currency than the funding
 * source's is held in the source's currency at a rate locked on the card transaction; its clearing and
 * returns use that locked rate whatever the rate is later; the rate is kept by the process for
 * CARD_FX_RATE_MAX_AGE_MS (no round trip per decision); a converted amount above the balance is declined.
 *
 * The shared rate cache (Redis, what getExchangeRate reads before the FX port) is set by the test, so
 * the rates are the test's and the expected amounts follow from them.
 */
const MAX_AGE_MS = 60_000;
let env: TestEnv;
let p: TestPlatform;

beforeAll(async () => {
  env = await createTestEnv({ CARD_FX_RATE_MAX_AGE_MS: String(MAX_AGE_MS) });
  p = await env.platform();
});
afterAll(() => env.close());

/** Sets the shared rate USD per EUR (sending USD, receiving EUR), as a quote's rate read would find it. */
async function setSharedRate(rate: string) {
  await env.deps.redis.set(`${env.config.REDIS_PREFIX}:fx:USD:EUR`, JSON.stringify({ rate, asOf: env.clock.now().toISOString() }), 'EX', 3600);
}

let seq = 0;
async function aUsdCard(funded: number) {
  const c = await anApprovedCustomer(env, p, ['USD']);
  const usd = c.accounts.USD!;
  if (funded > 0) await fund(p, usd, funded);
  const res = await p.request({ method: 'POST', url: '/cards', payload: { cardholderId: c.customerId, form: 'VIRTUAL', fundingSources: [usd], platformCardId: `fx-${++seq}-${Date.now()}x` } });
  expect(res.statusCode, res.body).toBe(201);
  return { card: res.json(), usd };
}

async function simulate(cardId: string, kind: string, payload: object) {
  const res = await p.request({ method: 'POST', url: `/sandbox/cards/${cardId}/simulate/${kind}`, payload });
  expect(res.statusCode, res.body).toBe(202);
}

async function authorizeEur(cardId: string, amount: number) {
  await simulate(cardId, 'authorization', { amount, currency: { code: 'EUR' }, merchant: { descriptor: 'CAFE DE FLORE PARIS', mcc: '5814', country: 'FR' } });
  const res = await p.request({ method: 'GET', url: `/transactions?type=CARD&cardId=${cardId}` });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data[0];
}

async function getTx(id: string) {
  const res = await p.request({ method: 'GET', url: `/transactions/${id}` });
  expect(res.statusCode, res.body).toBe(200);
  assertMatchesResponseSchema('GET', `${BASE}/transactions/{transactionId}`, 200, res.json());
  return res.json();
}

describe('card authorization in a foreign currency (FX at a locked rate)', () => {
  it('holds the converted amount, keeps the rate for its max age, clears and refunds at the locked rate, exactly', async () => {
    await setSharedRate('1.2');
    const { card, usd } = await aUsdCard(10_000);

    // 10.00 EUR at 1.2 USD/EUR: 12.00 USD held.
    const a = await authorizeEur(card.id, 1000);
    expect(a).toMatchObject({ status: 'AUTHORIZED', authorizedAmount: { amount: 1000, currency: { code: 'EUR' } }, fundingCurrency: 'USD', exchangeRate: '1.2', pullSummary: { count: 1, totalAmount: 1200 } });
    expect(await balances(env, usd)).toEqual({ available: 8_800n, held: 1_200n });

    // The shared rate moves; within CARD_FX_RATE_MAX_AGE_MS the process keeps the one it read.
    await setSharedRate('1.5');
    const b = await authorizeEur(card.id, 100);
    expect(b).toMatchObject({ status: 'AUTHORIZED', exchangeRate: '1.2', pullSummary: { totalAmount: 120 } });
    env.clock.advance(MAX_AGE_MS + 1);
    const c = await authorizeEur(card.id, 100);
    expect(c).toMatchObject({ status: 'AUTHORIZED', exchangeRate: '1.5', pullSummary: { totalAmount: 150 } });
    expect(await balances(env, usd)).toEqual({ available: 8_530n, held: 1_470n });

    // The clearing settles at the rate locked on the transaction (1.2), not today's (1.5).
    await simulate(card.id, 'clearing', { cardTransactionId: a.id, amount: 1000 });
    expect(await getTx(a.id)).toMatchObject({ status: 'SETTLED', settledAmount: { amount: 1000 }, exchangeRate: '1.2' });
    expect(await balances(env, usd)).toEqual({ available: 8_530n, held: 270n });

    // Returns: 3.33 EUR is 3.996 USD, rounded up to 4.00; the rest (6.67 EUR) gives back exactly what is left
    // of the 12.00 USD (8.00), so a full refund returns what the clearing took, not a cent more.
    await simulate(card.id, 'return', { cardTransactionId: a.id, amount: 333 });
    expect(await balances(env, usd)).toEqual({ available: 8_930n, held: 270n });
    await simulate(card.id, 'return', { cardTransactionId: a.id, amount: 667 });
    expect(await getTx(a.id)).toMatchObject({ status: 'REFUNDED', refundedAmount: { amount: 1000 } });
    expect(await balances(env, usd)).toEqual({ available: 9_730n, held: 270n });

    // A reversal of the last return debits what that return credited (8.00 USD).
    await simulate(card.id, 'return_reversal', { cardTransactionId: a.id });
    expect(await getTx(a.id)).toMatchObject({ status: 'SETTLED', refundedAmount: { amount: 333 } });
    expect(await balances(env, usd)).toEqual({ available: 8_930n, held: 270n });

    // A partial clearing of b and an over-clearing of c, at their own locked rates.
    await simulate(card.id, 'clearing', { cardTransactionId: b.id, amount: 33 }); // 39.6 → 40 from the hold of 120
    expect(await getTx(b.id)).toMatchObject({ status: 'PARTIALLY_SETTLED' });
    expect(await balances(env, usd)).toEqual({ available: 8_930n, held: 230n });
    await simulate(card.id, 'clearing', { cardTransactionId: b.id, amount: 67 }); // 120 − 40 = 80, the hold's rest
    expect(await getTx(b.id)).toMatchObject({ status: 'SETTLED', settledAmount: { amount: 100 } });
    await simulate(card.id, 'clearing', { cardTransactionId: c.id, amount: 120 }); // 180: the hold of 150 and 30 pulled after the fact
    expect(await getTx(c.id)).toMatchObject({ status: 'SETTLED', pullSummary: { count: 2, totalAmount: 180 } });
    expect(await balances(env, usd)).toEqual({ available: 8_900n, held: 0n });
    await expectLedgerConsistent(env, p.platformId);
    // One scenario of some twenty HTTP calls (a shared, loaded machine needs more than the default 30 s).
  }, 120_000);

  it('a converted amount above the available balance is declined INSUFFICIENT_FUNDS and moves nothing; a currency without a rate is CURRENCY_NOT_SUPPORTED', async () => {
    await setSharedRate('1.5');
    env.clock.advance(MAX_AGE_MS + 1);
    const { card, usd } = await aUsdCard(1_000);
    // 9.00 EUR is below the 10.00 USD balance in its own units, 13.50 USD converted.
    const poor = await authorizeEur(card.id, 900);
    expect(poor).toMatchObject({ status: 'DECLINED', declineReason: 'INSUFFICIENT_FUNDS' });
    expect(await balances(env, usd)).toEqual({ available: 1_000n, held: 0n });
    const fits = await authorizeEur(card.id, 666); // 999 USD
    expect(fits).toMatchObject({ status: 'AUTHORIZED', exchangeRate: '1.5', pullSummary: { totalAmount: 999 } });
    expect(await balances(env, usd)).toEqual({ available: 1n, held: 999n });

    // JPY is a currency the sandbox FX port has no rate for; XTS is no currency one pays in (no row can show it).
    await simulate(card.id, 'authorization', { amount: 100, currency: 'JPY', merchant: { descriptor: 'TOKYO' } });
    await simulate(card.id, 'authorization', { amount: 100, currency: 'XTS', merchant: { descriptor: 'NOWHERE' } });
    const res = await p.request({ method: 'GET', url: `/transactions?type=CARD&cardId=${card.id}&status=DECLINED` });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data.map((t: any) => t.declineReason).sort()).toEqual(['CURRENCY_NOT_SUPPORTED', 'INSUFFICIENT_FUNDS']);
    expect((await p.request({ method: 'GET', url: `/transactions?type=CARD&cardId=${card.id}` })).json().data).toHaveLength(3);
    expect(await balances(env, usd)).toEqual({ available: 1n, held: 999n });
    await expectLedgerConsistent(env, p.platformId);
  });
});
