import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASE, createTestEnv, eventually, type TestEnv, type TestPlatform } from '../helpers/app.js';
import { assertMatchesResponseSchema } from '../helpers/openapi.js';
import { Receiver } from '../helpers/receiver.js';
import { anActiveExternalAccount, anApprovedCustomer, balances, expectLedgerConsistent, fund, usdBankAccount } from '../helpers/builders.js';
import type { RunningWorkers } from '../../src/workers.js';

let env: TestEnv;
let workers: RunningWorkers;
let receiver: Receiver;

beforeAll(async () => {
  env = await createTestEnv({ SANDBOX_RAIL_DELAY_SCALE: '0.01', PAYMENT_POLL_MIN_MS: '20' });
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
}

async function setup(): Promise<Setup> {
  const p = await env.platform();
  await env.deps.prisma.platform.update({ where: { id: p.platformId }, data: { webhookEndpoint: receiver.url } });
  const c = await anApprovedCustomer(env, p, ['USD']);
  return { p, customerId: c.customerId, usd: c.accounts.USD! };
}

const lookup = (s: Setup, address: string, query = `customerId=${s.customerId}`) => s.p.request({ method: 'GET', url: `/receiver/uma/${encodeURIComponent(address)}?${query}` });

const umaQuote = (s: Setup, address: string, lookupId: string, amount: number, extra: Record<string, unknown> = {}) =>
  s.p.request({
    method: 'POST',
    url: '/quotes',
    payload: { source: { sourceType: 'ACCOUNT', accountId: s.usd }, destination: { destinationType: 'UMA_ADDRESS', umaAddress: address, ...((extra.destination as object) ?? {}) }, lockedCurrencySide: 'SENDING', lockedCurrencyAmount: amount, lookupId, ...extra, ...(extra.destination ? { destination: { destinationType: 'UMA_ADDRESS', umaAddress: address, ...(extra.destination as object) } } : {}) },
  });

async function waitStatus(p: TestPlatform, transactionId: string, status: string, refund?: string) {
  return eventually(async () => {
    const t = (await p.request({ method: 'GET', url: `/transactions/${transactionId}` })).json();
    return t.status === status && (!refund || t.refund?.status === refund) ? t : undefined;
  });
}

const eventsOf = (platformId: string) => env.deps.prisma.webhookEvent.findMany({ where: { platformId }, orderBy: { id: 'asc' } });

describe('receiver lookup through the sandbox directory', () => {
  it('answers a test receiver with its currencies, limits, payer data and an expiring lookup id', async () => {
    const s = await setup();
    const res = await lookup(s, '$Alice@sandbox.uma');
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    assertMatchesResponseSchema('GET', `${BASE}/receiver/uma/{umaAddress}`, 200, body);
    expect(body.receiverUmaAddress).toBe('$alice@sandbox.uma');
    expect(body.lookupId).toMatch(/^Lookup:[0-9a-f-]{36}$/);
    expect(body.supportedCurrencies.map((c: any) => c.currency.code)).toEqual(['USD', 'EUR']);
    expect(body.supportedCurrencies[0]).toMatchObject({ currency: { code: 'USD', decimals: 2 }, estimatedExchangeRate: 1, min: 1, max: 10_000_000 });
    expect(body.supportedCurrencies[1].estimatedExchangeRate).toBeGreaterThan(1);
    expect(body.requiredPayerDataFields).toEqual([{ name: 'EMAIL', mandatory: false }]);
    const bob = (await lookup(s, '$bob@sandbox.uma')).json();
    expect(bob.requiredPayerDataFields).toEqual([{ name: 'FULL_NAME', mandatory: true }, { name: 'BIRTH_DATE', mandatory: true }]);
  });

  it('maps every failure of the counterparty to the spec code', async () => {
    const s = await setup();
    const cases: Array<[string, number, string]> = [
      ['alice@sandbox.uma', 400, 'INVALID_UMA_ADDRESS'],
      ['$al ice@sandbox.uma', 400, 'INVALID_UMA_ADDRESS'],
      ['$alice@', 400, 'INVALID_UMA_ADDRESS'],
      ['$nobody@sandbox.uma', 404, 'UMA_NOT_FOUND'],
      ['$alice@elsewhere.example', 404, 'UMA_NOT_FOUND'],
      ['$refuse@sandbox.uma', 400, 'SENDER_NOT_ACCEPTED'],
      ['$fail@sandbox.uma', 400, 'LOOKUP_REQUEST_FAILED'],
      ['$badcert@sandbox.uma', 400, 'CERT_CHAIN_INVALID'],
      ['$garbled@sandbox.uma', 400, 'PARSE_LNURLP_RESPONSE_ERROR'],
      ['$invalid@sandbox.uma', 400, 'INVALID_RECEIVER'],
      ['$legacy@sandbox.uma', 412, 'UNSUPPORTED_UMA_VERSION'],
      ['$down@sandbox.uma', 424, 'LNURLP_REQUEST_FAILED'],
      ['$nokey@sandbox.uma', 424, 'COUNTERPARTY_PUBKEY_FETCH_ERROR'],
    ];
    for (const [address, status, code] of cases) {
      const res = await lookup(s, address);
      expect([address, res.statusCode, res.json().code]).toEqual([address, status, code]);
      assertMatchesResponseSchema('GET', `${BASE}/receiver/uma/{umaAddress}`, status, res.json());
    }
    expect((await lookup(s, '$alice@sandbox.uma', '')).json()).toMatchObject({ status: 400, code: 'INVALID_INPUT' });
    expect((await lookup(s, '$alice@sandbox.uma', 'customerId=Customer:00000000-0000-7000-8000-000000000000')).statusCode).toBe(404);
    const other = await env.platform();
    expect((await other.request({ method: 'GET', url: `/receiver/uma/${encodeURIComponent('$alice@sandbox.uma')}?customerId=${s.customerId}` })).statusCode).toBe(404);
  });
});

describe('paying a UMA address', () => {
  it('lookup → quote → execute → COMPLETED over the UMA adapter, money cleared through UMA_CLEARING', async () => {
    const s = await setup();
    await fund(s.p, s.usd, 100_000);
    const l = (await lookup(s, '$alice@sandbox.uma')).json();
    const res = await umaQuote(s, '$alice@sandbox.uma', l.lookupId, 10_000, { destination: { currency: 'USD' } });
    expect(res.statusCode, res.body).toBe(201);
    const q = res.json();
    assertMatchesResponseSchema('POST', `${BASE}/quotes`, 201, q);
    expect(q).toMatchObject({ status: 'PENDING', destination: { destinationType: 'UMA_ADDRESS', umaAddress: '$alice@sandbox.uma', currency: 'USD' }, receivingCurrency: { code: 'USD' } });
    const exec = await s.p.request({ method: 'POST', url: `/quotes/${q.id}/execute` });
    expect(exec.statusCode, exec.body).toBe(200);
    const t = await waitStatus(s.p, q.transactionId, 'COMPLETED');
    assertMatchesResponseSchema('GET', `${BASE}/transactions/{transactionId}`, 200, t);
    // Settled over Lightning, which REF's PaymentRail enum does not name: no paymentRail on the wire.
    expect(t).toMatchObject({ receivedAmount: { amount: q.totalReceivingAmount }, counterpartyInformation: { FULL_NAME: 'Alice Sandbox' } });
    expect(t).not.toHaveProperty('paymentRail');
    expect((await env.deps.prisma.transaction.findFirstOrThrow({ where: { id: q.transactionId } })).paymentRail).toBe('LIGHTNING');
    expect(await balances(env, s.usd)).toEqual({ available: BigInt(100_000 - q.totalSendingAmount), held: 0n });
    const clearing = await env.deps.prisma.ledgerEntry.aggregate({ where: { platformId: s.p.platformId, account: 'system:UMA_CLEARING:USD' }, _sum: { amount: true } });
    expect(clearing._sum.amount).toBe(BigInt(q.totalReceivingAmount));
    await expectLedgerConsistent(env, s.p.platformId);
    const types = (await eventsOf(s.p.platformId)).map((e) => e.type).filter((ty) => ty.startsWith('OUTGOING_PAYMENT.'));
    expect(types).toEqual(['OUTGOING_PAYMENT.PENDING', 'OUTGOING_PAYMENT.PROCESSING', 'OUTGOING_PAYMENT.COMPLETED']);
    // Issue 30: GET /quotes?receivingUmaAddress= finds it by the address paid, and nothing for another address.
    const listed = (await s.p.request({ method: 'GET', url: `/quotes?receivingUmaAddress=${encodeURIComponent('$alice@sandbox.uma')}` })).json();
    expect(listed.data.map((x: { id: string }) => x.id)).toEqual([q.id]);
    expect((await s.p.request({ method: 'GET', url: `/quotes?receivingUmaAddress=${encodeURIComponent('$bob@sandbox.uma')}` })).json().data).toEqual([]);
  });

  it('a failed UMA settlement is refunded like any payment', async () => {
    const s = await setup();
    await fund(s.p, s.usd, 50_000);
    const l = (await lookup(s, '$alice004@sandbox.uma')).json();
    const q = (await umaQuote(s, '$alice004@sandbox.uma', l.lookupId, 5_000)).json();
    await s.p.request({ method: 'POST', url: `/quotes/${q.id}/execute` });
    const t = await waitStatus(s.p, q.transactionId, 'FAILED', 'COMPLETED');
    expect(t).toMatchObject({ failureReason: 'ACCOUNT_CANNOT_RECEIVE', refund: { status: 'COMPLETED', reason: 'TRANSACTION_FAILED' } });
    expect(await balances(env, s.usd)).toEqual({ available: 50_000n, held: 0n });
    await expectLedgerConsistent(env, s.p.platformId);
  });

  it('refuses unknown or expired lookups, missing payer data, amounts and currencies outside the lookup', async () => {
    const s = await setup();
    await fund(s.p, s.usd, 100_000);
    let res = await umaQuote(s, '$alice@sandbox.uma', 'Lookup:00000000-0000-7000-8000-000000000000', 1_000);
    expect([res.statusCode, res.json().code]).toEqual([404, 'LOOKUP_REQUEST_NOT_FOUND']);
    const bob = (await lookup(s, '$bob@sandbox.uma')).json();
    res = await umaQuote(s, '$bob@sandbox.uma', bob.lookupId, 1_000, { senderCustomerInfo: { FULL_NAME: 'Ada Lovelace' } });
    expect(res.statusCode).toBe(400);
    assertMatchesResponseSchema('POST', `${BASE}/quotes`, 400, res.json());
    expect(res.json()).toMatchObject({ code: 'MISSING_MANDATORY_USER_INFO', details: { missingFields: ['BIRTH_DATE'] } });
    res = await umaQuote(s, '$bob@sandbox.uma', bob.lookupId, 50, { senderCustomerInfo: { FULL_NAME: 'Ada Lovelace', BIRTH_DATE: '1815-12-10' }, lockedCurrencySide: 'RECEIVING' });
    expect([res.statusCode, res.json().code]).toEqual([400, 'AMOUNT_OUT_OF_RANGE']);
    res = await umaQuote(s, '$bob@sandbox.uma', bob.lookupId, 1_000, { senderCustomerInfo: { FULL_NAME: 'Ada Lovelace', BIRTH_DATE: '1815-12-10' }, destination: { currency: 'GBP' } });
    expect([res.statusCode, res.json().code]).toEqual([400, 'INVALID_CURRENCY']);
    res = await umaQuote(s, '$bob@sandbox.uma', bob.lookupId, 1_000, { senderCustomerInfo: { FULL_NAME: 'Ada Lovelace', BIRTH_DATE: '1815-12-10' }, destination: { currency: 'MXN' }, lockedCurrencySide: 'RECEIVING' });
    expect(res.statusCode, res.body).toBe(201);
    res = await umaQuote(s, '$alice@sandbox.uma', bob.lookupId, 1_000);
    expect(res.json().details.errors[0].field).toBe('destination.umaAddress');
    env.clock.advance(env.config.UMA_LOOKUP_TTL_SECONDS * 1000 + 1000);
    try {
      res = await umaQuote(s, '$bob@sandbox.uma', bob.lookupId, 1_000, { senderCustomerInfo: { FULL_NAME: 'Ada Lovelace', BIRTH_DATE: '1815-12-10' } });
      expect([res.statusCode, res.json().code]).toEqual([404, 'LOOKUP_REQUEST_NOT_FOUND']);
    } finally {
      env.clock.advance(-(env.config.UMA_LOOKUP_TTL_SECONDS * 1000 + 1000));
    }
    const payfail = (await lookup(s, '$payfail@sandbox.uma')).json();
    res = await umaQuote(s, '$payfail@sandbox.uma', payfail.lookupId, 1_000);
    expect([res.statusCode, res.json().code]).toEqual([424, 'PAYREQ_REQUEST_FAILED']);
  });

  it("pays another customer's UMA address on the same platform into its internal account", async () => {
    const s = await setup();
    await fund(s.p, s.usd, 20_000);
    const other = await anApprovedCustomer(env, s.p, ['USD']);
    const address = (await env.deps.prisma.customer.findFirstOrThrow({ where: { id: other.customerId } })).umaAddress;
    const l = await lookup(s, address);
    expect(l.statusCode, l.body).toBe(200);
    const q = (await umaQuote(s, address, l.json().lookupId, 10_000, { immediatelyExecute: true })).json();
    await waitStatus(s.p, q.transactionId, 'COMPLETED');
    expect((await balances(env, other.accounts.USD!)).available).toBe(BigInt(q.totalReceivingAmount));
    await expectLedgerConsistent(env, s.p.platformId);
    // Delivered to a local receiver, it still paid that UMA address: listed by it (issue 30, decisions 30b).
    const listed = (await s.p.request({ method: 'GET', url: `/quotes?receivingUmaAddress=${encodeURIComponent(address)}` })).json();
    expect(listed.data.map((x: { id: string }) => x.id)).toEqual([q.id]);
  });
});

describe('incoming UMA payments', () => {
  it("credit the customer's internal account: BALANCE_UPDATED and INCOMING_PAYMENT.COMPLETED with an INCOMING transaction", async () => {
    const s = await setup();
    const address = (await env.deps.prisma.customer.findFirstOrThrow({ where: { id: s.customerId } })).umaAddress;
    const res = await s.p.request({ method: 'POST', url: '/sandbox/uma/incoming', payload: { receiverUmaAddress: address, amount: 2_500, currency: 'USD', senderUmaAddress: '$carol@other.example' } });
    expect(res.statusCode, res.body).toBe(201);
    assertMatchesResponseSchema('POST', `${BASE}/sandbox/uma/incoming`, 201, res.json());
    expect(res.json()).toMatchObject({ type: 'INCOMING', direction: 'CREDIT', status: 'COMPLETED', receivedAmount: { amount: 2_500 } });
    expect(res.json().quoteId).toBeUndefined();
    expect(await balances(env, s.usd)).toEqual({ available: 2_500n, held: 0n });
    const types = (await eventsOf(s.p.platformId)).map((e) => e.type);
    expect(types).toEqual(expect.arrayContaining(['INTERNAL_ACCOUNT.BALANCE_UPDATED', 'INCOMING_PAYMENT.COMPLETED']));
    const list = (await s.p.request({ method: 'GET', url: '/transactions?type=INCOMING' })).json();
    expect(list.data.map((t: any) => t.id)).toEqual([res.json().id]);
    expect((await s.p.request({ method: 'POST', url: '/sandbox/uma/incoming', payload: { receiverUmaAddress: '$nobody@nowhere.example', amount: 1, currency: 'USD' } })).json().code).toBe('UMA_NOT_FOUND');
    await expectLedgerConsistent(env, s.p.platformId);
  });

  it('go to the default UMA deposit account when the customer set one', async () => {
    const s = await setup();
    const ext = await anActiveExternalAccount(s.p, { ...usdBankAccount('555000111'), defaultUmaDepositAccount: true }, s.customerId);
    const address = (await env.deps.prisma.customer.findFirstOrThrow({ where: { id: s.customerId } })).umaAddress;
    const res = await s.p.request({ method: 'POST', url: '/sandbox/uma/incoming', payload: { receiverUmaAddress: address, amount: 4_000, currency: 'USD' } });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toMatchObject({ type: 'INCOMING', status: 'PROCESSING', destination: { accountId: ext } });
    await waitStatus(s.p, res.json().id, 'COMPLETED');
    expect(await balances(env, s.usd)).toEqual({ available: 0n, held: 0n });
    const types = (await eventsOf(s.p.platformId)).map((e) => e.type).filter((t) => t.startsWith('INCOMING_PAYMENT.'));
    expect(types).toEqual(['INCOMING_PAYMENT.PENDING', 'INCOMING_PAYMENT.PROCESSING', 'INCOMING_PAYMENT.COMPLETED']);
    await expectLedgerConsistent(env, s.p.platformId);
  });

  it('fall back to the internal account when the payout to the default account fails: no money is lost', async () => {
    const s = await setup();
    await anActiveExternalAccount(s.p, { ...usdBankAccount('555000004'), defaultUmaDepositAccount: true }, s.customerId);
    const address = (await env.deps.prisma.customer.findFirstOrThrow({ where: { id: s.customerId } })).umaAddress;
    const res = await s.p.request({ method: 'POST', url: '/sandbox/uma/incoming', payload: { receiverUmaAddress: address, amount: 3_000, currency: 'USD' } });
    await waitStatus(s.p, res.json().id, 'FAILED', 'COMPLETED');
    expect(await balances(env, s.usd)).toEqual({ available: 3_000n, held: 0n });
    await expectLedgerConsistent(env, s.p.platformId);
  });
});
