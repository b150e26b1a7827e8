import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, eventually, type TestEnv, type TestPlatform } from '../helpers/app.js';
import { anActiveExternalAccount, anApprovedCustomer, balances, expectLedgerConsistent, fund, usdBankAccount } from '../helpers/builders.js';
import { Receiver } from '../helpers/receiver.js';
import type { RunningWorkers } from '../../src/workers.js';

/** The paths and shapes REF's official client uses where the spec has others (issue 13). */
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

const fieldsOf = (res: { json(): any }) => (res.json().details?.errors ?? []).map((e: { field: string }) => e.field);

async function waitStatus(p: TestPlatform, transactionId: string, status: string) {
  return eventually(async () => {
    const t = (await p.request({ method: 'GET', url: `/transactions/${transactionId}` })).json();
    return t.status === status ? t : undefined;
  }, 30_000);
}

describe('unknown query parameters', () => {
  it('a list answers 400 INVALID_INPUT naming every query parameter it does not document', async () => {
    const p = await env.platform();
    for (const url of ['/customers?colour=red', '/transactions?colour=red&size=2', '/quotes?colour=red', '/customers/external-accounts?colour=red', '/uma-providers?colour=red']) {
      const res = await p.request({ method: 'GET', url });
      expect(res.statusCode, url).toBe(400);
      expect(res.json().code).toBe('INVALID_INPUT');
      expect(fieldsOf(res), url).toContain('colour');
    }
    const two = await p.request({ method: 'GET', url: '/transactions?colour=red&size=2' });
    expect(fieldsOf(two)).toEqual(['colour', 'size']);
  });

  it('a route that takes no query refuses any parameter, and documented ones still work', async () => {
    const p = await env.platform();
    const res = await p.request({ method: 'GET', url: '/config?verbose=true' });
    expect(res.statusCode).toBe(400);
    expect(fieldsOf(res)).toEqual(['verbose']);
    expect((await p.request({ method: 'GET', url: '/config' })).statusCode).toBe(200);
    expect((await p.request({ method: 'GET', url: '/customers?limit=5&customerType=INDIVIDUAL' })).statusCode).toBe(200);
  });
});

describe('transactions.list filters (REF)', () => {
  it('platformCustomerId lists only that customer\'s transactions; reference matches the rail reference', async () => {
    const p = await env.platform();
    const a = await anApprovedCustomer(env, p, ['USD'], 'APPROVED', { platformCustomerId: 'alice-1' });
    const b = await anApprovedCustomer(env, p, ['USD'], 'APPROVED', { platformCustomerId: 'bob-1' });
    await fund(p, a.accounts.USD!, 10_000);
    await fund(p, b.accounts.USD!, 10_000);
    const pay = (from: string, to: string) =>
      p.request({ method: 'POST', url: '/quotes', payload: { source: { sourceType: 'ACCOUNT', accountId: from }, destination: { destinationType: 'ACCOUNT', accountId: to }, lockedCurrencySide: 'SENDING', lockedCurrencyAmount: 100, immediatelyExecute: true } });
    const qa = await pay(a.accounts.USD!, b.accounts.USD!);
    const qb = await pay(b.accounts.USD!, a.accounts.USD!);
    expect(qa.statusCode, qa.body).toBe(201);
    expect(qb.statusCode, qb.body).toBe(201);
    const list = (await p.request({ method: 'GET', url: '/transactions?platformCustomerId=alice-1' })).json();
    expect(list.data.map((t: any) => t.id)).toEqual([qa.json().transactionId]);
    // REF leaves absent optional fields out rather than sending null.
    expect(Object.entries(list.data[0]).filter(([, v]) => v === null)).toEqual([]);
    expect(list.data[0]).not.toHaveProperty('failureReason');
    expect(list.data[0]).not.toHaveProperty('refund');
    expect(Object.entries(qa.json()).filter(([, v]) => v === null)).toEqual([]);
    const none = (await p.request({ method: 'GET', url: '/transactions?platformCustomerId=nobody' })).json();
    expect(none.data).toEqual([]);
    await env.deps.prisma.transaction.updateMany({ where: { id: qb.json().transactionId }, data: { railReference: 'TRACE-42' } });
    const byRef = (await p.request({ method: 'GET', url: '/transactions?reference=TRACE-42' })).json();
    expect(byRef.data.map((t: any) => t.id)).toEqual([qb.json().transactionId]);
  });
});

describe('GET /quotes (quotes.list)', () => {
  it('lists the platform\'s quotes newest first with REF\'s filters, pages, and hides other platforms\' quotes', async () => {
    const p = await env.platform();
    const other = await env.platform();
    const a = await anApprovedCustomer(env, p, ['USD']);
    const b = await anApprovedCustomer(env, p, ['USD']);
    await fund(p, a.accounts.USD!, 10_000);
    const quote = (to: string, execute = false) =>
      p.request({ method: 'POST', url: '/quotes', payload: { source: { sourceType: 'ACCOUNT', accountId: a.accounts.USD }, destination: { destinationType: 'ACCOUNT', accountId: to }, lockedCurrencySide: 'SENDING', lockedCurrencyAmount: 100, immediatelyExecute: execute } });
    const q1 = (await quote(b.accounts.USD!)).json();
    const q2 = (await quote(b.accounts.USD!, true)).json();
    const all = (await p.request({ method: 'GET', url: '/quotes' })).json();
    expect(all.data.map((q: any) => q.id)).toEqual([q2.id, q1.id]);
    expect(all.hasMore).toBe(false);
    const page1 = (await p.request({ method: 'GET', url: '/quotes?limit=1' })).json();
    expect(page1.data.map((q: any) => q.id)).toEqual([q2.id]);
    expect(page1.hasMore).toBe(true);
    const page2 = (await p.request({ method: 'GET', url: `/quotes?limit=1&cursor=${page1.nextCursor}` })).json();
    expect(page2.data.map((q: any) => q.id)).toEqual([q1.id]);
    const pending = (await p.request({ method: 'GET', url: '/quotes?status=PENDING' })).json();
    expect(pending.data.map((q: any) => q.id)).toEqual([q1.id]);
    expect((await p.request({ method: 'GET', url: `/quotes?customerId=${b.customerId}` })).json().data).toEqual([]);
    expect((await p.request({ method: 'GET', url: `/quotes?sendingAccountId=${a.accounts.USD}` })).json().data).toHaveLength(2);
    expect((await p.request({ method: 'GET', url: `/quotes?receivingAccountId=${a.accounts.USD}` })).json().data).toEqual([]);
    const future = new Date(Date.now() + 3_600_000).toISOString();
    expect((await p.request({ method: 'GET', url: `/quotes?createdAfter=${encodeURIComponent(future)}` })).json().data).toEqual([]);
    expect((await other.request({ method: 'GET', url: '/quotes' })).json().data).toEqual([]);
    const bad = await p.request({ method: 'GET', url: '/quotes?status=DONE' });
    expect(bad.statusCode).toBe(400);
    expect(fieldsOf(bad)).toEqual(['status']);
  });
});

describe('GET /customers/kyc-link (customers.getKYCLink)', () => {
  it('answers a hosted link for the customer named by platformCustomerId or customerId; unknown ones are 404', async () => {
    const p = await env.platform();
    const c = await anApprovedCustomer(env, p, ['USD'], 'UNVERIFIED', { platformCustomerId: 'kyc-7' });
    const res = await p.request({ method: 'GET', url: '/customers/kyc-link?platformCustomerId=kyc-7&redirectUri=https%3A%2F%2Fexample.com%2Fdone' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ customerId: c.customerId, platformCustomerId: 'kyc-7', kycUrl: expect.stringMatching(/^https?:\/\//) });
    const byId = await p.request({ method: 'GET', url: `/customers/kyc-link?customerId=${encodeURIComponent(c.customerId)}` });
    expect(byId.statusCode).toBe(200);
    expect(byId.json().kycUrl).not.toBe(res.json().kycUrl);
    const missing = await p.request({ method: 'GET', url: '/customers/kyc-link?platformCustomerId=nobody' });
    expect(missing.statusCode).toBe(404);
    expect(missing.json().code).toBe('USER_NOT_FOUND');
    const none = await p.request({ method: 'GET', url: '/customers/kyc-link' });
    expect(none.statusCode).toBe(400);
    expect(fieldsOf(none)).toEqual(['platformCustomerId']);
    const other = await env.platform();
    expect((await other.request({ method: 'GET', url: '/customers/kyc-link?platformCustomerId=kyc-7' })).statusCode).toBe(404);
  });
});

describe('POST /webhooks/test (webhooks.sendTest) and the signature headers', () => {
  it('delivers a signed TEST event and answers the endpoint\'s status and body; both signature headers carry one value', async () => {
    const receiver = await new Receiver().start();
    try {
      const p = await env.platform();
      expect((await p.request({ method: 'PATCH', url: '/config', payload: { webhookEndpoint: receiver.url } })).statusCode).toBe(200);
      // Setting the endpoint queues a TEST delivery of its own: let it land before scripting answers.
      await eventually(async () => receiver.received.some((r) => r.json?.type === 'TEST'));
      const before = receiver.received.length;
      const res = await p.request({ method: 'POST', url: '/webhooks/test' });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toEqual({ url: receiver.url, response_status: 200, response_body: 'status 200' });
      const got = receiver.received.slice(before).find((r) => r.json?.type === 'TEST')!;
      expect(got.headers['x-grid-signature']).toBeTruthy();
      expect(got.headers['x-grid-signature']).toBe(got.headers['x-svc-signature']);
      receiver.script = [500];
      const failed = await p.request({ method: 'POST', url: '/webhooks/test' });
      expect(failed.statusCode).toBe(400);
      expect(failed.json().code).toBe('WEBHOOK_DELIVERY_ERROR');
    } finally {
      await receiver.stop();
    }
  });

  it('without a webhook endpoint it is 400 WEBHOOK_ENDPOINT_NOT_SET', async () => {
    const p = await env.platform();
    const res = await p.request({ method: 'POST', url: '/webhooks/test' });
    expect(res.statusCode).toBe(400);
    expect(res.json().code).toBe('WEBHOOK_ENDPOINT_NOT_SET');
  });
});

describe('POST /sandbox/send (sandbox.sendFunds)', () => {
  it('pays a real-time funded quote\'s instructions with the exact amount, executing it; other quotes are 400', async () => {
    const p = await env.platform();
    const c = await anApprovedCustomer(env, p, ['USD', 'USDC']);
    const dest = await anActiveExternalAccount(p, usdBankAccount(), c.customerId);
    const q = await p.request({ method: 'POST', url: '/quotes', payload: { source: { sourceType: 'REALTIME_FUNDING', currency: 'USDC', customerId: c.customerId }, destination: { destinationType: 'ACCOUNT', accountId: dest }, lockedCurrencySide: 'SENDING', lockedCurrencyAmount: 5_000_000 } });
    expect(q.statusCode, q.body).toBe(201);
    const wrongCurrency = await p.request({ method: 'POST', url: '/sandbox/send', payload: { quoteId: q.json().id, currencyCode: 'BTC' } });
    expect(wrongCurrency.statusCode).toBe(400);
    expect(wrongCurrency.json().code).toBe('INVALID_CURRENCY');
    const res = await p.request({ method: 'POST', url: '/sandbox/send', payload: { quoteId: q.json().id, currencyCode: 'USDC' } });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ id: q.json().transactionId, type: 'OUTGOING', quoteId: q.json().id });
    expect(['PROCESSING', 'COMPLETED']).toContain(res.json().status);
    await waitStatus(p, q.json().transactionId, 'COMPLETED');
    const missing = await p.request({ method: 'POST', url: '/sandbox/send', payload: { quoteId: 'Quote:0190d2c5-0000-7000-8000-000000000000', currencyCode: 'USDC' } });
    expect(missing.statusCode).toBe(404);
    await fund(p, c.accounts.USD!, 1_000);
    const prefunded = await p.request({ method: 'POST', url: '/quotes', payload: { source: { sourceType: 'ACCOUNT', accountId: c.accounts.USD }, destination: { destinationType: 'ACCOUNT', accountId: dest }, lockedCurrencySide: 'SENDING', lockedCurrencyAmount: 500 } });
    const notRealtime = await p.request({ method: 'POST', url: '/sandbox/send', payload: { quoteId: prefunded.json().id, currencyCode: 'USD' } });
    expect(notRealtime.statusCode).toBe(400);
    expect(fieldsOf(notRealtime)).toEqual(['quoteId']);
    await expectLedgerConsistent(env, p.platformId);
  });
});

describe('POST /sandbox/uma/receive (sandbox.uma.receivePayment)', () => {
  it('credits the customer named by customerId or receiverUmaAddress and answers the INCOMING transaction', async () => {
    const p = await env.platform();
    const c = await anApprovedCustomer(env, p, ['USD']);
    const customer = await env.deps.prisma.customer.findFirstOrThrow({ where: { id: c.customerId } });
    const res = await p.request({ method: 'POST', url: '/sandbox/uma/receive', payload: { senderUmaAddress: '$alice@sandbox.uma', receivingCurrencyCode: 'USD', receivingCurrencyAmount: 1234, customerId: c.customerId } });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ type: 'INCOMING', status: 'COMPLETED', customerId: c.customerId, receivedAmount: { amount: 1234, currency: { code: 'USD' } } });
    const byAddress = await p.request({ method: 'POST', url: '/sandbox/uma/receive', payload: { senderUmaAddress: '$alice@sandbox.uma', receivingCurrencyCode: 'USD', receivingCurrencyAmount: 66, receiverUmaAddress: customer.umaAddress } });
    expect(byAddress.statusCode, byAddress.body).toBe(200);
    expect((await balances(env, c.accounts.USD!)).available).toBe(1300n);
    const neither = await p.request({ method: 'POST', url: '/sandbox/uma/receive', payload: { senderUmaAddress: '$alice@sandbox.uma', receivingCurrencyCode: 'USD', receivingCurrencyAmount: 1 } });
    expect(neither.statusCode).toBe(400);
    expect(fieldsOf(neither)).toEqual(['receiverUmaAddress']);
    const unknown = await p.request({ method: 'POST', url: '/sandbox/uma/receive', payload: { senderUmaAddress: '$alice@sandbox.uma', receivingCurrencyCode: 'USD', receivingCurrencyAmount: 1, receiverUmaAddress: '$nobody@example.com' } });
    expect(unknown.statusCode).toBe(404);
  });
});

describe('GET /receiver/external-account/{accountId} (receiver.lookupExternalAccount)', () => {
  it('answers the account\'s currency with an estimated rate from the sender\'s currency and the platform\'s limits', async () => {
    const p = await env.platform();
    const c = await anApprovedCustomer(env, p, ['USD']);
    const dest = await anActiveExternalAccount(p, usdBankAccount(), c.customerId);
    const res = await p.request({ method: 'GET', url: `/receiver/external-account/${dest}?customerId=${encodeURIComponent(c.customerId)}` });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ accountId: dest, lookupId: expect.stringMatching(/^Lookup:/), supportedCurrencies: [{ currency: { code: 'USD' }, estimatedExchangeRate: 1, min: expect.any(Number), max: expect.any(Number) }] });
    const noSender = await p.request({ method: 'GET', url: `/receiver/external-account/${dest}` });
    expect(noSender.statusCode).toBe(400);
    const missing = await p.request({ method: 'GET', url: `/receiver/external-account/ExternalAccount:0190d2c5-0000-7000-8000-000000000000?customerId=${encodeURIComponent(c.customerId)}` });
    expect(missing.statusCode).toBe(404);
  });
});

describe('POST /transfer-out and /transfer-in (deprecated)', () => {
  it('transfer-out pays an external account in the same currency through the quote path, with a Deprecation header', async () => {
    const p = await env.platform();
    const c = await anApprovedCustomer(env, p, ['USD', 'EUR']);
    await fund(p, c.accounts.USD!, 10_000);
    const dest = await anActiveExternalAccount(p, usdBankAccount(), c.customerId);
    const res = await p.request({ method: 'POST', url: '/transfer-out', payload: { source: { accountId: c.accounts.USD }, destination: { accountId: dest }, amount: 2_500 } });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.headers.deprecation).toBe('@1760313600');
    expect(res.json()).toMatchObject({ type: 'OUTGOING', sentAmount: { amount: 2_500, currency: { code: 'USD' } }, destination: { accountId: dest } });
    expect(res.json().quoteId).toMatch(/^Quote:/);
    await waitStatus(p, res.json().id, 'COMPLETED');
    const crossCurrency = await p.request({ method: 'POST', url: '/transfer-out', payload: { source: { accountId: c.accounts.EUR }, destination: { accountId: dest }, amount: 100 } });
    expect(crossCurrency.statusCode).toBe(400);
    expect(fieldsOf(crossCurrency)).toEqual(['destination.accountId']);
    const tooMuch = await p.request({ method: 'POST', url: '/transfer-out', payload: { source: { accountId: c.accounts.USD }, destination: { accountId: dest }, amount: 1_000_000 } });
    expect(tooMuch.statusCode).toBe(400);
    expect(tooMuch.json().code).toBe('INSUFFICIENT_FUNDS');
    await expectLedgerConsistent(env, p.platformId);
  });

  it('transfer-in pulls from the customer\'s external account into its internal account (sandbox)', async () => {
    const p = await env.platform();
    const c = await anApprovedCustomer(env, p, ['USD']);
    const src = await anActiveExternalAccount(p, usdBankAccount(), c.customerId);
    const res = await p.request({ method: 'POST', url: '/transfer-in', payload: { source: { accountId: src }, destination: { accountId: c.accounts.USD }, amount: 7_700 } });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.headers.deprecation).toBe('@1760313600');
    expect(res.json()).toMatchObject({ type: 'INCOMING', status: 'COMPLETED', customerId: c.customerId, receivedAmount: { amount: 7_700 } });
    expect((await balances(env, c.accounts.USD!)).available).toBe(7_700n);
    const reversed = await p.request({ method: 'POST', url: '/transfer-in', payload: { source: { accountId: c.accounts.USD }, destination: { accountId: src }, amount: 1 } });
    expect(reversed.statusCode).toBe(400);
    const noAmount = await p.request({ method: 'POST', url: '/transfer-in', payload: { source: { accountId: src }, destination: { accountId: c.accounts.USD } } });
    expect(noAmount.statusCode).toBe(400);
    expect(fieldsOf(noAmount)).toEqual(['amount']);
    await expectLedgerConsistent(env, p.platformId);
  });
});

describe('GET /uma-providers (umaProviders.list)', () => {
  it('lists the sandbox directory\'s provider with REF\'s fields and honours the filters', async () => {
    const p = await env.platform();
    const res = await p.request({ method: 'GET', url: '/uma-providers' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ hasMore: false, data: [{ domain: 'sandbox.uma', allowListStatus: true, supportedRegions: expect.arrayContaining(['US']) }] });
    expect(res.json().data[0].supportedCurrencies).toContainEqual(expect.objectContaining({ code: 'USD' }));
    expect((await p.request({ method: 'GET', url: '/uma-providers?currencyCode=JPY' })).json().data).toEqual([]);
    expect((await p.request({ method: 'GET', url: '/uma-providers?countryCode=MX&currencyCode=MXN' })).json().data).toHaveLength(1);
    expect((await p.request({ method: 'GET', url: '/uma-providers?hasBlockedProviders=maybe' })).statusCode).toBe(400);
  });
});

describe('POST /quotes with an EXTERNAL_ACCOUNT_DETAILS destination (REF)', () => {
  const inlineAccount = (accountNumber: string) => ({
    currency: 'USD',
    accountInfo: {
      accountType: 'USD_ACCOUNT',
      accountNumber,
      routingNumber: '021000021',
      countries: ['US'],
      paymentRails: ['ACH'],
      beneficiary: { beneficiaryType: 'INDIVIDUAL', fullName: 'Carol Inline', birthDate: '1990-01-01', nationality: 'US', address: { line1: '1 Main St', city: 'New York', postalCode: '10001', country: 'US' } },
    },
  });

  it('registers the account for the source\'s customer, pays it, and reuses it for the next quote', async () => {
    const p = await env.platform();
    const c = await anApprovedCustomer(env, p, ['USD']);
    await fund(p, c.accounts.USD!, 10_000);
    const body = { source: { sourceType: 'ACCOUNT', accountId: c.accounts.USD }, destination: { destinationType: 'EXTERNAL_ACCOUNT_DETAILS', externalAccountDetails: inlineAccount('555666777') }, lockedCurrencySide: 'SENDING', lockedCurrencyAmount: 1_000, immediatelyExecute: true };
    const res = await p.request({ method: 'POST', url: '/quotes', payload: body });
    expect(res.statusCode, res.body).toBe(201);
    const accountId = res.json().destination.accountId;
    expect(accountId).toMatch(/^ExternalAccount:/);
    const account = (await p.request({ method: 'GET', url: `/customers/external-accounts/${accountId}` })).json();
    expect(account).toMatchObject({ customerId: c.customerId, status: 'ACTIVE' });
    await waitStatus(p, res.json().transactionId, 'COMPLETED');
    const again = await p.request({ method: 'POST', url: '/quotes', payload: { ...body, immediatelyExecute: false } });
    expect(again.statusCode, again.body).toBe(201);
    expect(again.json().destination.accountId).toBe(accountId);
    expect(await env.deps.prisma.externalAccount.count({ where: { platformId: p.platformId } })).toBe(1);
  });

  it('names bad account fields under destination.externalAccountDetails and leaves no account when the quote fails', async () => {
    const p = await env.platform();
    const c = await anApprovedCustomer(env, p, ['USD']);
    const bad = await p.request({ method: 'POST', url: '/quotes', payload: { source: { sourceType: 'ACCOUNT', accountId: c.accounts.USD }, destination: { destinationType: 'EXTERNAL_ACCOUNT_DETAILS', externalAccountDetails: { currency: 'USD', accountInfo: { accountType: 'USD_ACCOUNT', accountNumber: '12' } } }, lockedCurrencySide: 'SENDING', lockedCurrencyAmount: 1_000 } });
    expect(bad.statusCode).toBe(400);
    expect(fieldsOf(bad)).toContain('destination.externalAccountDetails.accountInfo.accountNumber');
    const unfunded = await p.request({ method: 'POST', url: '/quotes', payload: { source: { sourceType: 'ACCOUNT', accountId: c.accounts.USD }, destination: { destinationType: 'EXTERNAL_ACCOUNT_DETAILS', externalAccountDetails: inlineAccount('555666888') }, lockedCurrencySide: 'SENDING', lockedCurrencyAmount: 1_000, immediatelyExecute: true } });
    expect(unfunded.statusCode).toBe(400);
    expect(unfunded.json().code).toBe('INSUFFICIENT_FUNDS');
    expect(await env.deps.prisma.externalAccount.count({ where: { platformId: p.platformId, isDeleted: false } })).toBe(0);
    const noAmount = await p.request({ method: 'POST', url: '/quotes', payload: { source: { sourceType: 'ACCOUNT', accountId: c.accounts.USD }, destination: { destinationType: 'EXTERNAL_ACCOUNT_DETAILS', externalAccountDetails: inlineAccount('555666999') }, lockedCurrencySide: 'SENDING' } });
    expect(fieldsOf(noAmount)).toEqual(['lockedCurrencyAmount']);
    expect(await env.deps.prisma.externalAccount.count({ where: { platformId: p.platformId } })).toBe(1);
  });
});

describe('customers created with REF\'s body (no currencies)', () => {
  it('get an internal account in each of the platform\'s currencies, so they can be funded and pay', async () => {
    const p = await env.platform();
    const res = await p.request({ method: 'POST', url: '/customers', payload: { customerType: 'INDIVIDUAL', platformCustomerId: 'ref-1', fullName: 'Ref Person', birthDate: '1990-01-01' } });
    expect(res.statusCode, res.body).toBe(201);
    const accounts = (await p.request({ method: 'GET', url: `/customers/internal-accounts?customerId=${encodeURIComponent(res.json().id)}` })).json();
    const platformCurrencies = (await p.request({ method: 'GET', url: '/config' })).json().supportedCurrencies.map((c: any) => c.currencyCode);
    expect(accounts.data.length).toBe(platformCurrencies.length);
    expect(res.json().currencies ?? []).toEqual([]);
  });
});

describe('GET /config (config.retrieve) REF fields', () => {
  it('lists per currency what a payout needs about the counterparty', async () => {
    const p = await env.platform();
    const res = await p.request({ method: 'GET', url: '/config' });
    const byCode = Object.fromEntries(res.json().supportedCurrencies.map((c: any) => [c.currencyCode, c]));
    expect(byCode.USD.providerRequiredCounterpartyCustomerFields).toEqual(['FULL_NAME', 'POSTAL_ADDRESS']);
    expect(byCode.MXN.providerRequiredCounterpartyCustomerFields).toEqual(['FULL_NAME']);
  });
});
