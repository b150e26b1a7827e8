import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASE, createTestEnv, type TestEnv, type TestPlatform } from '../helpers/app.js';
import { assertMatchesResponseSchema } from '../helpers/openapi.js';

/**
 * Issue 27: REF's `cardTokenization2faConfig` on PATCH/GET /config — kept as sent, merged field by field
 * (nested objects included), validated with REF's limits, scoped to the calling platform.
 */
let env: TestEnv;
let p: TestPlatform;
let other: TestPlatform;
beforeAll(async () => {
  env = await createTestEnv();
  p = await env.platform();
  other = await env.platform();
});
afterAll(() => env.close());

const patch = (body: object, who = p) => who.request({ method: 'PATCH', url: '/config', payload: body });
const config = async (who = p) => {
  const res = await who.request({ method: 'GET', url: '/config' });
  expect(res.statusCode, res.body).toBe(200);
  assertMatchesResponseSchema('GET', `${BASE}/config`, 200, res.json());
  return res.json();
};

describe('cardTokenization2faConfig', () => {
  it('is absent until set, then served as sent; a later PATCH changes only the fields it sends', async () => {
    expect((await config()).cardTokenization2faConfig).toBeUndefined();
    const full = {
      displayName: 'Acme',
      logoUrl: 'https://acme.com/card-email-logo.png',
      email: { fromAddress: 'cards@acme.com', fromName: 'Acme Cards', replyToAddress: 'support@acme.com', subject: 'Your Acme card verification code', bodyText: 'Use this code to finish adding your Acme card.' },
      sms: { templateSid: 'HJaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa', bodyText: 'Use this code to finish adding your Acme card.' },
    };
    const res = await patch({ cardTokenization2faConfig: full });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().cardTokenization2faConfig).toEqual(full);
    expect((await patch({ cardTokenization2faConfig: { email: { subject: 'Your code' }, displayName: 'Acme Inc' } })).statusCode).toBe(200);
    expect((await config()).cardTokenization2faConfig).toEqual({ ...full, displayName: 'Acme Inc', email: { ...full.email, subject: 'Your code' } });
    // Another field of /config leaves it as it is; another platform never sees it.
    expect((await patch({ oneCardPerCardholder: false })).json().cardTokenization2faConfig.displayName).toBe('Acme Inc');
    expect((await config(other)).cardTokenization2faConfig).toBeUndefined();
  });

  it('refuses an http logo, a bad sender address, an over-long SMS text and unknown fields, naming each, and keeps what was stored', async () => {
    const before = (await config()).cardTokenization2faConfig;
    for (const [body, field] of [
      [{ logoUrl: 'http://acme.com/logo.png' }, 'cardTokenization2faConfig.logoUrl'],
      [{ email: { fromAddress: 'not-an-address' } }, 'cardTokenization2faConfig.email.fromAddress'],
      [{ sms: { bodyText: 'x'.repeat(481) } }, 'cardTokenization2faConfig.sms.bodyText'],
      [{ colour: 'red' }, 'cardTokenization2faConfig.colour'],
    ] as const) {
      const res = await patch({ cardTokenization2faConfig: body });
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json().code).toBe('INVALID_INPUT');
      expect(res.json().details.errors.map((e: { field: string }) => e.field)).toContain(field);
    }
    expect((await config()).cardTokenization2faConfig).toEqual(before);
  });
});
