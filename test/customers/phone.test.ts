import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TestEnv, type TestPlatform } from '../helpers/app.js';
import { isValidE164 } from '../../src/platform/phone.js';

let env: TestEnv;
let p: TestPlatform;
beforeAll(async () => {
  env = await createTestEnv();
  p = await env.platform();
});
afterAll(() => env.close());

describe('phone numbers are checked per country (libphonenumber-js)', () => {
  it('numbers that fit E.164 but cannot exist in their country are refused', () => {
    for (const n of ['+12120000000', '+441234', '+4915', '+33123', '+5511123456789012'.slice(0, 16)]) expect(isValidE164(n), n).toBe(false);
    for (const n of ['+14155552671', '+442071838750', '+4915112345678', '+33612345678', '+5511912345678', '+15555550123']) expect(isValidE164(n), n).toBe(true);
  });

  it('POST /customers with an impossible phone number is 400 naming phoneNumber; a valid one is created', async () => {
    const body = (phoneNumber: string) => ({ customerType: 'INDIVIDUAL', platformCustomerId: `pc-${phoneNumber}`, fullName: 'Ada Lovelace', email: 'ada@example.com', phoneNumber, currencies: ['USD'] });
    const bad = await p.request({ method: 'POST', url: '/customers', payload: body('+12120000000') });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().details.errors.map((e: { field: string }) => e.field)).toEqual(['phoneNumber']);
    expect(await env.deps.prisma.customer.count({ where: { platformId: p.platformId } })).toBe(0);
    const good = await p.request({ method: 'POST', url: '/customers', payload: body('+14155552671') });
    expect(good.statusCode).toBe(201);
    expect(good.json().phoneNumber).toBe('+14155552671');
  });
});
