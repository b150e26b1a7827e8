import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, eventually, type TestEnv, type TestPlatform } from '../helpers/app.js';
import type { RunningWorkers } from '../../src/workers.js';

let env: TestEnv;
let workers: RunningWorkers;
beforeAll(async () => {
  env = await createTestEnv();
  workers = env.startWorkers();
});
afterAll(async () => {
  await workers.close();
  await env.close();
});

const BOUNDARY = '----svcbulk';
function multipart(csv: string, name = 'file', extra: Record<string, string> = {}): { payload: Buffer; headers: Record<string, string> } {
  let body = '';
  for (const [k, v] of Object.entries(extra)) body += `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`;
  body += `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"; filename="customers.csv"\r\nContent-Type: text/csv\r\n\r\n${csv}\r\n--${BOUNDARY}--\r\n`;
  return { payload: Buffer.from(body), headers: { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` } };
}

const upload = (p: TestPlatform, csv: string, name?: string, extra?: Record<string, string>) => p.request({ method: 'POST', url: '/customers/bulk/csv', ...multipart(csv, name, extra) });

async function finished(p: TestPlatform, jobId: string) {
  return eventually(async () => {
    const j = (await p.request({ method: 'GET', url: `/customers/bulk/jobs/${jobId}` })).json();
    return j.status === 'COMPLETED' || j.status === 'FAILED' ? j : undefined;
  }, 30_000);
}

const HEADER = 'umaAddress,platformCustomerId,customerType,fullName,birthDate,addressLine1,city,state,postalCode,country,platformAccountId,businessLegalName';

describe('POST /customers/bulk/csv and GET /customers/bulk/jobs/{jobId} (customers.bulk.*)', () => {
  it('creates every valid row as a whole customer, reports the others per row, and shows progress', async () => {
    const p = await env.platform();
    const csv = [
      HEADER,
      'john.doe@uma.domain.com,customer123,INDIVIDUAL,John Doe,1990-01-15,123 Main St,San Francisco,CA,94105,US,,',
      '$jane@uma.domain.com,customer124,INDIVIDUAL,Jane Roe,1991-02-16,1 Side St,Austin,TX,78701,US,acct-1,',
      'bad@uma.domain.com,customer125,INDIVIDUAL,No Birth,2999-01-01,1 Side St,Austin,TX,78701,US,,',
      'acme@uma.domain.com,biz456,BUSINESS,,,400 Commerce Way,Austin,TX,78701,US,,Acme Inc',
    ].join('\n');
    const res = await upload(p, csv);
    expect(res.statusCode, res.body).toBe(202);
    expect(res.json()).toEqual({ jobId: expect.stringMatching(/^BulkCustomerImport:/), status: 'PENDING' });
    const job = await finished(p, res.json().jobId);
    expect(job).toMatchObject({ id: res.json().jobId, status: 'COMPLETED', progress: { total: 4, processed: 4, successful: 2, failed: 2 }, completedAt: expect.any(String) });
    expect(job.errors.map((e: any) => e.correlationId).sort()).toEqual(['biz456', 'customer125']);
    expect(job.errors.find((e: any) => e.correlationId === 'customer125')).toMatchObject({ code: 'INVALID_INPUT', details: { errors: [expect.objectContaining({ field: 'birthDate' })] } });
    const listed = (await p.request({ method: 'GET', url: '/customers?platformCustomerId=customer123' })).json();
    expect(listed.data).toHaveLength(1);
    expect(listed.data[0]).toMatchObject({ umaAddress: '$john.doe@uma.domain.com', fullName: 'John Doe' });
    // Never half-created: no customer, and no internal account, for the failed rows.
    expect(await env.deps.prisma.customer.count({ where: { platformId: p.platformId, platformCustomerId: { in: ['customer125', 'biz456'] } } })).toBe(0);
    expect(await env.deps.prisma.customer.count({ where: { platformId: p.platformId } })).toBe(2);
    const done = await eventually(async () => (await env.deps.prisma.webhookEvent.findMany({ where: { platformId: p.platformId, type: 'BULK_UPLOAD.COMPLETED' } })).at(0));
    expect(done.data).toMatchObject({ id: job.id, status: 'COMPLETED' });
  });

  it('a duplicate UMA address in the file fails its second row only', async () => {
    const p = await env.platform();
    const row = (id: string) => `same@uma.domain.com,${id},INDIVIDUAL,Sam Same,1990-01-15,1 Main St,Boston,MA,02110,US,,`;
    const job = await finished(p, (await upload(p, [HEADER, row('s1'), row('s2')].join('\n'))).json().jobId);
    expect(job.progress).toEqual({ total: 2, processed: 2, successful: 1, failed: 1 });
    expect(job.errors).toEqual([expect.objectContaining({ correlationId: 's2' })]);
  });

  it('refuses a file with unknown or missing columns, no rows, malformed CSV, or no file part', async () => {
    const p = await env.platform();
    const unknown = await upload(p, 'umaAddress,platformCustomerId,customerType,shoeSize\n$a@b.c,x,INDIVIDUAL,42');
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().details.errors.map((e: any) => e.field)).toEqual(['file.columns.shoeSize']);
    const missing = await upload(p, 'umaAddress,fullName\n$a@b.c,Al');
    expect(missing.json().details.errors.map((e: any) => e.field)).toEqual(['file.columns.platformCustomerId', 'file.columns.customerType']);
    const empty = await upload(p, HEADER);
    expect(empty.statusCode).toBe(400);
    expect(empty.json().details.errors[0].field).toBe('file');
    const ragged = await upload(p, `${HEADER}\n$a@b.c,x`);
    expect(ragged.statusCode).toBe(400);
    expect(ragged.json().details.errors[0].field).toBe('file');
    const wrongPart = await upload(p, `${HEADER}\n`, 'document');
    expect(wrongPart.statusCode).toBe(400);
    const extraField = await upload(p, `${HEADER}\n`, 'file', { mode: 'fast' });
    expect(extraField.json().details.errors[0].field).toBe('mode');
    const json = await p.request({ method: 'POST', url: '/customers/bulk/csv', payload: { file: 'x' } });
    expect(json.statusCode).toBe(415);
    expect(await env.deps.prisma.bulkCustomerImport.count({ where: { platformId: p.platformId } })).toBe(0);
  });

  it('an unknown or another platform\'s job is 404 BULK_UPLOAD_JOB_NOT_FOUND', async () => {
    const p = await env.platform();
    const other = await env.platform();
    const jobId = (await upload(p, `${HEADER}\nx@uma.domain.com,c1,INDIVIDUAL,Xe Ye,1990-01-15,1 Main St,Boston,MA,02110,US,,`)).json().jobId;
    for (const url of [`/customers/bulk/jobs/${jobId}`, '/customers/bulk/jobs/BulkCustomerImport:0190d2c5-0000-7000-8000-000000000000']) {
      const res = await other.request({ method: 'GET', url });
      expect(res.statusCode).toBe(404);
      expect(res.json().code).toBe('BULK_UPLOAD_JOB_NOT_FOUND');
    }
    await finished(p, jobId);
  });
});
