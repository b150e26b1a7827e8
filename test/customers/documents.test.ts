import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASE, createTestEnv, type TestEnv, type TestPlatform } from '../helpers/app.js';
import { assertMatchesResponseSchema } from '../helpers/openapi.js';
import { ctxFor } from '../../src/deps.js';
import { readDocumentFile } from '../../src/domains/documents/documents.service.js';
import { aBusiness, anIndividual, anOwner, colourPhoto, createCustomer, grayPhoto, multipartBody, TINY_PDF, upload } from './helpers.js';

let env: TestEnv;
let p: TestPlatform;
let dir: string;
let customer: any;
beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'svc-docs-'));
  env = await createTestEnv({ DOCUMENT_STORAGE_DIR: dir });
  p = await env.platform();
  customer = await createCustomer(p, anIndividual({ fullName: 'Doc Holder003' }));
});
afterAll(async () => {
  await env.close();
  rmSync(dir, { recursive: true, force: true });
});

const D = `${BASE}/documents`;
const passport = (holder: string, extra: Record<string, string> = {}) => ({
  documentHolder: holder,
  documentType: 'PASSPORT',
  country: 'US',
  documentNumber: 'X12345678',
  issuingAuthority: 'US Department of State',
  ...extra,
});

describe('document upload', () => {
  it('stores a colour PNG through the local storage adapter and returns the document (201)', async () => {
    const bytes = await colourPhoto();
    const res = await upload(p, passport(customer.id), { fileName: 'passport.png', contentType: 'image/png', content: bytes });
    expect(res.statusCode).toBe(201);
    const doc = res.json();
    assertMatchesResponseSchema('POST', D, 201, doc);
    expect(doc).toMatchObject({ documentHolder: customer.id, documentType: 'PASSPORT', country: 'US', fileName: 'passport.png', documentNumber: '*****5678' });
    expect(doc.id).toMatch(/^Document:/);
    expect(readdirSync(dir, { recursive: true }).length).toBeGreaterThan(0);
    expect(Buffer.compare((await readDocumentFile(ctxFor(env.deps, p.platformId), doc.id))!, bytes)).toBe(0);
    const got = await p.request({ method: 'GET', url: `/documents/${doc.id}` });
    assertMatchesResponseSchema('GET', `${D}/{documentId}`, 200, got.json());
    const list = await p.request({ method: 'GET', url: `/documents?documentHolder=${encodeURIComponent(customer.id)}` });
    assertMatchesResponseSchema('GET', D, 200, list.json());
    expect(list.json().data.map((d: any) => d.id)).toContain(doc.id);
  });

  it('accepts a PDF and a JPEG, judging the type by the bytes (a PDF declared as image/png is a PDF)', async () => {
    const pdf = await upload(p, { documentHolder: customer.id, documentType: 'BANK_STATEMENT', country: 'US' }, { fileName: 'statement.png', contentType: 'image/png', content: TINY_PDF });
    expect(pdf.statusCode).toBe(201);
    const jpeg = await upload(p, passport(customer.id), { fileName: 'p.bin', contentType: 'application/octet-stream', content: await colourPhoto(700, 900, 'jpeg') });
    expect(jpeg.statusCode).toBe(201);
    const row = await env.deps.prisma.document.findFirstOrThrow({ where: { id: jpeg.json().id } });
    expect(row.contentType).toBe('image/jpeg');
  });

  it('rejects a text file renamed .png with 400 UNSUITABLE_DOCUMENT', async () => {
    const res = await upload(p, passport(customer.id), { fileName: 'photo.png', contentType: 'image/png', content: Buffer.from('just some text, not an image\n'.repeat(100)) });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'UNSUITABLE_DOCUMENT', details: { errors: [{ field: 'file' }] } });
    assertMatchesResponseSchema('POST', D, 400, res.json());
  });

  it('rejects an 11 MB file with 400 INVALID_INPUT naming file, and stores nothing', async () => {
    const before = await env.deps.prisma.document.count();
    const big = Buffer.alloc(11 * 1024 * 1024, 1);
    TINY_PDF.copy(big);
    const res = await upload(p, { documentHolder: customer.id, documentType: 'BANK_STATEMENT', country: 'US' }, { fileName: 'big.pdf', contentType: 'application/pdf', content: big });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'INVALID_INPUT', details: { errors: [{ field: 'file', constraint: { maxBytes: 10 * 1024 * 1024 } }] } });
    expect(await env.deps.prisma.document.count()).toBe(before);
  });

  it('is 422 DOCUMENT_REJECTED for a grayscale photo or one whose short side is under 600 px (decision A18)', async () => {
    const gray = await upload(p, passport(customer.id), { fileName: 'g.png', contentType: 'image/png', content: await grayPhoto() });
    expect(gray.statusCode).toBe(422);
    expect(gray.json()).toMatchObject({ code: 'DOCUMENT_REJECTED', details: { reason: 'NOT_IN_COLOUR' } });
    assertMatchesResponseSchema('POST', D, 422, gray.json());
    const small = await upload(p, passport(customer.id), { fileName: 's.png', contentType: 'image/png', content: await colourPhoto(1200, 599) });
    expect(small.statusCode).toBe(422);
    expect(small.json().details.reason).toBe('TOO_SMALL');
  });

  it('names every missing field: identity documents need documentNumber and issuingAuthority; licences and national ids a side', async () => {
    const res = await upload(p, { documentHolder: customer.id, documentType: 'DRIVERS_LICENSE', country: 'USA' }, { fileName: 'x.png', contentType: 'image/png', content: await colourPhoto() });
    expect(res.statusCode).toBe(400);
    expect(res.json().details.errors.map((e: any) => e.field).sort()).toEqual(['country', 'documentNumber', 'issuingAuthority', 'side']);
    const noFile = await upload(p, { documentHolder: customer.id, documentType: 'OTHER', country: 'US' });
    expect(noFile.json().details.errors.map((e: any) => e.field)).toEqual(['file']);
    const back = await upload(p, passport(customer.id, { side: 'BACK' }), { fileName: 'x.png', contentType: 'image/png', content: await colourPhoto() });
    expect(back.json().details.errors.map((e: any) => e.field)).toEqual(['side']);
  });

  it('is 404 for an unknown holder and 415 for a JSON body', async () => {
    const res = await upload(p, passport('Customer:00000000-0000-7000-8000-000000000000'), { fileName: 'x.png', contentType: 'image/png', content: await colourPhoto() });
    expect(res.statusCode).toBe(404);
    expect(res.json().code).toBe('USER_NOT_FOUND');
    const json = await p.request({ method: 'POST', url: '/documents', payload: { documentType: 'PASSPORT' } });
    expect(json.statusCode).toBe(415);
  });

  it('accepts documents of a beneficial owner', async () => {
    const biz = await createCustomer(p, aBusiness());
    const owner = (await p.request({ method: 'POST', url: '/beneficial-owners', payload: anOwner(biz.id) })).json();
    const res = await upload(p, passport(owner.id), { fileName: 'o.png', contentType: 'image/png', content: await colourPhoto() });
    expect(res.statusCode).toBe(201);
    expect(res.json().documentHolder).toBe(owner.id);
  });

  it('replays an upload with the same Idempotency-Key, and refuses the key for another file', async () => {
    const headers = { 'idempotency-key': 'doc-upload-1' };
    const photo = await colourPhoto();
    const a = await upload(p, passport(customer.id), { fileName: 'a.png', contentType: 'image/png', content: photo }, headers);
    const b = await upload(p, passport(customer.id), { fileName: 'a.png', contentType: 'image/png', content: photo }, headers);
    expect(b.statusCode).toBe(201);
    expect(b.json().id).toBe(a.json().id);
    expect(b.headers['idempotent-replayed']).toBe('true');
    const c = await upload(p, passport(customer.id), { fileName: 'a.png', contentType: 'image/png', content: await colourPhoto() }, headers);
    expect(c.statusCode).toBe(422);
    expect(c.json().code).toBe('IDEMPOTENCY_KEY_REUSED');
  });
});

describe('replacing and deleting documents', () => {
  it('PUT replaces file and metadata; DELETE is 204 and the document is gone', async () => {
    const doc = (await upload(p, passport(customer.id), { fileName: 'a.png', contentType: 'image/png', content: await colourPhoto() })).json();
    const body = multipartBody({ documentType: 'PASSPORT', country: 'CA', documentNumber: 'C7654321', issuingAuthority: 'IRCC' }, { fileName: 'b.pdf', contentType: 'application/pdf', content: TINY_PDF });
    const put = await p.request({ method: 'PUT', url: `/documents/${doc.id}`, payload: body.payload, headers: body.headers });
    expect(put.statusCode).toBe(200);
    assertMatchesResponseSchema('PUT', `${D}/{documentId}`, 200, put.json());
    expect(put.json()).toMatchObject({ id: doc.id, country: 'CA', fileName: 'b.pdf' });
    expect(Buffer.compare((await readDocumentFile(ctxFor(env.deps, p.platformId), doc.id))!, TINY_PDF)).toBe(0);
    const del = await p.request({ method: 'DELETE', url: `/documents/${doc.id}` });
    expect(del.statusCode).toBe(204);
    expect((await p.request({ method: 'GET', url: `/documents/${doc.id}` })).statusCode).toBe(404);
  });

  it('DELETE and PUT are 409 once the document was submitted for verification', async () => {
    const c = await createCustomer(p, anIndividual({ fullName: 'Sub Mitted003' }));
    const doc = (await upload(p, passport(c.id), { fileName: 'a.png', contentType: 'image/png', content: await colourPhoto() })).json();
    const v = await p.request({ method: 'POST', url: '/verifications', payload: { customerId: c.id } });
    expect(v.json().verificationStatus).toBe('IN_PROGRESS');
    const del = await p.request({ method: 'DELETE', url: `/documents/${doc.id}` });
    expect(del.statusCode).toBe(409);
    assertMatchesResponseSchema('DELETE', `${D}/{documentId}`, 409, del.json());
    const body = multipartBody(passport(c.id), { fileName: 'b.pdf', contentType: 'application/pdf', content: TINY_PDF });
    expect((await p.request({ method: 'PUT', url: `/documents/${doc.id}`, payload: body.payload, headers: body.headers })).statusCode).toBe(409);
  });
});
