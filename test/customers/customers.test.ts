import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASE, createTestEnv, type TestEnv, type TestPlatform } from '../helpers/app.js';
import { assertMatchesResponseSchema } from '../helpers/openapi.js';
import { aBusiness, anIndividual, createCustomer } from './helpers.js';

let env: TestEnv;
let p: TestPlatform;
beforeAll(async () => {
  env = await createTestEnv();
  p = await env.platform();
});
afterAll(() => env.close());

const C = `${BASE}/customers`;
const fields = (res: { json(): any }) => res.json().details.errors.map((e: any) => e.field).sort();

describe('creating customers', () => {
  it('creates an individual (201, spec shape) with one internal account per currency, identifier masked', async () => {
    const res = await p.request({ method: 'POST', url: '/customers', payload: anIndividual({ currencies: ['USD', 'MXN'] }) });
    expect(res.statusCode).toBe(201);
    const c = res.json();
    assertMatchesResponseSchema('POST', C, 201, c);
    expect(c).toMatchObject({ customerType: 'INDIVIDUAL', kycStatus: 'APPROVED', identifier: '***-**-6789', birthDate: '1990-12-10', isDeleted: false });
    expect(c.id).toMatch(/^Customer:[0-9a-f-]{36}$/);
    expect(c.umaAddress).toMatch(/^\$[a-z0-9]+@localhost$/);
    expect(c.contactVerification).toBeUndefined();
    const accounts = await env.deps.prisma.internalAccount.findMany({ where: { customerId: c.id } });
    expect(accounts.map((a) => a.currency).sort()).toEqual(['MXN', 'USD']);
    const got = await p.request({ method: 'GET', url: `/customers/${c.id}` });
    assertMatchesResponseSchema('GET', `${C}/{customerId}`, 200, got.json());
    expect(got.json()).toEqual(c);
  });

  it('creates a business with its businessInfo, kybStatus and an (empty) beneficialOwners list', async () => {
    const c = await createCustomer(p, aBusiness({}, { countriesOfOperation: ['US'], entityType: 'LLC' }));
    assertMatchesResponseSchema('POST', C, 201, c);
    expect(c).toMatchObject({ customerType: 'BUSINESS', kybStatus: 'APPROVED', beneficialOwners: [], businessInfo: { legalName: 'Acme Widgets LLC', entityType: 'LLC' } });
    expect(c.kycStatus).toBeUndefined();
  });

  it('refuses a business without legalName, country, taxId and incorporatedOn, naming all four', async () => {
    const res = await p.request({ method: 'POST', url: '/customers', payload: { customerType: 'BUSINESS' } });
    expect(res.statusCode).toBe(400);
    expect(res.json().code).toBe('INVALID_INPUT');
    assertMatchesResponseSchema('POST', C, 400, res.json());
    expect(fields(res)).toEqual(['businessInfo.country', 'businessInfo.incorporatedOn', 'businessInfo.legalName', 'businessInfo.taxId']);
  });

  it('accepts only SSN (###-##-####) or ITIN for individuals', async () => {
    for (const [idType, identifier, field] of [
      ['SSN', '123456789', 'identifier'],
      ['SSN', '12-345-6789', 'identifier'],
      ['ITIN', '123-45-6789', 'identifier'],
      ['EIN', '12-3456789', 'idType'],
      ['NON_US_TAX_ID', 'X1234', 'idType'],
      ['PASSPORT', 'X1234', 'idType'],
    ]) {
      const res = await p.request({ method: 'POST', url: '/customers', payload: anIndividual({ idType, identifier }) });
      expect(res.statusCode, `${idType} ${identifier}`).toBe(400);
      expect(fields(res), `${idType} ${identifier}`).toEqual([field]);
    }
    const itin = await p.request({ method: 'POST', url: '/customers', payload: anIndividual({ idType: 'ITIN', identifier: '912-70-1234' }) });
    expect(itin.statusCode).toBe(201);
    const noType = await p.request({ method: 'POST', url: '/customers', payload: anIndividual({ idType: undefined }) });
    expect(fields(noType)).toEqual(['idType']);
  });

  it('requires the description of a *Categories list containing OTHER, and of purposeOfAccount OTHER', async () => {
    const res = await p.request({
      method: 'POST',
      url: '/customers',
      payload: anIndividual({ sourceOfFundsCategories: ['SALARY', 'OTHER'], sourceOfWealthCategories: ['OTHER'], purposeOfAccount: 'OTHER' }),
    });
    expect(res.statusCode).toBe(400);
    expect(fields(res)).toEqual(['purposeOfAccountOtherDescription', 'sourceOfFundsOtherDescription', 'sourceOfWealthOtherDescription']);
    const biz = await p.request({ method: 'POST', url: '/customers', payload: aBusiness({}, { sourceOfFundsCategories: ['OTHER'] }) });
    expect(fields(biz)).toEqual(['businessInfo.sourceOfFundsOtherDescription']);
    const ok = await p.request({
      method: 'POST',
      url: '/customers',
      payload: anIndividual({ sourceOfFundsCategories: ['OTHER'], sourceOfFundsOtherDescription: 'Prize money' }),
    });
    expect(ok.statusCode).toBe(201);
    expect(ok.json().sourceOfFundsCategories).toEqual(['OTHER']);
  });

  it('names every bad field at once: impossible dates, unknown countries and currencies, bad email and phone', async () => {
    const res = await p.request({
      method: 'POST',
      url: '/customers',
      payload: anIndividual({
        birthDate: '1990-02-30',
        nationality: 'XX',
        region: 'usa',
        currencies: ['USD', 'ABC'],
        email: 'not-an-email',
        phoneNumber: '0123',
        address: { line1: '1 Main St', postalCode: '1', country: 'ZZ' },
        unknownField: 1,
      }),
    });
    expect(res.statusCode).toBe(400);
    expect(fields(res)).toEqual(['address.country', 'birthDate', 'currencies[1]', 'email', 'nationality', 'phoneNumber', 'region', 'unknownField']);
    const future = await p.request({ method: 'POST', url: '/customers', payload: aBusiness({}, { incorporatedOn: '2999-01-01', country: 'US', taxId: '123' }) });
    expect(fields(future)).toEqual(['businessInfo.incorporatedOn', 'businessInfo.taxId']);
  });

  it('refuses a currency the platform does not support', async () => {
    const res = await p.request({ method: 'POST', url: '/customers', payload: anIndividual({ currencies: ['JPY'] }) });
    expect(res.statusCode).toBe(400);
    expect(fields(res)).toEqual(['currencies[0]']);
  });

  it('refuses fields of the other customer type', async () => {
    const res = await p.request({ method: 'POST', url: '/customers', payload: aBusiness({ fullName: 'A B', pepStatus: 'NONE' }) });
    expect(fields(res)).toEqual(['fullName', 'pepStatus']);
    const ind = await p.request({ method: 'POST', url: '/customers', payload: anIndividual({ businessInfo: { legalName: 'X' } }) });
    expect(fields(ind)).toEqual(['businessInfo']);
  });

  it('is 409 CONFLICT for a platformCustomerId of an active customer, and frees it when that customer is deleted', async () => {
    const first = await createCustomer(p, anIndividual({ platformCustomerId: 'dup-1' }));
    const again = await p.request({ method: 'POST', url: '/customers', payload: anIndividual({ platformCustomerId: 'dup-1' }) });
    expect(again.statusCode).toBe(409);
    expect(again.json().code).toBe('CONFLICT');
    assertMatchesResponseSchema('POST', C, 409, again.json());
    const other = await env.platform();
    expect((await other.request({ method: 'POST', url: '/customers', payload: anIndividual({ platformCustomerId: 'dup-1' }) })).statusCode).toBe(201);
    await p.request({ method: 'DELETE', url: `/customers/${first.id}` });
    expect((await p.request({ method: 'POST', url: '/customers', payload: anIndividual({ platformCustomerId: 'dup-1' }) })).statusCode).toBe(201);
  });

  it('generates umaAddress on the platform umaDomain; a taken one is 409 UMA_ADDRESS_EXISTS', async () => {
    const q = await env.platform();
    await env.deps.prisma.platform.update({ where: { id: q.platformId }, data: { umaDomain: 'pay.example.com' } });
    const c = await createCustomer(q, anIndividual());
    expect(c.umaAddress).toMatch(/^\$[a-z0-9]+@pay\.example\.com$/);
    const taken = await q.request({ method: 'POST', url: '/customers', payload: anIndividual({ umaAddress: c.umaAddress }) });
    expect(taken.statusCode).toBe(409);
    expect(taken.json().code).toBe('UMA_ADDRESS_EXISTS');
    const bad = await q.request({ method: 'POST', url: '/customers', payload: anIndividual({ umaAddress: 'alice@example.com' }) });
    expect(fields(bad)).toEqual(['umaAddress']);
  });

  it('creates customers of regulated platforms APPROVED whatever the sandbox name', async () => {
    const reg = await env.platform({ isRegulated: true });
    const c = await createCustomer(reg, anIndividual({ fullName: 'Rita Rejected002' }));
    expect(c.kycStatus).toBe('APPROVED');
  });

  it('chooses the sandbox initial status by the name suffix (decision A9)', async () => {
    const status = async (name: string) => (await createCustomer(p, anIndividual({ fullName: name }))).kycStatus;
    expect(await status('Pat Pending001')).toBe('PENDING');
    expect(await status('Rex Rejected002')).toBe('REJECTED');
    for (const s of ['003', '004', '005', '006']) expect(await status(`Una Verified${s}`)).toBe('UNVERIFIED');
    const biz = await createCustomer(p, aBusiness({}, { legalName: 'Slow Corp 003' }));
    expect(biz.kybStatus).toBe('UNVERIFIED');
  });

  it('replays POST /customers with the same Idempotency-Key and refuses the key with another body', async () => {
    const body = anIndividual();
    const headers = { 'idempotency-key': `idem-${body.platformCustomerId}` };
    const a = await p.request({ method: 'POST', url: '/customers', payload: body, headers });
    const b = await p.request({ method: 'POST', url: '/customers', payload: body, headers });
    expect(a.statusCode).toBe(201);
    expect(b.statusCode).toBe(201);
    expect(b.headers['idempotent-replayed']).toBe('true');
    expect(b.json().id).toBe(a.json().id);
    const c = await p.request({ method: 'POST', url: '/customers', payload: { ...body, fullName: 'Other Person' }, headers });
    expect(c.statusCode).toBe(422);
  });
});

describe('reading, updating and deleting customers', () => {
  it('is 404 USER_NOT_FOUND for an unknown customer', async () => {
    const res = await p.request({ method: 'GET', url: '/customers/Customer:00000000-0000-7000-8000-000000000000' });
    expect(res.statusCode).toBe(404);
    expect(res.json().code).toBe('USER_NOT_FOUND');
    assertMatchesResponseSchema('GET', `${C}/{customerId}`, 404, res.json());
  });

  it('PATCH adding currencies opens the missing internal accounts and keeps the others', async () => {
    const c = await createCustomer(p, anIndividual({ currencies: ['USD'] }));
    const res = await p.request({ method: 'PATCH', url: `/customers/${c.id}`, payload: { customerType: 'INDIVIDUAL', currencies: ['USD', 'EUR', 'GBP'] } });
    expect(res.statusCode).toBe(200);
    assertMatchesResponseSchema('PATCH', `${C}/{customerId}`, 200, res.json());
    expect(res.json().currencies).toEqual(['USD', 'EUR', 'GBP']);
    const accounts = await env.deps.prisma.internalAccount.findMany({ where: { customerId: c.id } });
    expect(accounts.map((a) => a.currency).sort()).toEqual(['EUR', 'GBP', 'USD']);
  });

  it('PATCH applies partially, clears with null, validates the result and refuses a type change', async () => {
    const c = await createCustomer(p, anIndividual({ nationality: 'US' }));
    const ok = await p.request({ method: 'PATCH', url: `/customers/${c.id}`, payload: { nationality: null, fullName: 'Ada King' } });
    expect(ok.statusCode).toBe(200);
    expect(ok.json().nationality).toBeUndefined();
    expect(ok.json().fullName).toBe('Ada King');
    expect(ok.json().identifier).toBe('***-**-6789');
    const type = await p.request({ method: 'PATCH', url: `/customers/${c.id}`, payload: { customerType: 'BUSINESS' } });
    expect(fields(type)).toContain('customerType');
    const orphan = await p.request({ method: 'PATCH', url: `/customers/${c.id}`, payload: { idType: null } });
    expect(fields(orphan)).toEqual(['idType']);
    const biz = await createCustomer(p, aBusiness());
    const clear = await p.request({ method: 'PATCH', url: `/customers/${biz.id}`, payload: { businessInfo: { taxId: null } } });
    expect(fields(clear)).toEqual(['businessInfo.taxId']);
  });

  it('DELETE is a soft delete (200, isDeleted true); the customer stays readable; a second DELETE is 410 CUSTOMER_DELETED', async () => {
    const c = await createCustomer(p, anIndividual());
    const del = await p.request({ method: 'DELETE', url: `/customers/${c.id}` });
    expect(del.statusCode).toBe(200);
    assertMatchesResponseSchema('DELETE', `${C}/{customerId}`, 200, del.json());
    expect(del.json().isDeleted).toBe(true);
    expect((await p.request({ method: 'GET', url: `/customers/${c.id}` })).json().isDeleted).toBe(true);
    const again = await p.request({ method: 'DELETE', url: `/customers/${c.id}` });
    expect(again.statusCode).toBe(410);
    expect(again.json().code).toBe('CUSTOMER_DELETED');
    assertMatchesResponseSchema('DELETE', `${C}/{customerId}`, 410, again.json());
    expect((await p.request({ method: 'PATCH', url: `/customers/${c.id}`, payload: { fullName: 'X Y' } })).statusCode).toBe(410);
  });

  it('lists newest first with filters and a cursor that never repeats a row', async () => {
    const q = await env.platform();
    const made = [];
    for (let i = 0; i < 5; i++) made.push(await createCustomer(q, anIndividual({ platformCustomerId: `l-${i}` })));
    made.push(await createCustomer(q, aBusiness({ platformCustomerId: 'l-biz' })));
    const first = await q.request({ method: 'GET', url: '/customers?limit=4' });
    assertMatchesResponseSchema('GET', C, 200, first.json());
    expect(first.json().hasMore).toBe(true);
    const second = await q.request({ method: 'GET', url: `/customers?limit=4&cursor=${first.json().nextCursor}` });
    expect(second.json().hasMore).toBe(false);
    const ids = [...first.json().data, ...second.json().data].map((c: any) => c.id);
    expect(ids).toEqual(made.map((c) => c.id).reverse());
    expect((await q.request({ method: 'GET', url: '/customers?customerType=BUSINESS' })).json().data.map((c: any) => c.platformCustomerId)).toEqual(['l-biz']);
    expect((await q.request({ method: 'GET', url: '/customers?platformCustomerId=l-2' })).json().data).toHaveLength(1);
    expect((await q.request({ method: 'GET', url: '/customers?status=APPROVED' })).json().data).toHaveLength(6);
    const future = new Date(Date.now() + 3600_000).toISOString();
    expect((await q.request({ method: 'GET', url: `/customers?createdAfter=${encodeURIComponent(future)}` })).json().data).toHaveLength(0);
    await q.request({ method: 'DELETE', url: `/customers/${made[0]!.id}` });
    expect((await q.request({ method: 'GET', url: '/customers' })).json().data).toHaveLength(5);
    expect((await q.request({ method: 'GET', url: '/customers?isIncludingDeleted=true' })).json().data).toHaveLength(6);
    expect((await q.request({ method: 'GET', url: '/customers?status=NOPE' })).statusCode).toBe(400);
  });
});
