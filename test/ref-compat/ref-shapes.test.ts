import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASE, createTestEnv, eventually, type TestEnv, type TestPlatform } from '../helpers/app.js';
import { assertMatchesResponseSchema } from '../helpers/openapi.js';
import { anActiveExternalAccount, anApprovedCustomer, eurBankAccount, fund, usdBankAccount } from '../helpers/builders.js';
import type { RunningWorkers } from '../../src/workers.js';

/**
 * Response shapes REF's client types (issue 13), written from REF's OpenAPI: `OutgoingRateDetails`
 * on quotes and outgoing transactions, `paymentInstructions` on outgoing transactions, failure
 * reasons from REF's enums, and `proxyUmaSubdomain` in the platform config.
 */
let env: TestEnv;
let workers: RunningWorkers;

beforeAll(async () => {
  env = await createTestEnv({ SANDBOX_RAIL_DELAY_SCALE: '0.01', PAYMENT_POLL_MIN_MS: '20' });
  workers = env.startWorkers();
});
afterAll(async () => {
  await workers.close();
  await env.close();
});

/** REF OutgoingRateDetails: all six required. */
const RATE_DETAILS_FIELDS = ['counterpartyMultiplier', 'counterpartyFixedFee', 'gridApiMultiplier', 'gridApiFixedFee', 'gridApiVariableFeeRate', 'gridApiVariableFeeAmount'];

const getTransaction = async (p: TestPlatform, id: string) => (await p.request({ method: 'GET', url: `/transactions/${id}` })).json();
const eventsOf = (platformId: string, type: string) => env.deps.prisma.webhookEvent.findMany({ where: { platformId, type }, orderBy: { id: 'asc' } });

describe('rateDetails (REF OutgoingRateDetails)', () => {
  it('a cross-currency quote carries the fee split; its transaction, the list and its webhook show the same', async () => {
    const p = await env.platform();
    const c = await anApprovedCustomer(env, p, ['USD']);
    await fund(p, c.accounts.USD!, 100_000);
    const eur = await anActiveExternalAccount(p, eurBankAccount(), c.customerId);
    const res = await p.request({
      method: 'POST',
      url: '/quotes',
      payload: {
        source: { sourceType: 'ACCOUNT', accountId: c.accounts.USD },
        destination: { destinationType: 'ACCOUNT', accountId: eur },
        lockedCurrencySide: 'SENDING',
        lockedCurrencyAmount: 10_000,
        platformFeeOverride: { platformFixedFee: { amount: 50, currency: 'USD' }, platformVariableFeeBps: 30 },
      },
    });
    expect(res.statusCode, res.body).toBe(201);
    const q = res.json();
    assertMatchesResponseSchema('POST', `${BASE}/quotes`, 201, q);
    const r = q.rateDetails;
    for (const f of RATE_DETAILS_FIELDS) expect(typeof r[f], f).toBe('number');
    expect(Number.isInteger(r.gridApiFixedFee) && Number.isInteger(r.gridApiVariableFeeAmount) && Number.isInteger(r.counterpartyFixedFee)).toBe(true);
    // The platform's fixed 50 cents; variable: the platform's 30 bps and the service's cross-currency 50 bps.
    expect(r.gridApiFixedFee).toBe(50);
    expect(r.gridApiVariableFeeRate).toBe(0.008);
    expect(r.gridApiFixedFee + r.gridApiVariableFeeAmount).toBe(q.feesIncluded);
    expect(r).toMatchObject({ counterpartyFixedFee: 0, counterpartyMultiplier: 1 });
    // What the sender's money buys, rounded down, is what the recipient gets.
    expect(Math.floor((q.totalSendingAmount - r.gridApiFixedFee) * r.gridApiMultiplier * r.counterpartyMultiplier - r.counterpartyFixedFee)).toBe(q.totalReceivingAmount);
    expect(r.svcApiMultiplier).toBe(r.gridApiMultiplier);

    expect((await p.request({ method: 'GET', url: `/quotes/${q.id}` })).json().rateDetails).toEqual(r);
    const t = await getTransaction(p, q.transactionId);
    expect(t.rateDetails).toEqual(r);
    expect(t.paymentRail).toBe('SEPA');
    expect(q.destination.paymentRail).toBe('SEPA');
    expect(t.paymentInstructions).toEqual([]);
    const listed = (await p.request({ method: 'GET', url: `/transactions?customerId=${c.customerId}` })).json().data.find((x: any) => x.id === q.transactionId);
    expect(listed.rateDetails).toEqual(r);
    const [pending] = await eventsOf(p.platformId, 'OUTGOING_PAYMENT.PENDING');
    expect((pending!.data as any).rateDetails).toEqual(r);
  });

  it('a same-currency transfer has rateDetails too: no variable fee, multiplier 1', async () => {
    const p = await env.platform();
    const a = await anApprovedCustomer(env, p, ['USD']);
    const b = await anApprovedCustomer(env, p, ['USD']);
    await fund(p, a.accounts.USD!, 1_000);
    const res = await p.request({ method: 'POST', url: '/quotes', payload: { source: { sourceType: 'ACCOUNT', accountId: a.accounts.USD }, destination: { destinationType: 'ACCOUNT', accountId: b.accounts.USD }, lockedCurrencySide: 'RECEIVING', lockedCurrencyAmount: 700 } });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().rateDetails).toMatchObject({ gridApiFixedFee: 0, gridApiVariableFeeRate: 0, gridApiVariableFeeAmount: 0, gridApiMultiplier: 1, counterpartyMultiplier: 1, counterpartyFixedFee: 0 });
  });

  it('a payment to a UMA address goes through millisatoshis at the receiver\'s multiplier', async () => {
    const p = await env.platform();
    const c = await anApprovedCustomer(env, p, ['USD']);
    await fund(p, c.accounts.USD!, 10_000);
    const lookup = await p.request({ method: 'GET', url: `/receiver/uma/${encodeURIComponent('$alice@sandbox.uma')}?customerId=${c.customerId}` });
    expect(lookup.statusCode, lookup.body).toBe(200);
    const res = await p.request({ method: 'POST', url: '/quotes', payload: { source: { sourceType: 'ACCOUNT', accountId: c.accounts.USD }, destination: { destinationType: 'UMA_ADDRESS', umaAddress: '$alice@sandbox.uma' }, lockedCurrencySide: 'SENDING', lockedCurrencyAmount: 1_000, lookupId: lookup.json().lookupId } });
    expect(res.statusCode, res.body).toBe(201);
    const q = res.json();
    const stored = await env.deps.prisma.quote.findFirstOrThrow({ where: { id: q.id } });
    const msatsPerUnit = (stored.umaPayment as { multiplier: number }).multiplier;
    expect(q.rateDetails.counterpartyMultiplier).toBeCloseTo(1 / msatsPerUnit, 12);
    // The sender's money in millisatoshis, then in receiving units.
    const msats = (q.totalSendingAmount - q.rateDetails.gridApiFixedFee) * q.rateDetails.gridApiMultiplier;
    expect(Math.floor(msats / msatsPerUnit + 1e-9)).toBe(q.totalReceivingAmount);
    // REF's PaymentRail has no LIGHTNING: a UMA payment ("non-direct destination") shows no rail.
    expect(q.destination).toEqual({ destinationType: 'UMA_ADDRESS', umaAddress: '$alice@sandbox.uma', currency: q.receivingCurrency.code });
    expect(await getTransaction(p, q.transactionId)).not.toHaveProperty('paymentRail');
    expect(stored.paymentRail).toBe('LIGHTNING');
  });

  it('a quote priced before the split was kept has no rateDetails rather than a made-up one', async () => {
    const p = await env.platform();
    const a = await anApprovedCustomer(env, p, ['USD']);
    const b = await anApprovedCustomer(env, p, ['USD']);
    const q = (await p.request({ method: 'POST', url: '/quotes', payload: { source: { sourceType: 'ACCOUNT', accountId: a.accounts.USD }, destination: { destinationType: 'ACCOUNT', accountId: b.accounts.USD }, lockedCurrencySide: 'SENDING', lockedCurrencyAmount: 100 } })).json();
    const cleared = { platformFixedFee: null, platformVariableFeeBps: null, platformVariableFee: null, serviceFixedFee: null, serviceVariableFeeBps: null, serviceVariableFee: null, counterpartyFixedFee: null, counterpartyMultiplier: null, sendingMultiplier: null };
    await env.deps.prisma.quote.updateMany({ where: { id: q.id }, data: cleared });
    await env.deps.prisma.transaction.updateMany({ where: { id: q.transactionId }, data: cleared });
    expect((await p.request({ method: 'GET', url: `/quotes/${q.id}` })).json()).not.toHaveProperty('rateDetails');
    expect(await getTransaction(p, q.transactionId)).not.toHaveProperty('rateDetails');
  });

  it('the database refuses a split that does not add up to the fees', async () => {
    const p = await env.platform();
    const a = await anApprovedCustomer(env, p, ['USD']);
    const b = await anApprovedCustomer(env, p, ['USD']);
    const q = (await p.request({ method: 'POST', url: '/quotes', payload: { source: { sourceType: 'ACCOUNT', accountId: a.accounts.USD }, destination: { destinationType: 'ACCOUNT', accountId: b.accounts.USD }, lockedCurrencySide: 'SENDING', lockedCurrencyAmount: 100 } })).json();
    await expect(env.deps.prisma.quote.updateMany({ where: { id: q.id }, data: { platformFixedFee: 7n } })).rejects.toThrow(/quotes_fee_split_sums/);
    await expect(env.deps.prisma.transaction.updateMany({ where: { id: q.transactionId }, data: { sendingMultiplier: null } })).rejects.toThrow(/transactions_fee_split_whole/);
  });
});

describe('paymentInstructions on transactions (REF OutgoingTransaction)', () => {
  it('a real-time funded payment\'s transaction carries its quote\'s instructions; incoming ones carry none', async () => {
    const p = await env.platform();
    const c = await anApprovedCustomer(env, p, ['USD', 'USDC']);
    const dest = await anActiveExternalAccount(p, usdBankAccount(), c.customerId);
    const res = await p.request({ method: 'POST', url: '/quotes', payload: { source: { sourceType: 'REALTIME_FUNDING', currency: 'USDC', customerId: c.customerId }, destination: { destinationType: 'ACCOUNT', accountId: dest }, lockedCurrencySide: 'SENDING', lockedCurrencyAmount: 5_000_000 } });
    expect(res.statusCode, res.body).toBe(201);
    const q = res.json();
    expect(q.paymentInstructions.length).toBeGreaterThan(0);
    const t = await getTransaction(p, q.transactionId);
    expect(t.paymentInstructions).toEqual(q.paymentInstructions);
    assertMatchesResponseSchema('GET', `${BASE}/transactions/{transactionId}`, 200, t);
    const incoming = await p.request({ method: 'POST', url: '/sandbox/uma/receive', payload: { senderUmaAddress: '$bob@sandbox.uma', receivingCurrencyCode: 'USD', receivingCurrencyAmount: 500, customerId: c.customerId } });
    expect(incoming.statusCode, incoming.body).toBe(200);
    expect(incoming.json()).not.toHaveProperty('paymentInstructions');
    expect(incoming.json()).not.toHaveProperty('rateDetails');
  });
});

describe('failureReason (REF enums)', () => {
  it('a cancelled payment reads QUOTE_EXECUTION_FAILED with the cause in failureDetail, in the answer, on GET and in its webhook', async () => {
    const p = await env.platform();
    const a = await anApprovedCustomer(env, p, ['USD']);
    const b = await anApprovedCustomer(env, p, ['USD']);
    const q = (await p.request({ method: 'POST', url: '/quotes', payload: { source: { sourceType: 'ACCOUNT', accountId: a.accounts.USD }, destination: { destinationType: 'ACCOUNT', accountId: b.accounts.USD }, lockedCurrencySide: 'SENDING', lockedCurrencyAmount: 100 } })).json();
    const cancelled = await p.request({ method: 'POST', url: `/transactions/${q.transactionId}/cancel` });
    expect(cancelled.statusCode, cancelled.body).toBe(200);
    const want = { status: 'FAILED', failureReason: 'QUOTE_EXECUTION_FAILED', failureDetail: 'USER_CANCELLATION' };
    expect(cancelled.json()).toMatchObject(want);
    expect(await getTransaction(p, q.transactionId)).toMatchObject(want);
    const [failed] = await eventsOf(p.platformId, 'OUTGOING_PAYMENT.FAILED');
    expect(failed!.data).toMatchObject(want);
  });

  it('a payout the beneficiary\'s bank cannot receive reads REF\'s own value and no failureDetail', async () => {
    const p = await env.platform();
    const c = await anApprovedCustomer(env, p, ['USD']);
    await fund(p, c.accounts.USD!, 10_000);
    const dest = await anActiveExternalAccount(p, usdBankAccount('123456004'), c.customerId);
    const q = (await p.request({ method: 'POST', url: '/quotes', payload: { source: { sourceType: 'ACCOUNT', accountId: c.accounts.USD }, destination: { destinationType: 'ACCOUNT', accountId: dest }, lockedCurrencySide: 'SENDING', lockedCurrencyAmount: 1_000, immediatelyExecute: true } })).json();
    const t = await eventually(async () => {
      const x = await getTransaction(p, q.transactionId);
      return x.status === 'FAILED' ? x : undefined;
    }, 30_000);
    expect(t.failureReason).toBe('ACCOUNT_CANNOT_RECEIVE');
    expect(t).not.toHaveProperty('failureDetail');
  });
});

describe('proxyUmaSubdomain (REF PlatformConfig)', () => {
  it('is a DNS label, the same on every read and different for two platforms of one name', async () => {
    const p1 = await env.platform({ name: 'Acme Pay' });
    const p2 = await env.platform({ name: 'Acme Pay' });
    const read = async (p: TestPlatform) => (await p.request({ method: 'GET', url: '/config' })).json();
    const c1 = await read(p1);
    assertMatchesResponseSchema('GET', `${BASE}/config`, 200, c1);
    expect(c1.proxyUmaSubdomain).toMatch(/^acme-pay-[0-9a-f]{12}$/);
    expect((await read(p1)).proxyUmaSubdomain).toBe(c1.proxyUmaSubdomain);
    expect((await read(p2)).proxyUmaSubdomain).not.toBe(c1.proxyUmaSubdomain);
  });
});
