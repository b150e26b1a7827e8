import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decode } from 'light-bolt11-decoder';
import { createTestEnv, eventually, type TestEnv, type TestPlatform } from '../helpers/app.js';
import { anApprovedCustomer, balances, expectLedgerConsistent, fund } from '../helpers/builders.js';
import { senderKeys, UmaCounterparty } from '../helpers/uma-vasp.js';
import type { RunningWorkers } from '../../src/workers.js';

let env: TestEnv;
let workers: RunningWorkers;
let vasp: UmaCounterparty;

beforeAll(async () => {
  const keys = senderKeys();
  vasp = await new UmaCounterparty(keys.signing).start();
  env = await createTestEnv({
    UMA_PROVIDER: 'uma-protocol',
    UMA_SIGNING_PRIVATE_KEY: keys.signing,
    UMA_ENCRYPTION_PRIVATE_KEY: keys.encryption,
    UMA_VASP_DOMAIN: 'sender.test',
    UMA_DOMAIN_OVERRIDES: vasp.overrides(),
    UMA_REQUEST_TIMEOUT_MS: '3000',
    SANDBOX_RAIL_DELAY_SCALE: '0.01',
    PAYMENT_POLL_MIN_MS: '20',
  });
  workers = env.startWorkers();
});
afterAll(async () => {
  await workers.close();
  await env.close();
  await vasp.stop();
});

async function setup(): Promise<{ p: TestPlatform; customerId: string; usd: string }> {
  const p = await env.platform();
  const c = await anApprovedCustomer(env, p, ['USD']);
  return { p, customerId: c.customerId, usd: c.accounts.USD! };
}

describe('the UMA protocol client against a counterparty VASP on loopback', () => {
  it('looks the receiver up (signed LNURL-p, certificate chain, signature checked) and pays it (signed pay request, invoice)', async () => {
    const s = await setup();
    const l = await s.p.request({ method: 'GET', url: `/receiver/uma/${encodeURIComponent('$alice@vasp.test')}?customerId=${s.customerId}` });
    expect(l.statusCode, l.body).toBe(200);
    expect(l.json()).toMatchObject({
      receiverUmaAddress: '$alice@vasp.test',
      supportedCurrencies: [{ currency: { code: 'USD' }, min: 1, max: 5_000_000 }, { currency: { code: 'EUR' } }],
      requiredPayerDataFields: expect.arrayContaining([{ name: 'FULL_NAME', mandatory: true }, { name: 'EMAIL', mandatory: false }]),
    });
    await fund(s.p, s.usd, 100_000);
    const base = { source: { sourceType: 'ACCOUNT', accountId: s.usd }, destination: { destinationType: 'UMA_ADDRESS', umaAddress: '$alice@vasp.test', currency: 'USD' }, lockedCurrencySide: 'RECEIVING', lockedCurrencyAmount: 2_000, lookupId: l.json().lookupId };
    const missing = await s.p.request({ method: 'POST', url: '/quotes', payload: base });
    expect([missing.statusCode, missing.json().code]).toEqual([400, 'MISSING_MANDATORY_USER_INFO']);
    const res = await s.p.request({ method: 'POST', url: '/quotes', payload: { ...base, senderCustomerInfo: { FULL_NAME: 'Ada Lovelace' } } });
    expect(res.statusCode, `${res.body} ${vasp.errors.join('\n')}`).toBe(201);
    const q = res.json();
    expect(q.totalReceivingAmount).toBe(2_000);
    expect(vasp.payRequests.at(-1)).toMatchObject({ user: 'alice', amount: 2_000, currency: 'USD', payerData: { name: 'Ada Lovelace', identifier: expect.stringMatching(/^\$/) } });
    const stored = await env.deps.prisma.quote.findFirstOrThrow({ where: { id: q.id } });
    const invoice = (stored.umaPayment as any).invoice as string;
    const amount = decode(invoice).sections.find((x: any) => x.name === 'amount') as any;
    expect(amount.value).toBe(String(2_000 * 10_000));
    expect((await s.p.request({ method: 'POST', url: `/quotes/${q.id}/execute` })).statusCode).toBe(200);
    const t = await eventually(async () => {
      const x = (await s.p.request({ method: 'GET', url: `/transactions/${q.transactionId}` })).json();
      return x.status === 'COMPLETED' ? x : undefined;
    });
    expect(t.counterpartyInformation).toMatchObject({ name: 'Alice Counterparty' });
    expect(await balances(env, s.usd)).toEqual({ available: BigInt(100_000 - q.totalSendingAmount), held: 0n });
    await expectLedgerConsistent(env, s.p.platformId);
  });

  it('maps what the counterparty answers to the spec codes', async () => {
    const s = await setup();
    const cases: Array<[string, number, string]> = [
      ['$refuser@vasp.test', 400, 'SENDER_NOT_ACCEPTED'],
      ['$broken@vasp.test', 400, 'LOOKUP_REQUEST_FAILED'],
      ['$garbled@vasp.test', 400, 'PARSE_LNURLP_RESPONSE_ERROR'],
      ['$nouma@vasp.test', 400, 'INVALID_RECEIVER'],
      ['$nobody@vasp.test', 404, 'UMA_NOT_FOUND'],
      ['$alice@badcert.test', 400, 'CERT_CHAIN_INVALID'],
      ['$alice@down.test', 424, 'LNURLP_REQUEST_FAILED'],
    ];
    for (const [address, status, code] of cases) {
      const res = await s.p.request({ method: 'GET', url: `/receiver/uma/${encodeURIComponent(address)}?customerId=${s.customerId}` });
      expect([address, res.statusCode, res.json().code]).toEqual([address, status, code]);
    }
  });
});
