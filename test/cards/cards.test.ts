import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASE, createTestEnv, type TestEnv, type TestPlatform } from '../helpers/app.js';
import { anApprovedCustomer } from '../helpers/builders.js';
import { assertMatchesResponseSchema } from '../helpers/openapi.js';
import { aCard, aCardholder, signedPatch } from './helpers.js';

let env: TestEnv;
let p: TestPlatform;

beforeAll(async () => {
  env = await createTestEnv();
  p = await env.platform();
});
afterAll(() => env.close());

describe('POST /cards', () => {
  it('issues an ACTIVE virtual card in the currency of its funding sources', async () => {
    const h = await aCardholder(env, p);
    const res = await p.request({ method: 'POST', url: '/cards', payload: { customerId: h.customerId, form: 'VIRTUAL', fundingSources: [h.usdb], platformCardId: 'card-1', maxSpendPerTransaction: 50_000_000 } });
    expect(res.statusCode, res.body).toBe(201);
    const card = res.json();
    assertMatchesResponseSchema('POST', `${BASE}/cards`, 201, card);
    expect(card).toMatchObject({ customerId: h.customerId, form: 'VIRTUAL', state: 'ACTIVE', currency: 'USDB', fundingSources: [h.usdb], platformCardId: 'card-1', maxSpendPerTransaction: 50_000_000, stateReason: null });
    expect(card.id).toMatch(/^Card:/);
    const got = await p.request({ method: 'GET', url: `/cards/${card.id}` });
    expect(got.statusCode).toBe(200);
    assertMatchesResponseSchema('GET', `${BASE}/cards/{cardId}`, 200, got.json());
    expect(got.json()).toEqual(card);
  });

  it('accepts cardholderId as an alias of customerId, and generates platformCardId', async () => {
    const h = await aCardholder(env, p);
    const res = await p.request({ method: 'POST', url: '/cards', payload: { cardholderId: h.customerId, form: 'VIRTUAL', fundingSources: [h.usdb] } });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().customerId).toBe(h.customerId);
    expect(res.json().platformCardId).toEqual(expect.any(String));
    expect(res.json().maxSpendPerTransaction).toBeNull();
  });

  it('replays the stored answer for a repeated Idempotency-Key and creates one card', async () => {
    const h = await aCardholder(env, p);
    const payload = { customerId: h.customerId, form: 'VIRTUAL', fundingSources: [h.usdb] };
    const a = await p.request({ method: 'POST', url: '/cards', payload, headers: { 'idempotency-key': `k-${h.customerId}` } });
    const b = await p.request({ method: 'POST', url: '/cards', payload, headers: { 'idempotency-key': `k-${h.customerId}` } });
    expect(a.statusCode).toBe(201);
    expect(b.statusCode).toBe(201);
    expect(b.headers['idempotent-replayed']).toBe('true');
    expect(b.json().id).toBe(a.json().id);
    expect(await env.deps.prisma.card.count({ where: { customerId: h.customerId } })).toBe(1);
  });

  it('refuses a cardholder whose KYC is not APPROVED (400 CARDHOLDER_KYC_NOT_APPROVED)', async () => {
    const c = await anApprovedCustomer(env, p, ['USDB'], 'PENDING');
    const res = await p.request({ method: 'POST', url: '/cards', payload: { customerId: c.customerId, form: 'VIRTUAL', fundingSources: [c.accounts.USDB] } });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'CARDHOLDER_KYC_NOT_APPROVED', details: { status: 'PENDING' } });
  });

  it('refuses funding sources that are not the cardholder\'s, not card-eligible, mixed or unknown (400 FUNDING_SOURCE_INELIGIBLE)', async () => {
    const c = await anApprovedCustomer(env, p, ['USDB', 'USD', 'EUR']);
    const h = { customerId: c.customerId, usdb: c.accounts.USDB!, usd: c.accounts.USD!, eur: c.accounts.EUR! };
    const other = await aCardholder(env, p);
    const cases: Array<[string[], string]> = [
      [[other.usdb], 'fundingSources[0]'],
      [[h.eur], 'fundingSources[0]'],
      [[h.usdb, h.usd], 'fundingSources[1]'],
      [['InternalAccount:019a0c6e-4d1c-7b3e-9f5a-2b8c1d4e6f70'], 'fundingSources[0]'],
    ];
    for (const [fundingSources, field] of cases) {
      const res = await p.request({ method: 'POST', url: '/cards', payload: { customerId: h.customerId, form: 'VIRTUAL', fundingSources } });
      expect(res.statusCode, JSON.stringify(fundingSources)).toBe(400);
      expect(res.json().code).toBe('FUNDING_SOURCE_INELIGIBLE');
      expect(res.json().details.errors.map((e: any) => e.field)).toEqual([field]);
    }
    expect(await env.deps.prisma.card.count({ where: { customerId: h.customerId } })).toBe(0);
    // Custodial fiat (REF; CARD_ELIGIBLE_CURRENCIES) is a card currency of its own.
    const usd = await p.request({ method: 'POST', url: '/cards', payload: { customerId: h.customerId, form: 'VIRTUAL', fundingSources: [h.usd] } });
    expect(usd.statusCode, usd.body).toBe(201);
    expect(usd.json().currency).toBe('USD');
  });

  it('validates the body: at least one funding source, form VIRTUAL, a customer', async () => {
    const h = await aCardholder(env, p);
    const empty = await p.request({ method: 'POST', url: '/cards', payload: { customerId: h.customerId, form: 'VIRTUAL', fundingSources: [] } });
    expect(empty.statusCode).toBe(400);
    expect(empty.json().details.errors[0]).toMatchObject({ field: 'fundingSources', constraint: { minItems: 1 } });
    const physical = await p.request({ method: 'POST', url: '/cards', payload: { customerId: h.customerId, form: 'PHYSICAL', fundingSources: [h.usdb] } });
    expect(physical.json().details.errors[0].field).toBe('form');
    const nobody = await p.request({ method: 'POST', url: '/cards', payload: { form: 'VIRTUAL', fundingSources: [h.usdb] } });
    expect(nobody.json().details.errors[0].field).toBe('customerId');
    const unknown = await p.request({ method: 'POST', url: '/cards', payload: { customerId: 'Customer:019a0c6e-4d1c-7b3e-9f5a-2b8c1d4e6f70', form: 'VIRTUAL', fundingSources: [h.usdb] } });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().code).toBe('USER_NOT_FOUND');
  });
});

describe('card limits', () => {
  it('one card per cardholder by default; closing the card frees the slot', async () => {
    const h = await aCardholder(env, p);
    const card = await aCard(p, h.customerId, h.usdb);
    const second = await p.request({ method: 'POST', url: '/cards', payload: { customerId: h.customerId, form: 'VIRTUAL', fundingSources: [h.usdb] } });
    expect(second.statusCode).toBe(409);
    expect(second.json()).toMatchObject({ code: 'CARD_LIMIT_REACHED', details: { customerId: h.customerId } });
    const closed = await signedPatch(p, card.id, { state: 'CLOSED' }, h.key);
    expect(closed.statusCode, closed.body).toBe(200);
    await aCard(p, h.customerId, h.usdb);
  });

  it('20 concurrent creates for one cardholder issue exactly one card', async () => {
    const h = await aCardholder(env, p);
    const results = await Promise.all(
      Array.from({ length: 20 }, () => p.request({ method: 'POST', url: '/cards', payload: { customerId: h.customerId, form: 'VIRTUAL', fundingSources: [h.usdb] } })),
    );
    const codes = results.map((r) => r.statusCode).sort();
    expect(codes.filter((c) => c === 201)).toHaveLength(1);
    expect(results.filter((r) => r.statusCode === 409).every((r) => r.json().code === 'CARD_LIMIT_REACHED')).toBe(true);
    expect(await env.deps.prisma.card.count({ where: { customerId: h.customerId, state: { not: 'CLOSED' } } })).toBe(1);
  });

  it('20 concurrent creates against a platform maximum of 5 live cards issue exactly 5; closing one frees a slot', async () => {
    const q = await env.platform();
    const patched = await q.request({ method: 'PATCH', url: '/config', payload: { maxLiveCards: 5, oneCardPerCardholder: false } });
    expect(patched.statusCode, patched.body).toBe(200);
    expect(patched.json()).toMatchObject({ maxLiveCards: 5, oneCardPerCardholder: false });
    const holders = await Promise.all(Array.from({ length: 20 }, () => aCardholder(env, q)));
    const results = await Promise.all(
      holders.map((h) => q.request({ method: 'POST', url: '/cards', payload: { customerId: h.customerId, form: 'VIRTUAL', fundingSources: [h.usdb] } })),
    );
    const created = results.filter((r) => r.statusCode === 201);
    expect(created).toHaveLength(5);
    const refused = results.filter((r) => r.statusCode !== 201);
    expect(refused.every((r) => r.statusCode === 409 && r.json().code === 'CARD_LIMIT_REACHED' && r.json().details.maxLiveCards === 5)).toBe(true);
    expect(await env.deps.prisma.card.count({ where: { platformId: q.platformId, state: { not: 'CLOSED' } } })).toBe(5);

    const firstCard = created[0]!.json();
    const owner = holders.find((h) => h.customerId === firstCard.customerId)!;
    const lateComer = holders.find((h) => !created.some((r) => r.json().customerId === h.customerId))!;
    expect((await q.request({ method: 'POST', url: '/cards', payload: { customerId: lateComer.customerId, form: 'VIRTUAL', fundingSources: [lateComer.usdb] } })).statusCode).toBe(409);
    expect((await signedPatch(q, firstCard.id, { state: 'CLOSED' }, owner.key)).statusCode).toBe(200);
    expect((await q.request({ method: 'POST', url: '/cards', payload: { customerId: lateComer.customerId, form: 'VIRTUAL', fundingSources: [lateComer.usdb] } })).statusCode).toBe(201);
  });
});

describe('GET /cards', () => {
  it('lists newest first with filters and cursor pagination', async () => {
    const q = await env.platform();
    const hs = await Promise.all([aCardholder(env, q), aCardholder(env, q), aCardholder(env, q)]);
    const cards = [];
    for (const h of hs) cards.push(await aCard(q, h.customerId, h.usdb));
    const frozen = await signedPatch(q, cards[1].id, { state: 'FROZEN' }, hs[1]!.key);
    expect(frozen.statusCode).toBe(200);

    const all = await q.request({ method: 'GET', url: '/cards?limit=2' });
    assertMatchesResponseSchema('GET', `${BASE}/cards`, 200, all.json());
    expect(all.json().data.map((c: any) => c.id)).toEqual([cards[2].id, cards[1].id]);
    expect(all.json().hasMore).toBe(true);
    const next = await q.request({ method: 'GET', url: `/cards?limit=2&cursor=${all.json().nextCursor}` });
    expect(next.json().data.map((c: any) => c.id)).toEqual([cards[0].id]);
    expect(next.json().hasMore).toBe(false);

    const ids = async (qs: string) => (await q.request({ method: 'GET', url: `/cards?${qs}` })).json().data.map((c: any) => c.id);
    expect(await ids(`customerId=${hs[0]!.customerId}`)).toEqual([cards[0].id]);
    expect(await ids(`cardholderId=${hs[2]!.customerId}`)).toEqual([cards[2].id]);
    expect(await ids(`accountId=${hs[1]!.usdb}`)).toEqual([cards[1].id]);
    expect(await ids('state=FROZEN')).toEqual([cards[1].id]);
    expect(await ids(`platformCardId=${cards[0].platformCardId}`)).toEqual([cards[0].id]);
  });
});

describe('tenancy', () => {
  it("another platform's card is not found, and never listed", async () => {
    const h = await aCardholder(env, p);
    const card = await aCard(p, h.customerId, h.usdb);
    const other = await env.platform();
    expect((await other.request({ method: 'GET', url: `/cards/${card.id}` })).statusCode).toBe(404);
    const patch = await other.request({ method: 'PATCH', url: `/cards/${card.id}`, payload: { state: 'FROZEN' } });
    expect(patch.statusCode).toBe(404);
    expect((await other.request({ method: 'GET', url: '/cards' })).json().data).toEqual([]);
    const steal = await other.request({ method: 'POST', url: '/cards', payload: { customerId: h.customerId, form: 'VIRTUAL', fundingSources: [h.usdb] } });
    expect(steal.statusCode).toBe(404);
    expect((await other.request({ method: 'GET', url: `/customers/${h.customerId}/signing-credentials` })).statusCode).toBe(404);
  });
});
