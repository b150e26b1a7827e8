import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASE, createTestEnv, type TestEnv, type TestPlatform } from '../helpers/app.js';
import { assertMatchesResponseSchema } from '../helpers/openapi.js';
import { anApprovedCustomer, balances, expectLedgerConsistent, fund } from '../helpers/builders.js';
import { registerKey, signedPatch } from './helpers.js';
import { sweepCardTransactions, sweepProvisioning } from '../../src/domains/cards/index.js';
import { resourceKey } from '../../src/platform/ids.js';

/**
 * Issue 27 "Done when", through HTTP in the sandbox: provisioning, authorization holds, clearing,
 * partial return, over-clearing, expiry, declines, the 006 EXCEPTION — with exact balances and webhooks.
 */
let env: TestEnv;
let p: TestPlatform;

beforeAll(async () => {
  env = await createTestEnv({ SANDBOX_CARD_ACTIVATION_DELAY_MS: '30000', SANDBOX_CARD_PULL_DELAY_MS: '30000' });
  p = await env.platform();
});
afterAll(() => env.close());

let seq = 0;
/** A USD-funded ACTIVE card of a fresh cardholder whose USD account holds `funded` cents. */
async function aUsdCard(funded: number, extra: Record<string, unknown> = {}) {
  const c = await anApprovedCustomer(env, p, ['USD']);
  const usd = c.accounts.USD!;
  if (funded > 0) await fund(p, usd, funded);
  const res = await p.request({ method: 'POST', url: '/cards', payload: { cardholderId: c.customerId, form: 'VIRTUAL', fundingSources: [usd], platformCardId: `pc-${++seq}-${Date.now()}x`, ...extra } });
  expect(res.statusCode, res.body).toBe(201);
  return { card: res.json(), usd, customerId: c.customerId };
}

async function simulate(cardId: string, kind: string, payload: object) {
  const res = await p.request({ method: 'POST', url: `/sandbox/cards/${cardId}/simulate/${kind}`, payload });
  expect(res.statusCode, res.body).toBe(202);
  expect(res.json().issuerTransactionToken).toEqual(expect.any(String));
  return res.json().issuerTransactionToken as string;
}

async function cardTransactions(cardId: string): Promise<any[]> {
  const res = await p.request({ method: 'GET', url: `/transactions?type=CARD&cardId=${cardId}` });
  expect(res.statusCode, res.body).toBe(200);
  assertMatchesResponseSchema('GET', `${BASE}/transactions`, 200, res.json());
  return res.json().data;
}

async function authorize(cardId: string, amount: number, descriptor = 'BLUE BOTTLE COFFEE SF') {
  await simulate(cardId, 'authorization', { amount, currency: { code: 'USD' }, merchant: { descriptor, mcc: '5814', country: 'US' } });
  return (await cardTransactions(cardId))[0];
}

async function getTx(id: string) {
  const res = await p.request({ method: 'GET', url: `/transactions/${id}` });
  expect(res.statusCode, res.body).toBe(200);
  assertMatchesResponseSchema('GET', `${BASE}/transactions/{transactionId}`, 200, res.json());
  return res.json();
}

async function events(type: string, resourceId: string): Promise<any[]> {
  const res = await p.request({ method: 'GET', url: `/webhook-events?type=${encodeURIComponent(type)}&resourceId=${encodeURIComponent(resourceId)}` });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data;
}

describe('provisioning', () => {
  it('a card is provisioned PROCESSING → ACTIVE with brand, last4, expiry and references, announced by CARD.STATE_CHANGE', async () => {
    const { card } = await aUsdCard(0, { platformCardId: `prov-${Date.now()}-123` });
    expect(card).toMatchObject({ state: 'ACTIVE', currency: 'USD', brand: 'VISA', last4: '4123', cardholderId: card.customerId });
    expect(card.expMonth).toBeGreaterThanOrEqual(1);
    expect(card.expYear).toBeGreaterThan(2025);
    expect(card.processorRef).toEqual(expect.any(String));
    expect(card.issuerRef).toEqual(expect.any(String));
    assertMatchesResponseSchema('POST', `${BASE}/cards`, 201, card);
    const changes = await events('CARD.STATE_CHANGE', card.id);
    expect(changes.map((e) => e.data.state)).toEqual(['ACTIVE']);
  });

  it('platformCardId suffix 001 stays PROCESSING, 002 is CLOSED with ISSUER_REJECTED, 005 activates later through the sweep', async () => {
    const a = (await aUsdCard(0, { platformCardId: `p-${Date.now()}-001` })).card;
    expect(a).toMatchObject({ state: 'PROCESSING' });
    expect(a.last4).toBeUndefined();
    const b = (await aUsdCard(0, { platformCardId: `p-${Date.now()}-002` })).card;
    expect(b).toMatchObject({ state: 'CLOSED', stateReason: 'ISSUER_REJECTED' });
    expect((await events('CARD.STATE_CHANGE', b.id)).map((e) => e.data.state)).toEqual(['CLOSED']);
    const c = (await aUsdCard(0, { platformCardId: `p-${Date.now()}-005` })).card;
    expect(c.state).toBe('PROCESSING');
    await sweepProvisioning(env.deps, 100);
    expect((await p.request({ method: 'GET', url: `/cards/${c.id}` })).json().state).toBe('PROCESSING');
    env.clock.advance(31_000);
    await sweepProvisioning(env.deps, 100);
    expect((await p.request({ method: 'GET', url: `/cards/${c.id}` })).json()).toMatchObject({ state: 'ACTIVE', last4: '4005' });
    // PROCESSING → ACTIVE is announced like an activation at creation (issue 27 "Done when").
    expect((await events('CARD.STATE_CHANGE', c.id)).map((e) => e.data.state)).toEqual(['ACTIVE']);
    expect(await events('CARD.STATE_CHANGE', a.id)).toHaveLength(0);
    expect((await p.request({ method: 'GET', url: `/cards/${a.id}` })).json().state).toBe('PROCESSING');
  });

  it('GET /cards sorts ascending on request and counts the matches (totalCount)', async () => {
    const { card, customerId } = await aUsdCard(0);
    const res = await p.request({ method: 'GET', url: `/cards?cardholderId=${customerId}&sortOrder=asc&state=ACTIVE` });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ totalCount: 1, hasMore: false });
    assertMatchesResponseSchema('GET', `${BASE}/cards`, 200, res.json());
    expect(res.json().data[0].id).toBe(card.id);
    const all = (await p.request({ method: 'GET', url: '/cards?sortOrder=asc&limit=2' })).json();
    const desc = (await p.request({ method: 'GET', url: '/cards?sortOrder=desc&limit=2' })).json();
    expect(all.totalCount).toBe(desc.totalCount);
    expect(all.data[0].id < desc.data[0].id).toBe(true);
  });

  it('reveal answers a short-lived URL and is audit-logged; the PAN never appears', async () => {
    const { card } = await aUsdCard(0);
    const res = await p.request({ method: 'POST', url: `/cards/${card.id}/reveal` });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().panEmbedUrl).toMatch(/^https:\/\//);
    assertMatchesResponseSchema('POST', `${BASE}/cards/{cardId}/reveal`, 200, res.json());
    expect(new Date(res.json().expiresAt).getTime()).toBeGreaterThan(Date.now());
    expect(await env.deps.prisma.cardReveal.count({ where: { cardId: card.id } })).toBe(1);
  });
});

describe('authorization, clearing, returns', () => {
  it('an authorization holds the funding source, a clearing settles it, a partial return refunds part — each with its webhook', async () => {
    const { card, usd } = await aUsdCard(10_000);
    const t = await authorize(card.id, 1250);
    expect(t).toMatchObject({ type: 'CARD', status: 'AUTHORIZED', direction: 'DEBIT', accountId: usd, cardId: card.id, authorizedAmount: { amount: 1250 }, pullSummary: { count: 1, totalAmount: 1250, pendingCount: 0 } });
    expect(await balances(env, usd)).toEqual({ available: 8_750n, held: 1_250n });
    expect((await events('CARD_TRANSACTION.AUTHORIZED', t.id))[0].data).toMatchObject({ id: t.id, status: 'AUTHORIZED' });

    await simulate(card.id, 'clearing', { cardTransactionId: t.id, amount: 1250 });
    expect(await getTx(t.id)).toMatchObject({ status: 'SETTLED', settledAmount: { amount: 1250 }, settlementSummary: { count: 1, totalAmount: 1250 } });
    expect(await balances(env, usd)).toEqual({ available: 8_750n, held: 0n });
    expect((await events('CARD_TRANSACTION.SETTLED', t.id))).toHaveLength(1);

    await simulate(card.id, 'return', { cardTransactionId: t.id, amount: 500 });
    expect(await getTx(t.id)).toMatchObject({ status: 'SETTLED', refundedAmount: { amount: 500 }, refundSummary: { count: 1, totalAmount: 500 } });
    expect(await balances(env, usd)).toEqual({ available: 9_250n, held: 0n });

    await simulate(card.id, 'return', { cardTransactionId: t.id, amount: 750 });
    expect(await getTx(t.id)).toMatchObject({ status: 'REFUNDED', refundedAmount: { amount: 1250 } });
    expect(await balances(env, usd)).toEqual({ available: 10_000n, held: 0n });
    expect((await events('CARD_TRANSACTION.REFUNDED', t.id))).toHaveLength(1);

    await simulate(card.id, 'return_reversal', { cardTransactionId: t.id });
    expect(await getTx(t.id)).toMatchObject({ status: 'SETTLED', refundedAmount: { amount: 500 } });
    expect(await balances(env, usd)).toEqual({ available: 9_250n, held: 0n });
    await expectLedgerConsistent(env, p.platformId);
  });

  it('an advice resizes the hold; a clearing above the authorization pulls the difference (pullSummary count 2)', async () => {
    const { card, usd } = await aUsdCard(10_000);
    const t = await authorize(card.id, 2000);
    await simulate(card.id, 'authorization_advice', { cardTransactionId: t.id, amount: 2500 });
    expect(await balances(env, usd)).toEqual({ available: 7_500n, held: 2_500n });
    expect(await getTx(t.id)).toMatchObject({ authorizedAmount: { amount: 2500 } });
    await simulate(card.id, 'clearing', { cardTransactionId: t.id, amount: 3000 });
    expect(await getTx(t.id)).toMatchObject({ status: 'SETTLED', settledAmount: { amount: 3000 }, pullSummary: { count: 2, totalAmount: 3000 } });
    expect(await balances(env, usd)).toEqual({ available: 7_000n, held: 0n });
    await expectLedgerConsistent(env, p.platformId);
  });

  it('a partial clearing leaves the rest held (PARTIALLY_SETTLED); expiry releases an uncleared hold', async () => {
    const { card, usd } = await aUsdCard(10_000);
    const t = await authorize(card.id, 4000);
    await simulate(card.id, 'clearing', { cardTransactionId: t.id, amount: 1000 });
    expect(await getTx(t.id)).toMatchObject({ status: 'PARTIALLY_SETTLED', settledAmount: { amount: 1000 } });
    expect(await balances(env, usd)).toEqual({ available: 6_000n, held: 3_000n });
    expect(await events('CARD_TRANSACTION.PARTIALLY_SETTLED', t.id)).toHaveLength(1);

    const u = await authorize(card.id, 500);
    expect(await balances(env, usd)).toEqual({ available: 5_500n, held: 3_500n });
    env.clock.advance(env.config.CARD_AUTHORIZATION_EXPIRY_MS + 1000);
    await sweepCardTransactions(env.deps, 100);
    expect(await getTx(u.id)).toMatchObject({ status: 'EXPIRED', settledAmount: { amount: 0 } });
    expect(await getTx(t.id)).toMatchObject({ status: 'SETTLED', settledAmount: { amount: 1000 } });
    expect(await balances(env, usd)).toEqual({ available: 9_000n, held: 0n });
    await expectLedgerConsistent(env, p.platformId);
  });

  it('a clearing of 0 releases the hold (AUTHORIZATION_EXPIRY)', async () => {
    const { card, usd } = await aUsdCard(1_000);
    const t = await authorize(card.id, 800);
    await simulate(card.id, 'clearing', { cardTransactionId: t.id, amount: 0 });
    expect(await getTx(t.id)).toMatchObject({ status: 'EXPIRED' });
    expect(await balances(env, usd)).toEqual({ available: 1_000n, held: 0n });
  });

  it('single-message authorizations settle at once; credits credit; balance inquiries move nothing', async () => {
    const { card, usd } = await aUsdCard(5_000);
    await simulate(card.id, 'financial_authorization', { amount: 1000, currency: 'USD', merchant: { descriptor: 'ATM 1' } });
    expect(await balances(env, usd)).toEqual({ available: 4_000n, held: 0n });
    await simulate(card.id, 'financial_credit_authorization', { amount: 300, currency: 'USD', merchant: { descriptor: 'REFUND CO' } });
    expect(await balances(env, usd)).toEqual({ available: 4_300n, held: 0n });
    await simulate(card.id, 'credit_authorization', { amount: 200, currency: 'USD', merchant: { descriptor: 'SHOP' } });
    const credit = (await cardTransactions(card.id))[0];
    expect(credit).toMatchObject({ direction: 'CREDIT', status: 'AUTHORIZED' });
    expect(await balances(env, usd)).toEqual({ available: 4_300n, held: 0n });
    await simulate(card.id, 'clearing', { cardTransactionId: credit.id, amount: 200 });
    expect(await balances(env, usd)).toEqual({ available: 4_500n, held: 0n });
    await simulate(card.id, 'balance_inquiry', { merchant: { descriptor: 'ATM 2' } });
    await simulate(card.id, 'credit_authorization_advice', { amount: 100, currency: 'USD', merchant: { descriptor: 'ADVICE' } });
    expect(await balances(env, usd)).toEqual({ available: 4_500n, held: 0n });
    expect((await cardTransactions(card.id)).map((t) => t.status)).toEqual(['AUTHORIZED', 'SETTLED', 'SETTLED', 'SETTLED']);
    await expectLedgerConsistent(env, p.platformId);
  });
});

describe('declines move nothing', () => {
  it('insufficient funds, a frozen card, and an amount over maxSpendPerTransaction are declined with their reason', async () => {
    const { card, usd, customerId } = await aUsdCard(1_000, { maxSpendPerTransaction: 600 });
    const over = await authorize(card.id, 601);
    expect(over).toMatchObject({ status: 'DECLINED', declineReason: 'SPEND_LIMIT_EXCEEDED' });
    const exact = await authorize(card.id, 600);
    expect(exact.status).toBe('AUTHORIZED');
    const poor = await authorize(card.id, 500);
    expect(poor).toMatchObject({ status: 'DECLINED', declineReason: 'INSUFFICIENT_FUNDS' });
    const magic = await authorize(card.id, 10, 'AMAZON RETAIL US-002');
    expect(magic).toMatchObject({ status: 'DECLINED', declineReason: 'INSUFFICIENT_FUNDS' });
    const paused = await authorize(card.id, 10, 'SHOP-003');
    expect(paused).toMatchObject({ status: 'DECLINED', declineReason: 'CARD_PAUSED' });
    const key = await registerKey(p, customerId);
    expect((await signedPatch(p, card.id, { state: 'FROZEN' }, key)).statusCode).toBe(200);
    const frozen = await authorize(card.id, 10);
    expect(frozen).toMatchObject({ status: 'DECLINED', declineReason: 'CARD_PAUSED' });
    expect(await balances(env, usd)).toEqual({ available: 400n, held: 600n });
    expect(await events('CARD_TRANSACTION.AUTHORIZED', frozen.id)).toHaveLength(0);
    const declined = (await p.request({ method: 'GET', url: `/transactions?type=CARD&cardId=${card.id}&status=DECLINED` })).json().data;
    expect(declined).toHaveLength(5);
  });
});

describe('the pull fails after settlement', () => {
  it('merchant 006: the network is paid, the pull confirmation fails → EXCEPTION, booked against the platform receivable', async () => {
    const { card, usd } = await aUsdCard(5_000);
    const t = await authorize(card.id, 1500, 'HOTEL-006');
    expect(t).toMatchObject({ status: 'AUTHORIZED', pullSummary: { count: 1, pendingCount: 1 } });
    await simulate(card.id, 'clearing', { cardTransactionId: t.id, amount: 1500 });
    const after = await getTx(t.id);
    expect(after).toMatchObject({ status: 'EXCEPTION', settledAmount: { amount: 1500 }, exceptionAmount: 1500, pullSummary: { pendingCount: 0 } });
    expect(await balances(env, usd)).toEqual({ available: 5_000n, held: 0n });
    const receivable = await env.deps.prisma.ledgerEntry.aggregate({ _sum: { amount: true }, where: { platformId: p.platformId, account: 'system:CARD_RECEIVABLE:USD', journal: { referenceId: resourceKey(t.id) } } });
    expect(receivable._sum.amount).toBe(-1500n);
    expect((await events('CARD_TRANSACTION.EXCEPTION', t.id))[0].data).toMatchObject({ status: 'EXCEPTION' });
    await expectLedgerConsistent(env, p.platformId);
  });

  it('merchant 005: the pull stays pending until confirmed', async () => {
    const { card } = await aUsdCard(5_000);
    const t = await authorize(card.id, 100, 'SLOW-005');
    expect(t.pullSummary.pendingCount).toBe(1);
    env.clock.advance(31_000);
    await sweepCardTransactions(env.deps, 100);
    expect((await getTx(t.id)).pullSummary.pendingCount).toBe(0);
  });
});

describe('idempotency', () => {
  it('a retried authorization (same processor token) holds once; a repeated event applies once', async () => {
    const { card, usd } = await aUsdCard(5_000);
    const issuer = env.deps.adapters.cardIssuer as any;
    const message = { kind: 'AUTHORIZATION_REQUEST', processorRef: card.processorRef, issuerTransactionToken: 'tok-retry-1', messageKind: 'AUTHORIZATION', amount: 700, currency: 'USD', merchant: { descriptor: 'RETRY' } };
    const answers = await Promise.all([issuer.simulate(message), issuer.simulate(message), issuer.simulate(message)]);
    expect(answers.map((a: any) => a.body.approved)).toEqual([true, true, true]);
    expect(new Set(answers.map((a: any) => a.body.cardTransactionId)).size).toBe(1);
    expect(await balances(env, usd)).toEqual({ available: 4_300n, held: 700n });
    const clearing = { kind: 'EVENT', type: 'CLEARING', eventToken: 'evt-clear-1', processorRef: card.processorRef, issuerTransactionToken: 'tok-retry-1', amount: 700 };
    const receipts = await Promise.all([issuer.simulate(clearing), issuer.simulate(clearing)]);
    expect(receipts.map((r: any) => r.body.receipt).sort()).toEqual(['APPLIED', 'DUPLICATE']);
    expect(await balances(env, usd)).toEqual({ available: 4_300n, held: 0n });
    await expectLedgerConsistent(env, p.platformId);
  });

  it('an unsigned or badly signed processor push is refused (401) and moves nothing', async () => {
    const res = await env.app.inject({ method: 'POST', url: '/2025-10-13/adapters/card-sandbox/webhooks', headers: { 'content-type': 'application/json', 'x-sandbox-processor-signature': 'bad' }, payload: JSON.stringify({ kind: 'EVENT' }) });
    expect(res.statusCode).toBe(401);
  });
});
