import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TestEnv, type TestPlatform } from '../helpers/app.js';
import { BASE, errorOf, expectStatus } from './helpers.js';

/** GET /discoveries (decisions B§9.2): answers for every country in data/discoveries.json; 400 on bad params. */

const ENTRIES: Array<{ bankName: string; displayName: string; country: string; currency: string }> = JSON.parse(
  readFileSync(new URL('../../data/discoveries.json', import.meta.url), 'utf8'),
);
const COUNTRIES = [...new Set(ENTRIES.map((e) => e.country))].sort();

let env: TestEnv;
let p: TestPlatform;
beforeAll(async () => {
  env = await createTestEnv();
  p = await env.platform();
});
afterAll(() => env.close());

describe('GET /discoveries', () => {
  it.each(COUNTRIES)('answers for %s with exactly its entries', async (country) => {
    const body = expectStatus(await p.request({ method: 'GET', url: `/discoveries?country=${country}` }), 200, 'GET', `${BASE}/discoveries`);
    expect(body.data).toEqual(ENTRIES.filter((e) => e.country === country));
    expect(body.data.length).toBeGreaterThan(0);
  });

  it('filters by currency, by both, and lists everything without filters', async () => {
    const xof = (await p.request({ method: 'GET', url: '/discoveries?currency=XOF' })).json().data;
    expect(new Set(xof.map((e: any) => e.country))).toEqual(new Set(ENTRIES.filter((e) => e.currency === 'XOF').map((e) => e.country)));
    const sv = (await p.request({ method: 'GET', url: '/discoveries?country=SV&currency=USD' })).json().data;
    expect(sv.length).toBeGreaterThan(0);
    expect((await p.request({ method: 'GET', url: '/discoveries' })).json().data).toHaveLength(ENTRIES.length);
    expect((await p.request({ method: 'GET', url: '/discoveries?country=US&currency=EUR' })).json().data).toEqual([]);
  });

  it.each([['country=ph', 'country'], ['country=PHL', 'country'], ['country=ZZ', 'country'], ['currency=php', 'currency'], ['currency=ABC', 'currency']])(
    '%s is 400 on %s',
    async (query, field) => {
      expect(errorOf(await p.request({ method: 'GET', url: `/discoveries?${query}` }), 400, 'INVALID_INPUT').fields).toEqual([field]);
    },
  );

  it('needs platform credentials', async () => {
    expect((await env.app.inject({ method: 'GET', url: `${BASE}/discoveries` })).statusCode).toBe(401);
  });
});
