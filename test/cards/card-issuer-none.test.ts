import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TestEnv, type TestPlatform } from '../helpers/app.js';

let env: TestEnv;
let p: TestPlatform;

beforeAll(async () => {
  env = await createTestEnv({ CARD_ISSUER: 'none' });
  p = await env.platform();
});
afterAll(() => env.close());

describe('no card issuer configured (CARD_ISSUER=none)', () => {
  it('every /cards operation answers 501 NOT_IMPLEMENTED, as REF documents', async () => {
    const calls = [
      { method: 'POST' as const, url: '/cards', payload: { cardholderId: 'Customer:x', form: 'VIRTUAL', fundingSources: ['InternalAccount:x'] } },
      { method: 'GET' as const, url: '/cards' },
      { method: 'GET' as const, url: '/cards/Card:019a0c6e-4d1c-7b3e-9f5a-2b8c1d4e6f70' },
      { method: 'PATCH' as const, url: '/cards/Card:019a0c6e-4d1c-7b3e-9f5a-2b8c1d4e6f70', payload: { state: 'FROZEN' } },
      { method: 'POST' as const, url: '/cards/Card:019a0c6e-4d1c-7b3e-9f5a-2b8c1d4e6f70/reveal' },
      { method: 'POST' as const, url: '/sandbox/cards/Card:019a0c6e-4d1c-7b3e-9f5a-2b8c1d4e6f70/simulate/authorization', payload: { amount: 1, currency: 'USD', merchant: { descriptor: 'X' } } },
    ];
    for (const c of calls) {
      const res = await p.request(c);
      expect(res.statusCode, `${c.method} ${c.url}`).toBe(501);
      expect(res.json().code).toBe('NOT_IMPLEMENTED');
    }
  });
});
