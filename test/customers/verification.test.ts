import { createPublicKey, verify } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BASE, createTestEnv, eventually, type TestEnv, type TestPlatform } from '../helpers/app.js';
import { assertMatchesResponseSchema } from '../helpers/openapi.js';
import { Receiver } from '../helpers/receiver.js';
import type { RunningWorkers } from '../../src/workers.js';
import { tempStorage, aBusiness, anIndividual, anOwner, colourPhoto, createCustomer, TINY_PDF, upload } from './helpers.js';
import { resourceKey } from '../../src/platform/ids.js';

let env: TestEnv;
let workers: RunningWorkers;
let receiver: Receiver;
beforeAll(async () => {
  env = await createTestEnv({ KYC_SANDBOX_REVIEW_DELAY_MS: '50', ...tempStorage() });
  workers = env.startWorkers();
  receiver = await new Receiver().start();
});
afterAll(async () => {
  await workers.close();
  await receiver.stop();
  await env.close();
});

const V = `${BASE}/verifications`;

async function platformWithReceiver(): Promise<TestPlatform> {
  const p = await env.platform();
  await env.deps.prisma.platform.update({ where: { id: p.platformId }, data: { webhookEndpoint: receiver.url } });
  return p;
}

const eventsFor = (resourceIds: string[]) => receiver.received.filter((r) => resourceIds.includes(r.json?.data?.id) || resourceIds.includes(r.json?.data?.customerId));
const typesFor = (ids: string[]) => eventsFor(ids).map((r) => r.json.type);

async function submit(p: TestPlatform, customerId: string) {
  const res = await p.request({ method: 'POST', url: '/verifications', payload: { customerId } });
  expect(res.statusCode, res.body).toBe(200);
  assertMatchesResponseSchema('POST', V, 200, res.json());
  return res.json();
}

async function settled(p: TestPlatform, verificationId: string, status: string) {
  return eventually(async () => {
    const v = (await p.request({ method: 'GET', url: `/verifications/${verificationId}` })).json();
    return v.verificationStatus === status ? v : undefined;
  });
}

const file = async () => ({ fileName: 'doc.png', contentType: 'image/png', content: await colourPhoto() });
const pdf = { fileName: 'doc.pdf', contentType: 'application/pdf', content: TINY_PDF };

describe('business direct flow (spec payment flow 5)', () => {
  it('lists every missing item, shrinks as owners and documents arrive, then IN_PROGRESS → APPROVED with signed events', async () => {
    const p = await platformWithReceiver();
    const biz = await createCustomer(p, aBusiness({}, { legalName: 'Direct Widgets 003' }));
    expect(biz.kybStatus).toBe('UNVERIFIED');

    const first = await submit(p, biz.id);
    expect(first.verificationStatus).toBe('RESOLVE_ERRORS');
    const summary = (v: any) => v.errors.map((e: any) => `${e.resourceId === biz.id ? 'C' : e.resourceId.split(':')[0]}:${e.type}:${e.field ?? (e.acceptedDocumentTypes ?? []).join('|')}`).sort();
    expect(summary(first)).toEqual([
      'C:MISSING_CONTROL_PERSON:',
      'C:MISSING_FIELD:address.country',
      'C:MISSING_FIELD:address.line1',
      'C:MISSING_FIELD:address.postalCode',
      'C:MISSING_FIELD:businessInfo.countriesOfOperation',
      'C:MISSING_LEGAL_PRESENCE_DOCUMENT:CERTIFICATE_OF_INCORPORATION|ARTICLES_OF_INCORPORATION|STATE_REGISTRY_EXCERPT|STATE_COMPANY_REGISTRY|BUSINESS_LICENSE|PARTNERSHIP_AGREEMENT|TRUST_AGREEMENT',
      'C:MISSING_OWNERSHIP_STRUCTURE_DOCUMENT:SHAREHOLDER_REGISTER|ARTICLES_OF_ASSOCIATION|INFORMATION_STATEMENT|INCUMBENCY_CERTIFICATE|PARTNERSHIP_CONTROL_AGREEMENT',
      'C:MISSING_PROOF_OF_ADDRESS_DOCUMENT:PROOF_OF_ADDRESS|UTILITY_BILL|ELECTRICITY_BILL|BANK_STATEMENT|RENT_OR_LEASE_AGREEMENT',
    ]);
    expect(first.errors.every((e: any) => typeof e.reason === 'string' && e.reason.length > 0)).toBe(true);

    // A US control person with everything, and a non-US 30% owner missing data and documents.
    const control = await p.request({ method: 'POST', url: '/beneficial-owners', payload: anOwner(biz.id, { ownershipPercentage: 40 }) });
    expect(control.statusCode).toBe(201);
    assertMatchesResponseSchema('POST', `${BASE}/beneficial-owners`, 201, control.json());
    const foreign = (
      await p.request({
        method: 'POST',
        url: '/beneficial-owners',
        payload: { customerId: biz.id, roles: ['UBO'], ownershipPercentage: 30.5, personalInfo: { firstName: 'Jean', lastName: 'Dupont', nationality: 'FR' } },
      })
    ).json();
    await p.request({ method: 'PATCH', url: `/customers/${biz.id}`, payload: { address: { line1: '5 Market St', postalCode: '94105', country: 'US' }, businessInfo: { countriesOfOperation: ['US', 'FR'] } } });
    for (const documentType of ['CERTIFICATE_OF_INCORPORATION', 'SHAREHOLDER_REGISTER', 'UTILITY_BILL']) {
      expect((await upload(p, { documentHolder: biz.id, documentType, country: 'US' }, pdf)).statusCode).toBe(201);
    }

    const second = await submit(p, biz.id);
    expect(second.verificationStatus).toBe('RESOLVE_ERRORS');
    expect(second.errors.every((e: any) => e.resourceId === foreign.id)).toBe(true);
    expect(summary(second)).toEqual([
      'BeneficialOwner:MISSING_FIELD:personalInfo.address.country',
      'BeneficialOwner:MISSING_FIELD:personalInfo.address.line1',
      'BeneficialOwner:MISSING_FIELD:personalInfo.address.postalCode',
      'BeneficialOwner:MISSING_FIELD:personalInfo.birthDate',
      'BeneficialOwner:MISSING_FIELD:personalInfo.idType',
      'BeneficialOwner:MISSING_FIELD:personalInfo.identifier',
      'BeneficialOwner:MISSING_IDENTITY_DOCUMENT:DRIVERS_LICENSE|NATIONAL_ID',
      'BeneficialOwner:MISSING_IDENTITY_DOCUMENT:PASSPORT',
    ]);

    const patched = await p.request({
      method: 'PATCH',
      url: `/beneficial-owners/${foreign.id}`,
      payload: { personalInfo: { birthDate: '1980-05-05', address: { line1: '1 Rue de Rivoli', postalCode: '75001', country: 'FR' }, idType: 'NON_US_TAX_ID', identifier: 'FR12345678' } },
    });
    expect(patched.statusCode).toBe(200);
    assertMatchesResponseSchema('PATCH', `${BASE}/beneficial-owners/{id}`, 200, patched.json());
    expect(patched.json().personalInfo).toMatchObject({ firstName: 'Jean', identifier: '******5678' });
    const id = { country: 'FR', documentNumber: 'FR998877', issuingAuthority: 'Republique Francaise' };
    expect((await upload(p, { documentHolder: foreign.id, documentType: 'PASSPORT', ...id }, await file())).statusCode).toBe(201);
    expect((await upload(p, { documentHolder: foreign.id, documentType: 'NATIONAL_ID', side: 'FRONT', ...id }, await file())).statusCode).toBe(201);
    const half = await submit(p, biz.id);
    expect(half.errors.map((e: any) => e.type)).toEqual(['INCOMPLETE_DOCUMENT']);
    expect((await upload(p, { documentHolder: foreign.id, documentType: 'NATIONAL_ID', side: 'BACK', ...id }, await file())).statusCode).toBe(201);

    const third = await submit(p, biz.id);
    expect(third).toMatchObject({ verificationStatus: 'IN_PROGRESS', errors: [] });
    const approved = await settled(p, third.id, 'APPROVED');
    assertMatchesResponseSchema('GET', `${V}/{verificationId}`, 200, approved);
    const after = (await p.request({ method: 'GET', url: `/customers/${biz.id}` })).json();
    expect(after.kybStatus).toBe('APPROVED');
    expect(after.beneficialOwners.map((o: any) => o.kycStatus)).toEqual(['APPROVED', 'APPROVED']);

    const list = await p.request({ method: 'GET', url: `/verifications?customerId=${encodeURIComponent(biz.id)}` });
    assertMatchesResponseSchema('GET', V, 200, list.json());
    expect(list.json().data.map((v: any) => v.verificationStatus)).toEqual(['APPROVED', 'RESOLVE_ERRORS', 'RESOLVE_ERRORS', 'RESOLVE_ERRORS']);

    // Deliveries are not ordered (a first attempt may fail and be retried later): wait until every one has arrived.
    const expected = ['VERIFICATION.RESOLVE_ERRORS', 'VERIFICATION.IN_PROGRESS', 'CUSTOMER.KYB_PENDING', 'VERIFICATION.APPROVED', 'CUSTOMER.KYB_APPROVED'];
    await eventually(async () => expected.every((t) => typesFor([biz.id, third.id]).includes(t)));
    const types = typesFor([biz.id, third.id]);
    for (const t of expected) expect(types).toContain(t);
    const publicKey = (await p.request({ method: 'GET', url: '/config' })).json().webhookPublicKey;
    for (const r of eventsFor([biz.id, third.id])) {
      const { s } = JSON.parse(String(r.headers['x-svc-signature']));
      expect(verify('sha256', Buffer.from(r.body), createPublicKey(publicKey), Buffer.from(s, 'base64'))).toBe(true);
    }
    const approvedEvent = eventsFor([biz.id]).find((r) => r.json.type === 'CUSTOMER.KYB_APPROVED')!;
    expect(approvedEvent.json.data).toMatchObject({ id: biz.id, kybStatus: 'APPROVED' });
    const verificationEvent = eventsFor([third.id]).find((r) => r.json.type === 'VERIFICATION.APPROVED')!;
    expect(verificationEvent.json.data).toEqual(approved);

    expect((await p.request({ method: 'POST', url: '/verifications', payload: { customerId: biz.id } })).statusCode).toBe(409);
  });

  it('is 409 while a case is open', async () => {
    const p = await env.platform();
    const c = await createCustomer(p, anIndividual({ fullName: 'Open Case006' }));
    await upload(p, { documentHolder: c.id, documentType: 'PASSPORT', country: 'US', documentNumber: 'P1', issuingAuthority: 'DoS' }, await file());
    const v = await submit(p, c.id);
    expect(v.verificationStatus).toBe('IN_PROGRESS');
    const again = await p.request({ method: 'POST', url: '/verifications', payload: { customerId: c.id } });
    expect(again.statusCode).toBe(409);
    assertMatchesResponseSchema('POST', V, 409, again.json());
  });
});

describe('individual direct flow and the sandbox provider decisions', () => {
  async function readyIndividual(p: TestPlatform, fullName: string, extra: Record<string, unknown> = {}) {
    const c = await createCustomer(p, anIndividual({ fullName, ...extra }));
    await upload(p, { documentHolder: c.id, documentType: 'PASSPORT', country: 'US', documentNumber: 'P1234567', issuingAuthority: 'DoS' }, await file());
    return c;
  }
  const kyc = async (p: TestPlatform, id: string) => (await p.request({ method: 'GET', url: `/customers/${id}` })).json().kycStatus;

  it('requires the individual fields and an identity document; a one-word name is INVALID_FIELD', async () => {
    const p = await env.platform();
    const c = await createCustomer(p, { customerType: 'INDIVIDUAL', fullName: 'Cher003', currencies: ['USD'] });
    const v = await submit(p, c.id);
    expect(v.errors.map((e: any) => `${e.type}:${e.field ?? e.acceptedDocumentTypes.join('|')}`).sort()).toEqual([
      'INVALID_FIELD:fullName',
      'MISSING_FIELD:address.country',
      'MISSING_FIELD:address.line1',
      'MISSING_FIELD:address.postalCode',
      'MISSING_FIELD:birthDate',
      'MISSING_FIELD:nationality',
      'MISSING_IDENTITY_DOCUMENT:PASSPORT|DRIVERS_LICENSE|NATIONAL_ID',
    ]);
  });

  it('providerRequiredCustomerFields of the customer currencies widen the requirements (EUR needs email and phone)', async () => {
    const p = await env.platform();
    const c = await readyIndividual(p, 'Eur Customer003', { currencies: ['USD', 'EUR'] });
    const v = await submit(p, c.id);
    expect(v.errors.map((e: any) => e.field).sort()).toEqual(['email', 'phoneNumber']);
  });

  it('APPROVED by default: IN_PROGRESS → APPROVED, customer PENDING → APPROVED', async () => {
    const p = await env.platform();
    const c = await readyIndividual(p, 'Ann Approved003');
    const v = await submit(p, c.id);
    expect(v.verificationStatus).toBe('IN_PROGRESS');
    await settled(p, v.id, 'APPROVED');
    expect(await kyc(p, c.id)).toBe('APPROVED');
  });

  it('suffix 005: REJECTED, which is terminal', async () => {
    const p = await env.platform();
    const c = await readyIndividual(p, 'Rob Rejected005');
    const v = await settled(p, (await submit(p, c.id)).id, 'REJECTED');
    expect(v.errors).toEqual([{ resourceId: c.id, type: 'APPLICANT_REJECTED', reason: expect.any(String) }]);
    expect(await kyc(p, c.id)).toBe('REJECTED');
    expect((await p.request({ method: 'POST', url: '/verifications', payload: { customerId: c.id } })).statusCode).toBe(409);
    expect((await p.request({ method: 'POST', url: `/customers/${c.id}/kyc-link`, payload: {} })).statusCode).toBe(409);
  });

  it('suffix 004: HOLD with RESOLVE_ERRORS naming the document; a new submission leaves HOLD and is approved', async () => {
    const p = await env.platform();
    const c = await readyIndividual(p, 'Hal Hold004');
    const v = await settled(p, (await submit(p, c.id)).id, 'RESOLVE_ERRORS');
    expect(v.errors).toEqual([expect.objectContaining({ type: 'POOR_QUALITY_DOCUMENT', resourceId: expect.stringMatching(/^Document:/) })]);
    expect(await kyc(p, c.id)).toBe('HOLD');
    const again = await submit(p, c.id);
    expect(again.verificationStatus).toBe('IN_PROGRESS');
    // The resubmission moved the customer HOLD → PENDING (the decision may already have followed).
    const moves = await env.deps.prisma.statusChange.findMany({ where: { machine: 'customer', resourceId: resourceKey(c.id) }, orderBy: { id: 'asc' } });
    expect(moves.map((m) => `${m.fromStatus}>${m.toStatus}`).slice(0, 3)).toEqual(['UNVERIFIED>PENDING', 'PENDING>HOLD', 'HOLD>PENDING']);
    await settled(p, again.id, 'APPROVED');
    expect(await kyc(p, c.id)).toBe('APPROVED');
  });

  it('suffix 006: PENDING_MANUAL_REVIEW, then APPROVED', async () => {
    const p = await platformWithReceiver();
    const c = await readyIndividual(p, 'Rev Review006');
    const v = await submit(p, c.id);
    await settled(p, v.id, 'APPROVED');
    await eventually(async () => typesFor([v.id]).includes('VERIFICATION.APPROVED'));
    expect(typesFor([v.id])).toEqual(expect.arrayContaining(['VERIFICATION.IN_PROGRESS', 'VERIFICATION.PENDING_MANUAL_REVIEW', 'VERIFICATION.APPROVED']));
  });

  it('a beneficial owner whose lastName ends in 002 fails KYC and the business is rejected', async () => {
    const p = await env.platform();
    const biz = await createCustomer(p, aBusiness({ address: { line1: '1 A St', postalCode: '1', country: 'US' } }, { legalName: 'Owner Fail 003', countriesOfOperation: ['US'] }));
    const owner = (await p.request({ method: 'POST', url: '/beneficial-owners', payload: anOwner(biz.id, {}, { lastName: 'Smith002' }) })).json();
    for (const documentType of ['CERTIFICATE_OF_INCORPORATION', 'SHAREHOLDER_REGISTER', 'UTILITY_BILL']) await upload(p, { documentHolder: biz.id, documentType, country: 'US' }, pdf);
    const v = await settled(p, (await submit(p, biz.id)).id, 'REJECTED');
    expect(v.errors).toEqual([expect.objectContaining({ resourceId: owner.id, type: 'APPLICANT_REJECTED' })]);
    const after = (await p.request({ method: 'GET', url: `/customers/${biz.id}` })).json();
    expect(after.kybStatus).toBe('REJECTED');
    expect(after.beneficialOwners[0].kycStatus).toBe('REJECTED');
  });

  it('a proof of address dated more than 3 months ago is EXPIRED_DOCUMENT', async () => {
    const p = await env.platform();
    const biz = await createCustomer(p, aBusiness({ address: { line1: '1 A St', postalCode: '1', country: 'US' } }, { legalName: 'Old Bill 003', countriesOfOperation: ['US'] }));
    await p.request({ method: 'POST', url: '/beneficial-owners', payload: anOwner(biz.id) });
    await upload(p, { documentHolder: biz.id, documentType: 'CERTIFICATE_OF_INCORPORATION', country: 'US' }, pdf);
    await upload(p, { documentHolder: biz.id, documentType: 'SHAREHOLDER_REGISTER', country: 'US' }, pdf);
    const old = (await upload(p, { documentHolder: biz.id, documentType: 'ELECTRICITY_BILL', country: 'US', issuedOn: '2020-01-01' }, pdf)).json();
    const v = await submit(p, biz.id);
    expect(v.errors).toEqual([expect.objectContaining({ resourceId: old.id, type: 'EXPIRED_DOCUMENT' })]);
  });

  it('refuses owners beyond 100% together, and owners of individuals', async () => {
    const p = await env.platform();
    const biz = await createCustomer(p, aBusiness());
    await p.request({ method: 'POST', url: '/beneficial-owners', payload: anOwner(biz.id, { ownershipPercentage: 70 }) });
    const over = await p.request({ method: 'POST', url: '/beneficial-owners', payload: anOwner(biz.id, { ownershipPercentage: 30.01 }) });
    expect(over.statusCode).toBe(400);
    expect(over.json().details.errors[0].field).toBe('ownershipPercentage');
    const ind = await createCustomer(p, anIndividual());
    const wrong = await p.request({ method: 'POST', url: '/beneficial-owners', payload: anOwner(ind.id) });
    expect(wrong.json().details.errors[0].field).toBe('customerId');
    const bad = await p.request({ method: 'POST', url: '/beneficial-owners', payload: { customerId: biz.id, roles: [], ownershipPercentage: 1.234, personalInfo: { firstName: 'A', idType: 'SSN', identifier: '1' } } });
    expect(bad.json().details.errors.map((e: any) => e.field).sort()).toEqual(['ownershipPercentage', 'personalInfo.identifier', 'personalInfo.lastName', 'roles']);
    const list = await p.request({ method: 'GET', url: `/beneficial-owners?customerId=${encodeURIComponent(biz.id)}` });
    assertMatchesResponseSchema('GET', `${BASE}/beneficial-owners`, 200, list.json());
    expect(list.json().data).toHaveLength(1);
  });
});
