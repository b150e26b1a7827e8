import { randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import { Secret, TOTP } from 'otpauth';
import type { TestEnv, TestPlatform } from '../helpers/app.js';
import { anApprovedCustomer } from '../helpers/builders.js';

/**
 * An APPROVED individual in Germany (an SCA region, decision A8) with verified contacts and internal
 * accounts, written directly (the customers API has its own tests).
 */
export async function anEuCustomer(env: TestEnv, p: TestPlatform, opts: { region?: string | null; country?: string; currencies?: string[] } = {}): Promise<{ customerId: string; accounts: Record<string, string> }> {
  return anApprovedCustomer(env, p, opts.currencies ?? ['USD'], 'APPROVED', {
    region: opts.region === undefined ? 'DE' : opts.region,
    address: { line1: 'Hauptstr. 1', city: 'Berlin', postalCode: '10115', country: opts.country ?? 'DE' },
    email: 'emmy@example.com',
    phoneNumber: '+4915112345678',
    emailVerification: 'VERIFIED',
    phoneVerification: 'VERIFIED',
    fullName: 'Emmy Noether',
    umaAddress: `$emmy${randomBytes(3).toString('hex')}@example.com`,
  });
}

/** The code an authenticator app shows now (RFC 6238, computed independently of the service's code). */
export function totpNow(env: TestEnv, secretBase32: string): string {
  return TOTP.generate({ secret: Secret.fromBase32(secretBase32), algorithm: 'SHA1', digits: 6, period: 30, timestamp: env.clock.now().getTime() });
}

/** Moves the test clock to the next 30-second step, so a fresh TOTP code is not a replay of the last one. */
export function nextTotpStep(env: TestEnv): void {
  env.clock.advance(30_000);
}

export async function enrollTotp(env: TestEnv, p: TestPlatform, customerId: string): Promise<string> {
  const start = await p.request({ method: 'POST', url: `/sca/factors?customerId=${customerId}`, payload: { type: 'TOTP' } });
  expect(start.statusCode, start.body).toBe(200);
  const { secret } = start.json();
  const confirm = await p.request({ method: 'POST', url: `/sca/factors/confirm?customerId=${customerId}`, payload: { type: 'TOTP', secret, code: totpNow(env, secret) } });
  expect(confirm.statusCode, confirm.body).toBe(200);
  nextTotpStep(env);
  return secret;
}

export async function loginWithTotp(env: TestEnv, p: TestPlatform, customerId: string, secret: string) {
  const res = await p.request({ method: 'POST', url: `/sca/login/complete?customerId=${customerId}`, payload: { factor: 'TOTP', endUserIpAddress: '203.0.113.7', code: totpNow(env, secret) } });
  nextTotpStep(env);
  return res;
}

export async function loginWithSms(p: TestPlatform, customerId: string) {
  const start = await p.request({ method: 'POST', url: `/sca/login/start?customerId=${customerId}`, payload: { factor: 'SMS_OTP' } });
  expect(start.statusCode, start.body).toBe(200);
  return p.request({ method: 'POST', url: `/sca/login/complete?customerId=${customerId}`, payload: { factor: 'SMS_OTP', endUserIpAddress: '203.0.113.7', challengeId: start.json().challengeId, code: '123456' } });
}
