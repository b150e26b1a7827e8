import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TestEnv, type TestPlatform } from '../helpers/app.js';
import { tempStorage, aBusiness, anOwner, colourPhoto, createCustomer, multipartBody, upload } from './helpers.js';

let env: TestEnv;
let owner: TestPlatform;
let other: TestPlatform;
let ids: { customer: string; person: string; beneficialOwner: string; document: string; verification: string };

beforeAll(async () => {
  env = await createTestEnv(tempStorage());
  owner = await env.platform();
  other = await env.platform();
  const biz = await createCustomer(owner, aBusiness({}, { legalName: 'Tenant Biz 003' }));
  const person = await createCustomer(owner, { customerType: 'INDIVIDUAL', fullName: 'Ten Ant003', email: 'a@example.de', phoneNumber: '+4915112345678', address: { line1: 'x', postalCode: '1', country: 'DE' } });
  const bo = (await owner.request({ method: 'POST', url: '/beneficial-owners', payload: anOwner(biz.id) })).json();
  const doc = (await upload(owner, { documentHolder: bo.id, documentType: 'PASSPORT', country: 'US', documentNumber: 'P1', issuingAuthority: 'DoS' }, { fileName: 'p.png', contentType: 'image/png', content: await colourPhoto() })).json();
  const v = (await owner.request({ method: 'POST', url: '/verifications', payload: { customerId: biz.id } })).json();
  ids = { customer: biz.id, person: person.id, beneficialOwner: bo.id, document: doc.id, verification: v.id };
});
afterAll(() => env.close());

describe("another platform's onboarding resources", () => {
  it('are 404 on every endpoint, and nothing of theirs changes', async () => {
    const photo = await colourPhoto();
    const mp = (fields: Record<string, string>) => multipartBody(fields, { fileName: 'p.png', contentType: 'image/png', content: photo });
    const calls: Array<[string, string, unknown?, Record<string, string>?]> = [
      ['GET', `/customers/${ids.customer}`],
      ['PATCH', `/customers/${ids.customer}`, { businessInfo: { doingBusinessAs: 'Hijack' } }],
      ['DELETE', `/customers/${ids.customer}`],
      ['POST', `/customers/${ids.person}/kyc-link`, {}],
      ['POST', `/customers/${ids.person}/verify-email`],
      ['POST', `/customers/${ids.person}/verify-phone`],
      ['POST', `/customers/${ids.person}/verify-email/confirm`, { code: '123456' }],
      ['POST', `/customers/${ids.person}/verify-phone/confirm`, { code: '123456' }],
      ['POST', '/beneficial-owners', anOwner(ids.customer)],
      ['GET', `/beneficial-owners?customerId=${encodeURIComponent(ids.customer)}`],
      ['GET', `/beneficial-owners/${ids.beneficialOwner}`],
      ['PATCH', `/beneficial-owners/${ids.beneficialOwner}`, { ownershipPercentage: 1 }],
      ['GET', `/documents/${ids.document}`],
      ['DELETE', `/documents/${ids.document}`],
      ['POST', '/verifications', { customerId: ids.customer }],
      ['GET', `/verifications/${ids.verification}`],
    ];
    for (const [method, url, payload] of calls) {
      const res = await other.request({ method: method as any, url, ...(payload === undefined ? {} : { payload: payload as object }) });
      expect(res.statusCode, `${method} ${url}`).toBe(404);
    }
    const put = mp({ documentType: 'PASSPORT', country: 'US', documentNumber: 'P2', issuingAuthority: 'DoS' });
    expect((await other.request({ method: 'PUT', url: `/documents/${ids.document}`, payload: put.payload, headers: put.headers })).statusCode).toBe(404);
    const post = mp({ documentHolder: ids.customer, documentType: 'PASSPORT', country: 'US', documentNumber: 'P2', issuingAuthority: 'DoS' });
    expect((await other.request({ method: 'POST', url: '/documents', payload: post.payload, headers: post.headers })).statusCode).toBe(404);

    for (const url of ['/customers', `/documents?documentHolder=${encodeURIComponent(ids.beneficialOwner)}`, `/verifications?customerId=${encodeURIComponent(ids.customer)}`]) {
      const res = await other.request({ method: 'GET', url });
      expect(res.statusCode, url).toBe(200);
      expect(res.json().data, url).toEqual([]);
    }
    const mine = (await owner.request({ method: 'GET', url: `/customers/${ids.customer}` })).json();
    expect(mine.isDeleted).toBe(false);
    expect(mine.businessInfo.doingBusinessAs).toBeUndefined();
    expect(mine.beneficialOwners).toHaveLength(1);
    expect((await owner.request({ method: 'GET', url: `/documents/${ids.document}` })).statusCode).toBe(200);
  });
});
