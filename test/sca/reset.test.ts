import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASE, createTestEnv, eventually, type TestEnv, type TestPlatform } from '../helpers/app.js';
import { anApprovedCustomer } from '../helpers/builders.js';
import { assertMatchesResponseSchema } from '../helpers/openapi.js';
import type { RunningWorkers } from '../../src/workers.js';
import { anEuCustomer, enrollTotp, loginWithTotp, totpNow, nextTotpStep } from './helpers.js';
import { resourceKey } from '../../src/platform/ids.js';

let env: TestEnv;
let p: TestPlatform;
let workers: RunningWorkers;

beforeAll(async () => {
  env = await createTestEnv({ SCA_SWEEP_INTERVAL_MS: '50', SCA_RESET_REVIEW_DELAY_MS: '50' });
  p = await env.platform();
  workers = env.startWorkers();
});
afterAll(() => env.close());

const IP = '198.51.100.23';
const start = (customerId: string, factor = 'TOTP') => p.request({ method: 'POST', url: `/sca/factors/reset?customerId=${customerId}`, payload: { factor, endUserIpAddress: IP } });
const read = (customerId: string, resetId: string) => p.request({ method: 'GET', url: `/sca/factors/reset/${resetId}?customerId=${customerId}` });
const complete = (customerId: string, resetId: string, body: object = { endUserIpAddress: IP }) => p.request({ method: 'POST', url: `/sca/factors/reset/${resetId}/complete?customerId=${customerId}`, payload: body });
/** The verification link's path on this server (the sandbox liveness page). */
const pagePath = (link: string) => new URL(link).pathname;

async function passLiveness(link: string, outcome: 'PASSED' | 'FAILED') {
  const page = await env.app.inject({ method: 'GET', url: pagePath(link) });
  expect(page.statusCode).toBe(200);
  expect(page.headers['content-type']).toContain('text/html');
  const chosen = await env.app.inject({ method: 'POST', url: pagePath(link), payload: { outcome } });
  expect(chosen.statusCode, chosen.body).toBe(202);
}

describe('SCA factor reset', () => {
  it('runs INITIATED → PENDING_REVIEW → LIVENESS_PASSED → COMPLETED through the sandbox liveness page, and clears the TOTP factor', async () => {
    const c = await anEuCustomer(env, p);
    const secret = await enrollTotp(env, p, c.customerId);
    expect((await loginWithTotp(env, p, c.customerId, secret)).statusCode).toBe(200);

    const started = await start(c.customerId);
    expect(started.statusCode, started.body).toBe(201);
    assertMatchesResponseSchema('POST', `${BASE}/sca/factors/reset`, 201, started.json());
    const { resetId, livenessAccessToken, verificationLink, expiresAt } = started.json();
    expect(livenessAccessToken).toEqual(expect.any(String));
    expect(verificationLink).toContain('/sandbox/liveness/');
    expect(new Date(expiresAt).getTime()).toBeGreaterThan(env.clock.now().getTime());

    const initiated = await read(c.customerId, resetId);
    assertMatchesResponseSchema('GET', `${BASE}/sca/factors/reset/{resetId}`, 200, initiated.json());
    expect(initiated.json()).toMatchObject({ status: 'INITIATED', factor: 'TOTP', enrollmentStatus: 'PENDING', completedAt: null });
    const early = await complete(c.customerId, resetId);
    expect(early.statusCode).toBe(400);
    expect(early.json().details.status).toBe('INITIATED');

    await passLiveness(verificationLink, 'PASSED');
    expect((await read(c.customerId, resetId)).json().status).toMatch(/^(PENDING_REVIEW|LIVENESS_PASSED)$/);
    await eventually(async () => (await read(c.customerId, resetId)).json().status === 'LIVENESS_PASSED');
    // The link is single use.
    expect((await env.app.inject({ method: 'GET', url: pagePath(verificationLink) })).statusCode).toBe(404);

    const done = await complete(c.customerId, resetId);
    expect(done.statusCode, done.body).toBe(204);
    const completed = (await read(c.customerId, resetId)).json();
    expect(completed).toMatchObject({ status: 'COMPLETED', enrollmentStatus: 'PENDING' });
    expect(completed.completedAt).toEqual(expect.any(String));
    // The factor is cleared, and sessions end with it.
    expect((await p.request({ method: 'GET', url: `/sca/factors?customerId=${c.customerId}` })).json().factors).toEqual([{ factor: 'SMS_OTP' }]);
    const oldCode = await p.request({ method: 'POST', url: `/sca/login/complete?customerId=${c.customerId}`, payload: { factor: 'TOTP', endUserIpAddress: IP, code: totpNow(env, secret) } });
    expect(oldCode.statusCode).toBe(400);
    expect(await env.deps.prisma.scaSession.count({ where: { customerId: c.customerId, revokedAt: null } })).toBe(0);
    // COMPLETED is terminal.
    expect((await complete(c.customerId, resetId)).statusCode).toBe(400);

    nextTotpStep(env);
    await enrollTotp(env, p, c.customerId);
    expect((await read(c.customerId, resetId)).json().enrollmentStatus).toBe('COMPLETED');
    const history = await env.deps.prisma.statusChange.findMany({ where: { machine: 'sca-factor-reset', resourceId: resourceKey(resetId) }, orderBy: { id: 'asc' } });
    expect(history.map((h) => `${h.fromStatus}>${h.toStatus}`)).toEqual(['INITIATED>PENDING_REVIEW', 'PENDING_REVIEW>LIVENESS_PASSED', 'LIVENESS_PASSED>COMPLETED']);
  });

  it('a failed liveness ends REJECTED (terminal); complete answers 400', async () => {
    const c = await anEuCustomer(env, p);
    const r = (await start(c.customerId)).json();
    await passLiveness(r.verificationLink, 'FAILED');
    await eventually(async () => (await read(c.customerId, r.resetId)).json().status === 'REJECTED');
    const res = await complete(c.customerId, r.resetId);
    expect(res.statusCode).toBe(400);
    expect(res.json().details.status).toBe('REJECTED');
    expect((await env.app.inject({ method: 'POST', url: pagePath(r.verificationLink), payload: { outcome: 'PASSED' } })).statusCode).toBe(404);
  });

  it('an SMS_OTP reset needs mobile, then sets the customer\'s phone number; enrollmentStatus is null', async () => {
    const c = await anEuCustomer(env, p);
    const r = (await start(c.customerId, 'SMS_OTP')).json();
    await passLiveness(r.verificationLink, 'PASSED');
    await eventually(async () => (await read(c.customerId, r.resetId)).json().status === 'LIVENESS_PASSED');
    const missing = await complete(c.customerId, r.resetId);
    expect(missing.statusCode).toBe(400);
    expect(missing.json().details.errors[0].field).toBe('mobile');
    expect((await complete(c.customerId, r.resetId, { endUserIpAddress: IP, mobile: { countryCode: '+49', number: '15199998888' } })).statusCode).toBe(204);
    expect((await read(c.customerId, r.resetId)).json()).toMatchObject({ status: 'COMPLETED', enrollmentStatus: null });
    expect((await env.deps.prisma.customer.findFirstOrThrow({ where: { id: c.customerId } })).phoneNumber).toBe('+4915199998888');
  });

  it('EXPIRED when the window closes (sweep); the page then refuses the link', async () => {
    const c = await anEuCustomer(env, p);
    const r = (await start(c.customerId)).json();
    env.clock.advance(30 * 60_000 + 1_000);
    await eventually(async () => (await read(c.customerId, r.resetId)).json().status === 'EXPIRED');
    expect((await env.app.inject({ method: 'GET', url: pagePath(r.verificationLink) })).statusCode).toBe(404);
    expect((await complete(c.customerId, r.resetId)).statusCode).toBe(400);
  });

  it('the sixth initiation in 24 hours is 429 RATE_LIMITED with Retry-After, counted in the database', async () => {
    const c = await anEuCustomer(env, p);
    for (let i = 1; i <= 5; i++) expect((await start(c.customerId)).statusCode, `start ${i}`).toBe(201);
    const sixth = await start(c.customerId);
    expect(sixth.statusCode).toBe(429);
    expect(sixth.json().code).toBe('RATE_LIMITED');
    const retryAfter = Number(sixth.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(86_000);
    expect(retryAfter).toBeLessThanOrEqual(86_400);
    expect(await env.deps.prisma.scaFactorReset.count({ where: { customerId: c.customerId } })).toBe(5);
    // Another customer is not affected.
    const other = await anEuCustomer(env, p);
    expect((await start(other.customerId)).statusCode).toBe(201);
    // A day later the window has moved on.
    env.clock.advance(24 * 3_600_000 + 1_000);
    expect((await start(c.customerId)).statusCode).toBe(201);
  });

  it('concurrent initiations never exceed the limit', async () => {
    const c = await anEuCustomer(env, p);
    const results = await Promise.all(Array.from({ length: 8 }, () => start(c.customerId)));
    expect(results.filter((r) => r.statusCode === 201)).toHaveLength(5);
    expect(results.filter((r) => r.statusCode === 429)).toHaveLength(3);
  });

  it('is 409 for customers outside SCA regions and 404 for unknown resets', async () => {
    const us = await anApprovedCustomer(env, p, ['USD']);
    expect((await start(us.customerId)).statusCode).toBe(409);
    const c = await anEuCustomer(env, p);
    expect((await read(c.customerId, 'ScaFactorReset:019a0c6e-4d1c-7b3e-9f5a-2b8c1d4e6f70')).statusCode).toBe(404);
    const other = await anEuCustomer(env, p);
    const r = (await start(other.customerId)).json();
    expect((await read(c.customerId, r.resetId)).statusCode).toBe(404);
  });
});
