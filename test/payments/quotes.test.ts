import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASE, createTestEnv, eventually, type TestEnv, type TestPlatform } from '../helpers/app.js';
import { Receiver } from '../helpers/receiver.js';
import { anActiveExternalAccount, anApprovedCustomer, balances, eurBankAccount, expectHeldOnce, expectLedgerConsistent, fund, STARTED_STATUSES, usdBankAccount } from '../helpers/builders.js';
import { assertMatchesResponseSchema } from '../helpers/openapi.js';
import type { RunningWorkers } from '../../src/workers.js';
import { priceQuote } from '../../src/domains/fees/pricing.js';

let env: TestEnv;
let workers: RunningWorkers;
let receiver: Receiver;
/** Whether the receiver has had a delivery of each of these event types. */
const receivedAll = (types: string[]) => types.every((ty) => receiver.received.some((r) => r.json.type === ty));

beforeAll(async () => {
  env = await createTestEnv({ SANDBOX_RAIL_DELAY_SCALE: '0.01', SANDBOX_RETURN_AFTER_MS: '1500', PAYMENT_POLL_MIN_MS: '20' });
  workers = env.startWorkers();
  receiver = await new Receiver().start();
});
afterAll(async () => {
  await workers.close();
  await receiver.stop();
  await env.close();
});

interface Setup {
  p: TestPlatform;
  customerId: string;
  usd: string;
  eur: string;
  platformUsd: string;
}

async function setup(opts: { withReceiver?: boolean } = {}): Promise<Setup> {
  const p = await env.platform();
  if (opts.withReceiver) await env.deps.prisma.platform.update({ where: { id: p.platformId }, data: { webhookEndpoint: receiver.url } });
  const c = await anApprovedCustomer(env, p, ['USD', 'EUR']);
  const platformUsd = (await env.deps.prisma.internalAccount.findFirstOrThrow({ where: { platformId: p.platformId, customerId: null, currency: 'USD' } })).id;
  return { p, customerId: c.customerId, usd: c.accounts.USD!, eur: c.accounts.EUR!, platformUsd };
}

const quote = (s: Setup, destination: string, amount: number, extra: object = {}) =>
  s.p.request({
    method: 'POST',
    url: '/quotes',
    payload: { source: { sourceType: 'ACCOUNT', accountId: s.usd }, destination: { destinationType: 'ACCOUNT', accountId: destination }, lockedCurrencySide: 'SENDING', lockedCurrencyAmount: amount, ...extra },
  });

async function waitStatus(p: TestPlatform, transactionId: string, status: string, refund?: string) {
  return eventually(async () => {
    const t = (await p.request({ method: 'GET', url: `/transactions/${transactionId}` })).json();
    return t.status === status && (!refund || t.refund?.status === refund) ? t : undefined;
  });
}

describe('fund → quote → execute → COMPLETED', () => {
  it('same currency with platform fees: exact amounts on all three accounts and events in order', async () => {
    const s = await setup({ withReceiver: true });
    await s.p.request({ method: 'PATCH', url: '/config', payload: { feeConfigs: [{ feeType: 'RAIL', rail: 'ACH', direction: 'OUT', originator: 'SVC', variableFeeBps: 30, fixedFee: { amount: 50, currency: 'USD' } }] } });
    receiver.received.length = 0;
    const dest = await anActiveExternalAccount(s.p, usdBankAccount());
    await fund(s.p, s.usd, 1_000_000);

    const res = await quote(s, dest, 10_000, { remittanceInformation: 'Invoice 42' });
    expect(res.statusCode, res.body).toBe(201);
    const q = res.json();
    assertMatchesResponseSchema('POST', `${BASE}/quotes`, 201, q);
    expect(q).toMatchObject({ status: 'PENDING', exchangeRate: 1, totalSendingAmount: 10_000, sendingCurrency: { code: 'USD', decimals: 2 }, destination: { paymentRail: 'ACH' } });
    // The spec's formula, recomputed with the service's fixed ACH fee (25 by default, no variable part):
    // base = 10000 - 50 - 25 = 9925; platform variable = round(9925 x 0.0030) = 30; platform fee 80.
    expect(q.platformFeesIncluded).toBe(80);
    expect(q.feesIncluded).toBe(105);
    expect(q.totalSendingAmount).toBe(q.totalReceivingAmount + q.feesIncluded);
    expect(q.feesIncluded).toBeGreaterThanOrEqual(q.platformFeesIncluded);

    const exec = await s.p.request({ method: 'POST', url: `/quotes/${q.id}/execute` });
    expect(exec.statusCode, exec.body).toBe(200);
    assertMatchesResponseSchema('POST', `${BASE}/quotes/{quoteId}/execute`, 200, exec.json());
    // The answer is read back after the settlement job was queued: the worker may already have finished.
    expect(STARTED_STATUSES).toContain(exec.json().status);
    await expectHeldOnce(env, s.p.platformId, q.transactionId, s.usd, BigInt(q.totalSendingAmount));

    const t = await waitStatus(s.p, q.transactionId, 'COMPLETED');
    assertMatchesResponseSchema('GET', `${BASE}/transactions/{transactionId}`, 200, t);
    expect(t).toMatchObject({ sentAmount: { amount: 10_000 }, receivedAmount: { amount: q.totalReceivingAmount }, fees: q.feesIncluded, platformFees: q.platformFeesIncluded });
    expect(await balances(env, s.usd)).toEqual({ available: 990_000n, held: 0n });
    expect(await balances(env, s.platformUsd)).toEqual({ available: BigInt(q.platformFeesIncluded), held: 0n });
    await expectLedgerConsistent(env, s.p.platformId);

    // Deliveries are unordered (decision A7): every one expected has arrived, whatever the order.
    await eventually(async () => receivedAll(['OUTGOING_PAYMENT.PENDING', 'OUTGOING_PAYMENT.PROCESSING', 'OUTGOING_PAYMENT.COMPLETED']) && receiver.received.some((r) => r.json.type === 'INTERNAL_ACCOUNT.BALANCE_UPDATED' && r.json.data.id === s.platformUsd));
    // Event ids are time-ordered, as a platform would sort them.
    const types = [...receiver.received].sort((a, b) => (a.json.id < b.json.id ? -1 : 1)).map((r) => r.json.type).filter((ty) => ty.startsWith('OUTGOING_PAYMENT.'));
    expect(types).toEqual(['OUTGOING_PAYMENT.PENDING', 'OUTGOING_PAYMENT.PROCESSING', 'OUTGOING_PAYMENT.COMPLETED']);
    const completed = receiver.received.find((r) => r.json.type === 'OUTGOING_PAYMENT.COMPLETED')!.json.data;
    expect(completed).toMatchObject({ fees: q.feesIncluded, platformFees: q.platformFeesIncluded, status: 'COMPLETED' });
    expect(receiver.received.some((r) => r.json.type === 'INTERNAL_ACCOUNT.BALANCE_UPDATED' && r.json.data.id === s.platformUsd)).toBe(true);
  });

  it('the worked example of the spec holds to the unit', () => {
    const p = priceQuote({ lockedSide: 'SENDING', lockedAmount: 1000n, sendingCurrency: 'USD', receivingCurrency: 'USD', rate: '1', platformFee: { fixed: 50n, bps: 30 }, serviceFee: { fixed: 0n, bps: 100 } });
    expect(p.platformFee).toBe(53n);
  });

  it('cross currency, receiving side locked: the recipient gets exactly the locked amount', async () => {
    const s = await setup();
    const dest = await anActiveExternalAccount(s.p, eurBankAccount());
    await fund(s.p, s.usd, 1_000_000);
    const res = await quote(s, dest, 5_000, { lockedCurrencySide: 'RECEIVING' });
    expect(res.statusCode, res.body).toBe(201);
    const q = res.json();
    expect(q).toMatchObject({ totalReceivingAmount: 5_000, receivingCurrency: { code: 'EUR' }, sendingCurrency: { code: 'USD' } });
    expect(q.exchangeRate).toBeGreaterThan(0);
    expect(q.exchangeRate).not.toBe(1);
    const exec = await s.p.request({ method: 'POST', url: `/quotes/${q.id}/execute` });
    expect(exec.statusCode).toBe(200);
    const t = await waitStatus(s.p, q.transactionId, 'COMPLETED');
    expect(t.receivedAmount).toMatchObject({ amount: 5_000, currency: { code: 'EUR' } });
    expect(await balances(env, s.usd)).toEqual({ available: BigInt(1_000_000 - q.totalSendingAmount), held: 0n });
    await expectLedgerConsistent(env, s.p.platformId);
  });

  it('immediatelyExecute creates and starts the payment in one request', async () => {
    const s = await setup();
    await fund(s.p, s.usd, 50_000);
    const res = await quote(s, s.eur, 10_000, { immediatelyExecute: true });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().status).toBe('PROCESSING');
    await waitStatus(s.p, res.json().transactionId, 'COMPLETED');
    const eur = await balances(env, s.eur);
    expect(eur.available).toBe(BigInt(res.json().totalReceivingAmount));
    await expectLedgerConsistent(env, s.p.platformId);
  });
});

describe('failures and refunds', () => {
  it('a failed payout is refunded automatically: balances restored, no platform fee credited', async () => {
    const s = await setup({ withReceiver: true });
    await s.p.request({ method: 'PATCH', url: '/config', payload: { feeConfigs: [{ feeType: 'RAIL', rail: 'ACH', direction: 'OUT', originator: 'SVC', variableFeeBps: 30, fixedFee: { amount: 50, currency: 'USD' } }] } });
    const dest = await anActiveExternalAccount(s.p, usdBankAccount('123456004'));
    await fund(s.p, s.usd, 100_000);
    receiver.received.length = 0;
    const q = (await quote(s, dest, 10_000)).json();
    await s.p.request({ method: 'POST', url: `/quotes/${q.id}/execute` });
    const t = await waitStatus(s.p, q.transactionId, 'FAILED', 'COMPLETED');
    expect(t).toMatchObject({ failureReason: 'ACCOUNT_CANNOT_RECEIVE', refund: { status: 'COMPLETED', reason: 'TRANSACTION_FAILED' } });
    expect(await balances(env, s.usd)).toEqual({ available: 100_000n, held: 0n });
    expect(await balances(env, s.platformUsd)).toEqual({ available: 0n, held: 0n });
    await expectLedgerConsistent(env, s.p.platformId);
    // Deliveries are unordered (decision A7): every one expected has arrived, whatever the order.
    await eventually(async () => receivedAll(['OUTGOING_PAYMENT.PENDING', 'OUTGOING_PAYMENT.PROCESSING', 'OUTGOING_PAYMENT.FAILED', 'OUTGOING_PAYMENT.REFUND_PENDING', 'OUTGOING_PAYMENT.REFUND_COMPLETED']));
    // Event ids are time-ordered, as a platform would sort them.
    const types = [...receiver.received].sort((a, b) => (a.json.id < b.json.id ? -1 : 1)).map((r) => r.json.type).filter((ty) => ty.startsWith('OUTGOING_PAYMENT.'));
    expect(types).toEqual(['OUTGOING_PAYMENT.PENDING', 'OUTGOING_PAYMENT.PROCESSING', 'OUTGOING_PAYMENT.FAILED', 'OUTGOING_PAYMENT.REFUND_PENDING', 'OUTGOING_PAYMENT.REFUND_COMPLETED']);
  });

  it('a bank return after completion fails the payment, refunds the sender and reverses the platform fee', async () => {
    const s = await setup();
    await s.p.request({ method: 'PATCH', url: '/config', payload: { feeConfigs: [{ feeType: 'RAIL', rail: 'ACH', direction: 'OUT', originator: 'SVC', variableFeeBps: 30, fixedFee: { amount: 50, currency: 'USD' } }] } });
    const dest = await anActiveExternalAccount(s.p, usdBankAccount('123456005'));
    await fund(s.p, s.usd, 100_000);
    const q = (await quote(s, dest, 10_000)).json();
    await s.p.request({ method: 'POST', url: `/quotes/${q.id}/execute` });
    await waitStatus(s.p, q.transactionId, 'COMPLETED');
    expect((await balances(env, s.platformUsd)).available).toBe(BigInt(q.platformFeesIncluded));
    const t = await waitStatus(s.p, q.transactionId, 'FAILED', 'COMPLETED');
    expect(t.failureReason).toBe('PAYOUT_RETURNED');
    expect(await balances(env, s.usd)).toEqual({ available: 100_000n, held: 0n });
    expect(await balances(env, s.platformUsd)).toEqual({ available: 0n, held: 0n });
    await expectLedgerConsistent(env, s.p.platformId);
  });

  it('when payout and refund both fail, the funds stay held and the refund is FAILED', async () => {
    const s = await setup();
    const dest = await anActiveExternalAccount(s.p, usdBankAccount('123456007'));
    await fund(s.p, s.usd, 100_000);
    const q = (await quote(s, dest, 10_000)).json();
    await s.p.request({ method: 'POST', url: `/quotes/${q.id}/execute` });
    await waitStatus(s.p, q.transactionId, 'FAILED', 'FAILED');
    expect(await balances(env, s.usd)).toEqual({ available: 90_000n, held: 10_000n });
    await expectLedgerConsistent(env, s.p.platformId);
  });
});

describe('execution guarantees', () => {
  it('50 concurrent executes against a balance that covers 10: exactly 10 succeed, nothing goes negative', async () => {
    const s = await setup();
    const quotes = [];
    for (let i = 0; i < 50; i++) quotes.push((await quote(s, s.eur, 1_000)).json());
    await fund(s.p, s.usd, 10 * 1_000);
    const results = await Promise.all(quotes.map((q) => s.p.request({ method: 'POST', url: `/quotes/${q.id}/execute` })));
    const ok = results.filter((r) => r.statusCode === 200);
    expect(ok).toHaveLength(10);
    const refused = results.filter((r) => r.statusCode !== 200);
    expect(refused.map((r) => `${r.statusCode} ${r.json().code}`).filter((x) => x !== '400 INSUFFICIENT_FUNDS')).toEqual([]);
    expect(refused.every((r) => r.statusCode === 400 && r.json().code === 'INSUFFICIENT_FUNDS')).toBe(true);
    expect((await balances(env, s.usd)).available).toBe(0n);
    const stillPending = await env.deps.prisma.quote.count({ where: { platformId: s.p.platformId, status: 'PENDING' } });
    expect(stillPending).toBe(40);
    await eventually(async () => (await env.deps.prisma.transaction.count({ where: { platformId: s.p.platformId, status: 'COMPLETED' } })) === 10);
    await expectLedgerConsistent(env, s.p.platformId);
  });

  it('a second execute of the same quote, concurrent or later, moves no money', async () => {
    const s = await setup();
    await fund(s.p, s.usd, 100_000);
    const q = (await quote(s, s.eur, 1_000)).json();
    const results = await Promise.all(Array.from({ length: 5 }, () => s.p.request({ method: 'POST', url: `/quotes/${q.id}/execute` })));
    expect(results.filter((r) => r.statusCode === 200)).toHaveLength(1);
    expect(results.filter((r) => r.statusCode === 409).every((r) => r.json().code === 'QUOTE_NOT_PENDING')).toBe(true);
    const later = await s.p.request({ method: 'POST', url: `/quotes/${q.id}/execute` });
    expect(later.statusCode).toBe(409);
    // The worker settles the payment whenever it likes: the ledger, not a balance snapshot, shows what
    // moved — one hold journal for this transaction, the quoted total debited once, no other hold.
    expect(await env.deps.prisma.ledgerJournal.count({ where: { platformId: s.p.platformId, kind: 'PAYMENT_HOLD' } })).toBe(1);
    await expectHeldOnce(env, s.p.platformId, q.transactionId, s.usd, BigInt(q.totalSendingAmount));
    // And once settled, exactly the quoted total left the account.
    await waitStatus(s.p, q.transactionId, 'COMPLETED');
    expect(await balances(env, s.usd)).toEqual({ available: BigInt(100_000 - q.totalSendingAmount), held: 0n });
    await expectLedgerConsistent(env, s.p.platformId);
  });

  it('insufficient balance is a clear 400 and moves nothing', async () => {
    const s = await setup();
    await fund(s.p, s.usd, 500);
    const q = (await quote(s, s.eur, 1_000)).json();
    const res = await s.p.request({ method: 'POST', url: `/quotes/${q.id}/execute` });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'INSUFFICIENT_FUNDS', details: { accountId: s.usd } });
    expect(await balances(env, s.usd)).toEqual({ available: 500n, held: 0n });
    expect((await s.p.request({ method: 'GET', url: `/quotes/${q.id}` })).json().status).toBe('PENDING');
  });

  it('an expired quote cannot be executed and becomes EXPIRED', async () => {
    const s = await setup();
    await fund(s.p, s.usd, 100_000);
    const q = (await quote(s, s.eur, 1_000)).json();
    env.clock.advance(env.config.QUOTE_TTL_SECONDS * 1000 + 1000);
    try {
      const res = await s.p.request({ method: 'POST', url: `/quotes/${q.id}/execute` });
      expect(res.statusCode).toBe(409);
      expect(res.json().code).toBe('QUOTE_EXPIRED');
      await waitStatus(s.p, q.transactionId, 'EXPIRED');
      expect((await s.p.request({ method: 'GET', url: `/quotes/${q.id}` })).json().status).toBe('EXPIRED');
    } finally {
      env.clock.advance(-(env.config.QUOTE_TTL_SECONDS * 1000 + 1000));
    }
  });

  it('Idempotency-Key on quote creation and execution replays instead of repeating', async () => {
    const s = await setup();
    await fund(s.p, s.usd, 100_000);
    const body = { source: { sourceType: 'ACCOUNT', accountId: s.usd }, destination: { destinationType: 'ACCOUNT', accountId: s.eur }, lockedCurrencySide: 'SENDING', lockedCurrencyAmount: 1000 };
    const a = await s.p.request({ method: 'POST', url: '/quotes', headers: { 'idempotency-key': 'q-1' }, payload: body });
    const b = await s.p.request({ method: 'POST', url: '/quotes', headers: { 'idempotency-key': 'q-1' }, payload: body });
    expect(b.json().id).toBe(a.json().id);
    expect(b.headers['idempotent-replayed']).toBe('true');
    const c = await s.p.request({ method: 'POST', url: '/quotes', headers: { 'idempotency-key': 'q-1' }, payload: { ...body, lockedCurrencyAmount: 2000 } });
    expect(c.statusCode).toBe(422);
    const e1 = await s.p.request({ method: 'POST', url: `/quotes/${a.json().id}/execute`, headers: { 'idempotency-key': 'x-1' } });
    const e2 = await s.p.request({ method: 'POST', url: `/quotes/${a.json().id}/execute`, headers: { 'idempotency-key': 'x-1' } });
    expect([e1.statusCode, e2.statusCode]).toEqual([200, 200]);
    expect(e2.headers['idempotent-replayed']).toBe('true');
  });
});

describe('quote validation', () => {
  it('names bad fields and refuses bad references', async () => {
    const s = await setup();
    let res = await quote(s, s.eur, 0, { remittanceInformation: 'x'.repeat(81), lockedCurrencySide: 'BOTH' });
    expect(res.statusCode).toBe(400);
    expect(res.json().details.errors.map((e: any) => e.field).sort()).toEqual(['lockedCurrencyAmount', 'lockedCurrencySide', 'remittanceInformation']);
    res = await quote(s, s.usd, 1000);
    expect(res.json().code).toBe('SELF_PAYMENT');
    res = await quote(s, 'ExternalAccount:00000000-0000-7000-8000-000000000000', 1000);
    expect(res.statusCode).toBe(404);
    res = await quote(s, s.eur, 1000, { platformFeeOverride: { platformFixedFee: { amount: -1, currency: 'EUR' }, platformVariableFeeBps: 10001 } });
    expect(res.statusCode).toBe(400);
    expect(res.json().details.errors.map((e: any) => e.field)).toEqual(expect.arrayContaining([expect.stringMatching(/^platformFeeOverride\./)]));
    res = await quote(s, s.eur, 20_000_000_000);
    expect(res.json().code).toBe('TRANSACTION_SIZE_LIMIT_EXCEEDED');
  });

  it('a customer that is not APPROVED cannot send (403 USER_NOT_READY)', async () => {
    const s = await setup();
    const pending = await anApprovedCustomer(env, s.p, ['USD', 'EUR'], 'PENDING');
    const res = await quote({ ...s, usd: pending.accounts.USD! }, pending.accounts.EUR!, 1000);
    expect(res.statusCode).toBe(403);
    expect(res.json().code).toBe('USER_NOT_READY');
  });

  it("another platform's quote and transaction do not exist", async () => {
    const s = await setup();
    const other = await env.platform();
    const q = (await quote(s, s.eur, 1000)).json();
    for (const [method, url] of [['GET', `/quotes/${q.id}`], ['POST', `/quotes/${q.id}/execute`], ['GET', `/transactions/${q.transactionId}`]] as const) {
      expect((await other.request({ method, url })).statusCode).toBe(404);
    }
    expect((await other.request({ method: 'GET', url: '/transactions' })).json().data).toEqual([]);
  });
});

describe('GET /transactions', () => {
  it('filters by status and pages with a cursor that never skips or repeats while rows are added', async () => {
    const s = await setup();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await quote(s, s.eur, 1000 + i)).json().transactionId);
    const first = (await s.p.request({ method: 'GET', url: '/transactions?limit=2&status=PENDING' })).json();
    assertMatchesResponseSchema('GET', `${BASE}/transactions`, 200, first);
    expect(first.data.map((t: any) => t.id)).toEqual([ids[4], ids[3]]);
    await quote(s, s.eur, 2000);
    const second = (await s.p.request({ method: 'GET', url: `/transactions?limit=2&status=PENDING&cursor=${first.nextCursor}` })).json();
    expect(second.data.map((t: any) => t.id)).toEqual([ids[2], ids[1]]);
    const third = (await s.p.request({ method: 'GET', url: `/transactions?limit=2&status=PENDING&cursor=${second.nextCursor}` })).json();
    expect(third.data.map((t: any) => t.id)).toEqual([ids[0]]);
    expect(third.hasMore).toBe(false);
    const none = (await s.p.request({ method: 'GET', url: '/transactions?status=COMPLETED,FAILED' })).json();
    expect(none.data).toEqual([]);
    const bad = await s.p.request({ method: 'GET', url: '/transactions?status=NOPE&startDate=yesterday' });
    expect(bad.statusCode).toBe(400);
  });
});
