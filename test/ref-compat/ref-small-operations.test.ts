import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASE, createTestEnv, type TestEnv } from '../helpers/app.js';
import { anApprovedCustomer } from '../helpers/builders.js';
import { assertMatchesResponseSchema } from '../helpers/openapi.js';
import { anEuCustomer } from '../sca/helpers.js';

/** Issue 25 part B: REF's GET /vasps, POST /crypto/estimate-withdrawal-fee and POST /sca/record-event. */
let env: TestEnv;
beforeAll(async () => {
  env = await createTestEnv({ SERVICE_FEE_SCHEDULE: '{"railFixed":{"SOLANA:USDC":2500}}', VASP_DIRECTORY: 'Kraken|https://www.kraken.com;Coinbase|https://www.coinbase.com;Bitso;Gemini|https://www.gemini.com;Binance|https://www.binance.com' });
});
afterAll(async () => {
  await env.close();
});

const fieldsOf = (res: { json(): any }) => (res.json().details?.errors ?? []).map((e: { field: string }) => e.field);
const SOLANA_ADDRESS = '7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU';
const EVM_ADDRESS = '0x52908400098527886E0F7030069857D2E4169EE7';

describe('GET /vasps', () => {
  it('lists the configured directory by name, paginated with cursors like every list', async () => {
    const p = await env.platform();
    const first = await p.request({ method: 'GET', url: '/vasps?limit=2' });
    expect(first.statusCode).toBe(200);
    assertMatchesResponseSchema('GET', `${BASE}/vasps`, 200, first.json());
    expect(first.json()).toMatchObject({ data: [{ vaspName: 'Binance', url: 'https://www.binance.com' }, { vaspName: 'Bitso' }], hasMore: true });
    expect(first.json().data[1].url).toBeUndefined();
    const second = (await p.request({ method: 'GET', url: `/vasps?limit=2&cursor=${first.json().nextCursor}` })).json();
    expect(second.data.map((v: any) => v.vaspName)).toEqual(['Coinbase', 'Gemini']);
    const last = (await p.request({ method: 'GET', url: `/vasps?limit=2&cursor=${second.nextCursor}` })).json();
    expect(last).toEqual({ data: [{ vaspName: 'Kraken', url: 'https://www.kraken.com' }], hasMore: false });
    expect((await p.request({ method: 'GET', url: '/vasps' })).json().data).toHaveLength(5);
  });

  it('refuses a bad limit, a forged cursor and unknown parameters with 400 INVALID_INPUT; needs credentials', async () => {
    const p = await env.platform();
    for (const [url, field] of [['/vasps?limit=0', 'limit'], ['/vasps?limit=101', 'limit'], ['/vasps?cursor=nope', 'cursor'], ['/vasps?name=Kraken', 'name']] as const) {
      const res = await p.request({ method: 'GET', url });
      expect(res.statusCode, url).toBe(400);
      expect(res.json().code).toBe('INVALID_INPUT');
      expect(fieldsOf(res), url).toContain(field);
    }
    expect((await env.app.inject({ method: 'GET', url: `${BASE}/vasps` })).statusCode).toBe(401);
  });
});

describe('POST /crypto/estimate-withdrawal-fee', () => {
  const estimate = (p: { request: Function }, body: object) => (p as any).request({ method: 'POST', url: '/crypto/estimate-withdrawal-fee', payload: body });

  it('answers the sandbox rail\'s network fee, the platform\'s application fee and the net amount', async () => {
    const p = await env.platform();
    const c = await anApprovedCustomer(env, p, ['USDC', 'USD']);
    const body = { internalAccountId: c.accounts.USDC, currency: 'USDC', cryptoNetwork: 'SOLANA', amount: 1_000_000, destinationAddress: SOLANA_ADDRESS };
    const before = await estimate(p, body);
    expect(before.statusCode, before.body).toBe(200);
    assertMatchesResponseSchema('POST', `${BASE}/crypto/estimate-withdrawal-fee`, 200, before.json());
    const b = before.json();
    expect(b).toMatchObject({ networkFee: 5_000, networkFeeAsset: 'SOL' });
    expect(b.totalFee).toBe(b.applicationFee + 750);
    expect(b.netAmount).toBe(1_000_000 - b.totalFee);
    // The same estimate twice: the sandbox is deterministic.
    expect((await estimate(p, body)).json()).toEqual(b);

    // The fee schedule's SOLANA:USDC fixed fee is what POST /quotes would charge for this payout (platform fee configs
    // take USD rails only today, so they add nothing to a crypto withdrawal).
    expect(b.applicationFee).toBe(2_500);
    expect(b).toMatchObject({ totalFee: 3_250, netAmount: 996_750 });
    const eth = (await estimate(p, { ...body, amount: 5_000_000, cryptoNetwork: 'ethereum', destinationAddress: EVM_ADDRESS })).json();
    expect(eth).toMatchObject({ networkFeeAsset: 'ETH', networkFee: 420_000_000_000_000 });
    expect(eth.totalFee).toBe(eth.applicationFee + 1_260_000);
    expect(eth.netAmount).toBe(5_000_000 - eth.totalFee);
  });

  it('refuses what no withdrawal could be: wrong currency, network, address, a fiat account, fees above the amount, missing fields', async () => {
    const p = await env.platform();
    const c = await anApprovedCustomer(env, p, ['USDC', 'USD']);
    const ok = { internalAccountId: c.accounts.USDC, currency: 'USDC', cryptoNetwork: 'SOLANA', amount: 1_000_000, destinationAddress: SOLANA_ADDRESS };
    const cases: Array<[object, string]> = [
      [{ ...ok, currency: 'USDT' }, 'currency'],
      [{ ...ok, cryptoNetwork: 'DOGE' }, 'cryptoNetwork'],
      [{ ...ok, cryptoNetwork: 'TRON' }, 'cryptoNetwork'],
      [{ ...ok, destinationAddress: 'not-an-address' }, 'destinationAddress'],
      [{ ...ok, cryptoNetwork: 'BASE', destinationAddress: '0x52908400098527886E0F7030069857D2E4169Ee7' }, 'destinationAddress'],
      [{ ...ok, internalAccountId: c.accounts.USD, currency: 'USD' }, 'internalAccountId'],
      [{ ...ok, amount: 0 }, 'amount'],
      [{ ...ok, amount: 1.5 }, 'amount'],
      [{ ...ok, extra: 1 }, 'extra'],
      [{ currency: 'USDC' }, 'internalAccountId'],
    ];
    for (const [body, field] of cases) {
      const res = await estimate(p, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().code).toBe('INVALID_INPUT');
      expect(fieldsOf(res), JSON.stringify(body)).toContain(field);
    }
    // Below the application fee: the pricing's own refusal; below the application and network fees together: the estimate's.
    const tiny = await estimate(p, { ...ok, amount: 700 });
    expect(tiny.statusCode).toBe(400);
    expect(tiny.json().code).toBe('INVALID_AMOUNT');
    const small = await estimate(p, { ...ok, amount: 3_000 });
    expect(small.statusCode).toBe(400);
    expect(small.json()).toMatchObject({ code: 'AMOUNT_OUT_OF_RANGE', details: { minAmount: 3_251, currency: 'USDC' } });
    const other = await env.platform();
    const missing = await estimate(other, ok);
    expect(missing.statusCode).toBe(404);
    expect(missing.json().code).toBe('NOT_FOUND');
  });
});

describe('POST /sca/record-event', () => {
  const record = (p: any, customerId: string, eventType: unknown) => p.request({ method: 'POST', url: `/sca/record-event?customerId=${customerId}`, payload: { eventType } });

  it('FAILED_LOGIN_ATTEMPT climbs REF\'s ladder (5 → 15 min … 9 → suspended); RESET_PASSWORD_COMPLETED clears it and ends the SCA sessions', async () => {
    const p = await env.platform();
    const c = await anEuCustomer(env, p);
    const states = [];
    for (let i = 0; i < 9; i++) {
      const res = await record(p, c.customerId, 'FAILED_LOGIN_ATTEMPT');
      expect(res.statusCode, res.body).toBe(200);
      assertMatchesResponseSchema('POST', `${BASE}/sca/record-event`, 200, res.json());
      states.push(res.json());
    }
    expect(states.map((s) => s.failedAttempts)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(states.slice(0, 4).every((s) => s.lockedUntil === null && !s.suspended)).toBe(true);
    const minutes = states.slice(4, 8).map((s) => Math.round((Date.parse(s.lockedUntil) - env.clock.now().getTime()) / 60_000));
    expect(minutes).toEqual([15, 30, 60, 1440]);
    expect(states[8]).toEqual({ eventType: 'FAILED_LOGIN_ATTEMPT', suspended: true, lockedUntil: null, failedAttempts: 9 });
    // The lockout is the one SCA logins obey.
    const login = await p.request({ method: 'POST', url: `/sca/login/start?customerId=${c.customerId}`, payload: { factor: 'SMS_OTP' } });
    expect(login.statusCode).toBe(423);
    expect(login.json().code).toBe('ACCOUNT_LOCKED');

    await env.deps.prisma.scaSession.create({
      data: { id: `ScaSession:${crypto.randomUUID()}`, platformId: p.platformId, customerId: c.customerId, factor: 'SMS_OTP', endUserIpAddress: '203.0.113.7', expiresAt: new Date(env.clock.now().getTime() + 600_000) },
    });
    expect(await env.deps.prisma.scaSession.count({ where: { customerId: c.customerId, revokedAt: null } })).toBe(1);
    const reset = await record(p, c.customerId, 'RESET_PASSWORD_COMPLETED');
    expect(reset.statusCode).toBe(200);
    expect(reset.json()).toEqual({ eventType: 'RESET_PASSWORD_COMPLETED', suspended: false, lockedUntil: null, failedAttempts: 0 });
    expect(await env.deps.prisma.scaSession.count({ where: { customerId: c.customerId, revokedAt: null } })).toBe(0);
    expect((await record(p, c.customerId, 'FAILED_LOGIN_ATTEMPT')).json().failedAttempts).toBe(1);
  });

  it('answers 409 outside the SCA regions, 404 for an unknown customer, 400 for a bad event type or a missing customerId', async () => {
    const p = await env.platform();
    const us = await anApprovedCustomer(env, p);
    const outside = await record(p, us.customerId, 'FAILED_LOGIN_ATTEMPT');
    expect(outside.statusCode).toBe(409);
    expect(outside.json().code).toBe('CONFLICT');
    expect((await record(p, 'Customer:00000000-0000-7000-8000-000000000000', 'FAILED_LOGIN_ATTEMPT')).statusCode).toBe(404);
    const eu = await anEuCustomer(env, p);
    const bad = await record(p, eu.customerId, 'SIGNED_IN');
    expect(bad.statusCode).toBe(400);
    expect(fieldsOf(bad)).toEqual(['eventType']);
    const noCustomer = await p.request({ method: 'POST', url: '/sca/record-event', payload: { eventType: 'FAILED_LOGIN_ATTEMPT' } });
    expect(noCustomer.statusCode).toBe(400);
    expect(fieldsOf(noCustomer)).toContain('customerId');
    // Nothing was counted by the refused calls.
    expect((await record(p, eu.customerId, 'FAILED_LOGIN_ATTEMPT')).json().failedAttempts).toBe(1);
  });
});
