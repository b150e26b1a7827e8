import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASE, createTestEnv, type TestEnv, type TestPlatform } from '../helpers/app.js';
import { assertMatchesResponseSchema } from '../helpers/openapi.js';
import { sandboxNotifier } from '../../src/adapters/notifier/sandbox/index.js';
import { loggerOptions } from '../../src/platform/logger.js';
import { anIndividual, createCustomer } from './helpers.js';

let env: TestEnv;
let p: TestPlatform;
beforeAll(async () => {
  env = await createTestEnv({ CONTACT_CODE_MAX_ATTEMPTS: '3', CONTACT_CODE_TTL_SECONDS: '60' });
  p = await env.platform();
});
afterAll(() => env.close());

const anEuIndividual = (o: Record<string, unknown> = {}) =>
  anIndividual({
    nationality: 'DE',
    idType: undefined,
    identifier: undefined,
    currencies: ['EUR'],
    email: 'ada@example.de',
    phoneNumber: '+4915112345678',
    address: { line1: 'Hauptstr. 1', postalCode: '10115', country: 'DE' },
    fullName: 'Ada Unverified003',
    ...o,
  });

const post = (url: string, payload?: object) => p.request({ method: 'POST', url, ...(payload === undefined ? {} : { payload }) });

describe('contact verification (decision A8: EEA customers verify email and phone first)', () => {
  it('EU individual: kyc-link is 409 until both channels are confirmed, then 201', async () => {
    const c = await createCustomer(p, anEuIndividual());
    expect(c.contactVerification).toEqual({ email: 'PENDING', phone: 'PENDING' });
    expect(c.kycStatus).toBe('UNVERIFIED');

    const blocked = await post(`/customers/${c.id}/kyc-link`, {});
    expect(blocked.statusCode).toBe(409);
    assertMatchesResponseSchema('POST', `${BASE}/customers/{customerId}/kyc-link`, 409, blocked.json());

    const sent = await post(`/customers/${c.id}/verify-email`);
    expect(sent.statusCode).toBe(204);
    expect(sent.body).toBe('');
    const confirmed = await post(`/customers/${c.id}/verify-email/confirm`, { code: '123456' });
    expect(confirmed.statusCode).toBe(200);
    assertMatchesResponseSchema('POST', `${BASE}/customers/{customerId}/verify-email/confirm`, 200, confirmed.json());
    expect(confirmed.json().contactVerification).toEqual({ email: 'VERIFIED', phone: 'PENDING' });
    expect((await post(`/customers/${c.id}/kyc-link`, {})).statusCode).toBe(409);

    expect((await post(`/customers/${c.id}/verify-phone`)).statusCode).toBe(204);
    const phone = await post(`/customers/${c.id}/verify-phone/confirm`, { code: '123456' });
    expect(phone.json().contactVerification).toEqual({ email: 'VERIFIED', phone: 'VERIFIED' });

    const link = await post(`/customers/${c.id}/kyc-link`, {});
    expect(link.statusCode).toBe(201);
    assertMatchesResponseSchema('POST', `${BASE}/customers/{customerId}/kyc-link`, 201, link.json());
  });

  it('a wrong code is 400 and counts; after the limit even the right code is refused until a re-send re-issues one', async () => {
    const c = await createCustomer(p, anEuIndividual());
    await post(`/customers/${c.id}/verify-email`);
    const wrong = await post(`/customers/${c.id}/verify-email/confirm`, { code: '000000' });
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json()).toMatchObject({ code: 'INVALID_INPUT', details: { attemptsRemaining: 2, errors: [{ field: 'code' }] } });
    await post(`/customers/${c.id}/verify-email/confirm`, { code: '000001' });
    const last = await post(`/customers/${c.id}/verify-email/confirm`, { code: '000002' });
    expect(last.json().details.attemptsRemaining).toBe(0);
    const locked = await post(`/customers/${c.id}/verify-email/confirm`, { code: '123456' });
    expect(locked.statusCode).toBe(400);
    expect(locked.json().message).toMatch(/request a new code/);
    expect((await post(`/customers/${c.id}/verify-email`)).statusCode).toBe(204);
    expect((await post(`/customers/${c.id}/verify-email/confirm`, { code: '123456' })).statusCode).toBe(200);
    const twice = await post(`/customers/${c.id}/verify-email/confirm`, { code: '123456' });
    expect(twice.statusCode).toBe(409);
  });

  it('an expired code is 400; a code never requested is 400', async () => {
    const c = await createCustomer(p, anEuIndividual());
    expect((await post(`/customers/${c.id}/verify-phone/confirm`, { code: '123456' })).statusCode).toBe(400);
    await post(`/customers/${c.id}/verify-phone`);
    env.clock.advance(61_000);
    try {
      const expired = await post(`/customers/${c.id}/verify-phone/confirm`, { code: '123456' });
      expect(expired.statusCode).toBe(400);
      expect(expired.json().message).toMatch(/expired/);
    } finally {
      env.clock.advance(-61_000);
    }
  });

  it('only the code hash is stored', async () => {
    const c = await createCustomer(p, anEuIndividual());
    await post(`/customers/${c.id}/verify-email`);
    const row = await env.deps.prisma.contactVerificationCode.findFirstOrThrow({ where: { customerId: c.id } });
    expect(row.codeHash).not.toContain('123456');
  });

  it('is 409 for a channel the region does not require, and contactVerification is absent', async () => {
    const c = await createCustomer(p, anIndividual());
    expect(c.contactVerification).toBeUndefined();
    const res = await post(`/customers/${c.id}/verify-email`);
    expect(res.statusCode).toBe(409);
    assertMatchesResponseSchema('POST', `${BASE}/customers/{customerId}/verify-email`, 409, res.json());
    expect((await post(`/customers/${c.id}/verify-phone/confirm`, { code: '123456' })).statusCode).toBe(409);
  });

  it('requires email and phoneNumber for EEA customers, and the platform flag scaRegion forces it for all', async () => {
    const res = await p.request({ method: 'POST', url: '/customers', payload: anEuIndividual({ email: undefined, phoneNumber: undefined }) });
    expect(res.statusCode).toBe(400);
    expect(res.json().details.errors.map((e: any) => e.field).sort()).toEqual(['email', 'phoneNumber']);
    const sca = await env.platform({ scaRegion: true });
    const us = await createCustomer(sca, anIndividual({ email: 'a@example.com', phoneNumber: '+15555550123' }));
    expect(us.contactVerification).toEqual({ email: 'PENDING', phone: 'PENDING' });
  });

  it('a changed email must be verified again; moving out of the EEA drops the channels', async () => {
    const c = await createCustomer(p, anEuIndividual());
    await post(`/customers/${c.id}/verify-email`);
    await post(`/customers/${c.id}/verify-email/confirm`, { code: '123456' });
    const changed = await p.request({ method: 'PATCH', url: `/customers/${c.id}`, payload: { email: 'new@example.de' } });
    expect(changed.json().contactVerification).toEqual({ email: 'PENDING', phone: 'PENDING' });
    const moved = await p.request({ method: 'PATCH', url: `/customers/${c.id}`, payload: { address: { line1: '1 Main St', postalCode: '12345', country: 'US' } } });
    expect(moved.statusCode).toBe(200);
    expect(moved.json().contactVerification).toBeUndefined();
  });

  it('the sandbox notifier writes the code at debug level only, and never the address', async () => {
    const lines: any[] = [];
    const sink = new Writable({ write: (chunk, _e, cb) => (lines.push(JSON.parse(String(chunk))), cb()) });
    const at = async (level: string) => {
      lines.length = 0;
      const notifier = sandboxNotifier(pino(loggerOptions(level, 'test'), sink));
      await notifier.sendContactCode({ customerId: 'Customer:x', channel: 'email', to: 'ada@example.de', code: '123456', expiresAt: new Date() });
      return lines;
    };
    const debug = await at('debug');
    expect(debug).toHaveLength(1);
    expect(debug[0]).toMatchObject({ level: 20, sandboxCode: '123456', channel: 'email' });
    expect(JSON.stringify(debug[0])).not.toContain('ada@example.de');
    expect(await at('info')).toHaveLength(0);
  });
});
