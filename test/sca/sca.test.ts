import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASE, createTestEnv, eventually, type TestEnv, type TestPlatform } from '../helpers/app.js';
import { anApprovedCustomer, balances, expectHeldOnce, fund, STARTED_STATUSES } from '../helpers/builders.js';
import { assertMatchesResponseSchema } from '../helpers/openapi.js';
import type { RunningWorkers } from '../../src/workers.js';
import { anEuCustomer, enrollTotp, loginWithSms, loginWithTotp, nextTotpStep, totpNow } from './helpers.js';

let env: TestEnv;
let p: TestPlatform;
let workers: RunningWorkers;

beforeAll(async () => {
  env = await createTestEnv({ SCA_SWEEP_INTERVAL_MS: '50', QUOTE_EXPIRY_SWEEP_INTERVAL_MS: '50', SANDBOX_RAIL_DELAY_SCALE: '0' });
  p = await env.platform();
  workers = env.startWorkers();
});
afterAll(() => env.close());

/** An EU payer with 1 000.00 USD and a US payee's USD account to send to. */
async function aPayer() {
  const payer = await anEuCustomer(env, p);
  await fund(p, payer.accounts.USD!, 100_000);
  const payee = await anApprovedCustomer(env, p, ['USD']);
  return { ...payer, usd: payer.accounts.USD!, payeeUsd: payee.accounts.USD! };
}

const quoteBody = (from: string, to: string, amount = 10_000, extra: object = {}) => ({
  source: { sourceType: 'ACCOUNT', accountId: from },
  destination: { destinationType: 'ACCOUNT', accountId: to },
  lockedCurrencySide: 'SENDING',
  lockedCurrencyAmount: amount,
  ...extra,
});

describe('customers outside SCA regions', () => {
  it('get 409 on every SCA endpoint and never meet SCA when paying', async () => {
    const us = await anApprovedCustomer(env, p, ['USD']);
    const id = us.customerId;
    const calls = [
      { method: 'GET', url: `/sca/factors?customerId=${id}` },
      { method: 'POST', url: `/sca/factors?customerId=${id}`, payload: { type: 'TOTP' } },
      { method: 'POST', url: `/sca/login/start?customerId=${id}`, payload: { factor: 'SMS_OTP' } },
      { method: 'POST', url: `/sca/login/complete?customerId=${id}`, payload: { factor: 'SMS_OTP', endUserIpAddress: '203.0.113.7', code: '123456' } },
      { method: 'POST', url: `/sca/factors/reset?customerId=${id}`, payload: { factor: 'TOTP', endUserIpAddress: '203.0.113.7' } },
    ] as const;
    for (const c of calls) {
      const res = await p.request(c as any);
      expect(res.statusCode, `${c.method} ${c.url}`).toBe(409);
    }
    await fund(p, us.accounts.USD!, 50_000);
    const payee = await anApprovedCustomer(env, p, ['USD']);
    const q = await p.request({ method: 'POST', url: '/quotes', payload: quoteBody(us.accounts.USD!, payee.accounts.USD!) });
    expect(q.statusCode, q.body).toBe(201);
    expect(q.json().status).toBe('PENDING');
    expect(q.json().scaChallenge).toBeUndefined();
  });

  it('a platform created with --sca-region puts every customer under SCA', async () => {
    const q = await env.platform({ scaRegion: true });
    const us = await anApprovedCustomer(env, q, ['USD']);
    const res = await q.request({ method: 'GET', url: `/sca/factors?customerId=${us.customerId}` });
    expect(res.statusCode).toBe(200);
  });

  it('the address country counts when region is absent', async () => {
    const fr = await anEuCustomer(env, p, { region: null, country: 'FR' });
    expect((await p.request({ method: 'GET', url: `/sca/factors?customerId=${fr.customerId}` })).statusCode).toBe(200);
  });
});

describe('TOTP enrollment (RFC 6238, codes computed in the test)', () => {
  it('enrolls with a current code, returns recovery codes once, and lists the factor', async () => {
    const c = await anEuCustomer(env, p);
    const start = await p.request({ method: 'POST', url: `/sca/factors?customerId=${c.customerId}`, payload: { type: 'TOTP' } });
    expect(start.statusCode).toBe(200);
    assertMatchesResponseSchema('POST', `${BASE}/sca/factors`, 200, start.json());
    const { secret, totpUri } = start.json();
    expect(secret).toMatch(/^[A-Z2-7]+=*$/);
    expect(totpUri).toMatch(/^otpauth:\/\/totp\/.*secret=/);
    const wrong = await p.request({ method: 'POST', url: `/sca/factors/confirm?customerId=${c.customerId}`, payload: { type: 'TOTP', secret, code: '000000' === totpNow(env, secret) ? '111111' : '000000' } });
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json().details.errors[0].field).toBe('code');
    const ok = await p.request({ method: 'POST', url: `/sca/factors/confirm?customerId=${c.customerId}`, payload: { type: 'TOTP', secret, code: totpNow(env, secret) } });
    expect(ok.statusCode, ok.body).toBe(200);
    assertMatchesResponseSchema('POST', `${BASE}/sca/factors/confirm`, 200, ok.json());
    expect(ok.json().recoveryCodes).toHaveLength(10);
    nextTotpStep(env);

    const list = await p.request({ method: 'GET', url: `/sca/factors?customerId=${c.customerId}` });
    assertMatchesResponseSchema('GET', `${BASE}/sca/factors`, 200, list.json());
    expect(list.json().factors.map((f: any) => f.factor)).toEqual(['SMS_OTP', 'TOTP']);
    const again = await p.request({ method: 'POST', url: `/sca/factors?customerId=${c.customerId}`, payload: { type: 'TOTP' } });
    expect(again.statusCode).toBe(409);

    const credentialId = list.json().factors[1].credentialId;
    expect((await p.request({ method: 'DELETE', url: `/sca/factors/${credentialId}?customerId=${c.customerId}` })).statusCode).toBe(204);
    expect((await p.request({ method: 'GET', url: `/sca/factors?customerId=${c.customerId}` })).json().factors).toEqual([{ factor: 'SMS_OTP' }]);
  });

  it('passkeys answer 501 NOT_IMPLEMENTED', async () => {
    const c = await anEuCustomer(env, p);
    const res = await p.request({ method: 'POST', url: `/sca/factors?customerId=${c.customerId}`, payload: { type: 'PASSKEY' } });
    expect(res.statusCode).toBe(501);
  });
});

describe('money movement of an SCA customer', () => {
  it('is blocked without a session (409 SCA_SESSION_REQUIRED) and passes with one: PENDING_AUTHORIZATION, then authorize with a TOTP code', async () => {
    const c = await aPayer();
    const blocked = await p.request({ method: 'POST', url: '/quotes', payload: quoteBody(c.usd, c.payeeUsd) });
    expect(blocked.statusCode).toBe(409);
    expect(blocked.json().code).toBe('SCA_SESSION_REQUIRED');
    expect(await env.deps.prisma.quote.count({ where: { customerId: c.customerId } })).toBe(0);

    const secret = await enrollTotp(env, p, c.customerId);
    const wrongLogin = await p.request({ method: 'POST', url: `/sca/login/complete?customerId=${c.customerId}`, payload: { factor: 'TOTP', endUserIpAddress: '203.0.113.7', code: '12345x' } });
    expect(wrongLogin.statusCode).toBe(400);
    const login = await loginWithTotp(env, p, c.customerId, secret);
    expect(login.statusCode, login.body).toBe(200);
    assertMatchesResponseSchema('POST', `${BASE}/sca/login/complete`, 200, login.json());
    expect(login.json().status).toBe('SUCCESS');
    const days = (new Date(login.json().sessionExpiresAt).getTime() - env.clock.now().getTime()) / 86_400_000;
    expect(days).toBeGreaterThan(179.9);
    expect(days).toBeLessThanOrEqual(180);

    const created = await p.request({ method: 'POST', url: '/quotes', payload: quoteBody(c.usd, c.payeeUsd) });
    expect(created.statusCode, created.body).toBe(201);
    assertMatchesResponseSchema('POST', `${BASE}/quotes`, 201, created.json());
    const quote = created.json();
    expect(quote.status).toBe('PENDING_AUTHORIZATION');
    expect(quote.scaChallenge).toMatchObject({ factor: 'SMS_OTP', availableFactors: ['SMS_OTP', 'TOTP'], purpose: 'TRANSFER' });
    expect(quote.scaChallenge.id).toMatch(/^ScaChallenge:/);
    expect(await balances(env, c.usd)).toEqual({ available: 100_000n, held: 0n });
    const read = await p.request({ method: 'GET', url: `/quotes/${quote.id}` });
    expect(read.json().scaChallenge.id).toBe(quote.scaChallenge.id);

    const execute = await p.request({ method: 'POST', url: `/quotes/${quote.id}/execute` });
    expect(execute.statusCode).toBe(409);
    expect(execute.json().code).toBe('QUOTE_NOT_PENDING');
    const wrong = await p.request({ method: 'POST', url: `/quotes/${quote.id}/authorize`, payload: { code: '000001' } });
    expect(wrong.statusCode).toBe(400);

    const authorized = await p.request({ method: 'POST', url: `/quotes/${quote.id}/authorize`, payload: { code: totpNow(env, secret) } });
    expect(authorized.statusCode, authorized.body).toBe(200);
    assertMatchesResponseSchema('POST', `${BASE}/quotes/{quoteId}/authorize`, 200, authorized.json());
    // Read back after the settlement job was queued (the sandbox rail here settles at once): the
    // ledger's hold journal, not the held balance of the moment, shows that authorizing held the money.
    expect(STARTED_STATUSES).toContain(authorized.json().status);
    expect(authorized.json().scaChallenge).toBeUndefined();
    await expectHeldOnce(env, p.platformId, quote.transactionId, c.usd, BigInt(quote.totalSendingAmount));
    await eventually(async () => (await p.request({ method: 'GET', url: `/transactions/${quote.transactionId}` })).json().status === 'COMPLETED');
    expect(await balances(env, c.usd)).toEqual({ available: 90_000n, held: 0n });
    expect((await balances(env, c.payeeUsd)).available).toBeGreaterThan(0n);

    const again = await p.request({ method: 'POST', url: `/quotes/${quote.id}/authorize`, payload: { code: '123456' } });
    expect(again.statusCode).toBe(409);
  });

  it('an SMS login and the SMS code authorize too; immediatelyExecute waits for authorization; resend is 204', async () => {
    const c = await aPayer();
    const login = await loginWithSms(p, c.customerId);
    expect(login.statusCode, login.body).toBe(200);
    const created = await p.request({ method: 'POST', url: '/quotes', payload: quoteBody(c.usd, c.payeeUsd, 5_000, { immediatelyExecute: true }) });
    expect(created.json()).toMatchObject({ status: 'PENDING_AUTHORIZATION', scaChallenge: { availableFactors: ['SMS_OTP'] } });
    expect((await balances(env, c.usd)).held).toBe(0n);
    const resend = await p.request({ method: 'POST', url: `/quotes/${created.json().id}/authorize/resend` });
    expect(resend.statusCode).toBe(204);
    const ok = await p.request({ method: 'POST', url: `/quotes/${created.json().id}/authorize`, payload: { code: '123456', endUserIpAddress: '203.0.113.7' } });
    expect(ok.statusCode, ok.body).toBe(200);
    expect(STARTED_STATUSES).toContain(ok.json().status);
  });

  it('an expired session blocks creation, execution and authorization (409 SCA_SESSION_REQUIRED)', async () => {
    const c = await aPayer();
    expect((await loginWithSms(p, c.customerId)).statusCode).toBe(200);
    const created = await p.request({ method: 'POST', url: '/quotes', payload: quoteBody(c.usd, c.payeeUsd) });
    expect(created.statusCode).toBe(201);
    // Sessions are read on the test clock; a session row is aged instead of moving the shared clock by months.
    await env.deps.prisma.scaSession.updateMany({ where: { customerId: c.customerId }, data: { expiresAt: new Date(env.clock.now().getTime() - 1000) } });
    for (const [url, payload] of [['/quotes', quoteBody(c.usd, c.payeeUsd)], [`/quotes/${created.json().id}/execute`, undefined], [`/quotes/${created.json().id}/authorize`, { code: '123456' }]] as const) {
      const res = await p.request({ method: 'POST', url, ...(payload ? { payload } : {}) });
      expect(res.statusCode, url).toBe(409);
      expect(res.json().code, url).toBe('SCA_SESSION_REQUIRED');
    }
  });

  it('an unauthorized payment fails with SCA_NOT_COMPLETED when its challenge expires', async () => {
    const c = await aPayer();
    expect((await loginWithSms(p, c.customerId)).statusCode).toBe(200);
    const quote = (await p.request({ method: 'POST', url: '/quotes', payload: quoteBody(c.usd, c.payeeUsd) })).json();
    env.clock.advance(5 * 60_000 + 1_000);
    const t = await eventually(async () => {
      const r = (await p.request({ method: 'GET', url: `/transactions/${quote.transactionId}` })).json();
      return r.status === 'FAILED' ? r : undefined;
    });
    expect(t.failureReason).toBe('SCA_NOT_COMPLETED');
    expect((await p.request({ method: 'GET', url: `/quotes/${quote.id}` })).json().status).toBe('FAILED');
    expect(await balances(env, c.usd)).toEqual({ available: 100_000n, held: 0n });
    const late = await p.request({ method: 'POST', url: `/quotes/${quote.id}/authorize`, payload: { code: '123456' } });
    expect(late.statusCode).toBe(409);
  });
});

describe('lockout', () => {
  it('the 5th failed proof locks for 15 minutes (423 ACCOUNT_LOCKED); a success after the lock clears the count', async () => {
    const c = await anEuCustomer(env, p);
    const attempt = (code: string) => p.request({ method: 'POST', url: `/sca/login/complete?customerId=${c.customerId}`, payload: { factor: 'SMS_OTP', endUserIpAddress: '203.0.113.7', code } });
    await p.request({ method: 'POST', url: `/sca/login/start?customerId=${c.customerId}`, payload: { factor: 'SMS_OTP' } });
    for (let i = 1; i <= 4; i++) expect((await attempt('999999')).statusCode, `attempt ${i}`).toBe(400);
    const fifth = await attempt('999999');
    expect(fifth.statusCode).toBe(423);
    expect(fifth.json()).toMatchObject({ code: 'ACCOUNT_LOCKED', details: { failedAttempts: 5, suspended: false } });
    const minutes = (new Date(fifth.json().details.lockedUntil).getTime() - env.clock.now().getTime()) / 60_000;
    expect(minutes).toBeGreaterThan(14.9);
    expect(minutes).toBeLessThanOrEqual(15);
    expect((await attempt('123456')).statusCode).toBe(423);
    env.clock.advance(15 * 60_000 + 1_000);
    await p.request({ method: 'POST', url: `/sca/login/start?customerId=${c.customerId}`, payload: { factor: 'SMS_OTP' } });
    expect((await attempt('123456')).statusCode).toBe(200);
    const row = await env.deps.prisma.scaLockout.findFirst({ where: { customerId: c.customerId } });
    expect(row?.failedAttempts).toBe(0);
  });
});
