import { createServer, type IncomingMessage } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { localStorage } from '../../src/adapters/storage/local/index.js';
import { s3Storage } from '../../src/adapters/storage/s3/index.js';
import { sha256Hex, signRequest } from '../../src/adapters/storage/s3/sigv4.js';
import { documentStorageFor } from '../../src/adapters/storage/index.js';
import { loadConfig } from '../../src/config.js';

const CREDS = { accessKeyId: 'AKIAIOSFODNN7EXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY', region: 'us-east-1', service: 's3' };
const AWS_DAY = new Date('2013-05-24T00:00:00Z');

describe('AWS Signature Version 4', () => {
  it("matches AWS's published GET Object example", () => {
    const headers = signRequest(
      { method: 'GET', url: new URL('https://examplebucket.s3.amazonaws.com/test.txt'), headers: { range: 'bytes=0-9' }, payloadHash: sha256Hex('') },
      CREDS,
      AWS_DAY,
    );
    expect(headers.authorization).toBe(
      'AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request,SignedHeaders=host;range;x-amz-content-sha256;x-amz-date,Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41',
    );
  });

  it("matches AWS's published PUT Object example", () => {
    const body = 'Welcome to Amazon S3.';
    const headers = signRequest(
      {
        method: 'PUT',
        url: new URL('https://examplebucket.s3.amazonaws.com/test$file.text'),
        headers: { date: 'Fri, 24 May 2013 00:00:00 GMT', 'x-amz-storage-class': 'REDUCED_REDUNDANCY' },
        payloadHash: sha256Hex(body),
      },
      CREDS,
      AWS_DAY,
    );
    expect(headers.authorization).toContain('Signature=98ad721746da40c64f1a55b78f14c238d841ea1380cd77a1b5971af0ece108bd');
  });
});

/** A loopback S3 stand-in: checks each request's signature the way S3 does, keeps objects in memory. */
async function s3Stub() {
  const objects = new Map<string, Buffer>();
  const seen: Array<{ method: string; url: string; ok: boolean }> = [];
  const server = createServer(async (req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks);
    const url = new URL(req.url!, `http://${req.headers.host}`);
    const signedNames = /SignedHeaders=([^,]+)/.exec(String(req.headers.authorization))?.[1]?.split(';') ?? [];
    const given: Record<string, string> = {};
    for (const n of signedNames) if (n !== 'host' && n !== 'x-amz-date' && n !== 'x-amz-content-sha256') given[n] = String(req.headers[n]);
    const date = String(req.headers['x-amz-date']);
    const when = new Date(`${date.slice(0, 4)}-${date.slice(4, 6)}-${date.slice(6, 8)}T${date.slice(9, 11)}:${date.slice(11, 13)}:${date.slice(13, 15)}Z`);
    const expected = signRequest({ method: req.method!, url, headers: given, payloadHash: sha256Hex(body) }, CREDS, when).authorization;
    const ok = expected === req.headers.authorization && req.headers['x-amz-content-sha256'] === sha256Hex(body);
    seen.push({ method: req.method!, url: url.pathname, ok });
    if (!ok) return res.writeHead(403).end('SignatureDoesNotMatch');
    if (req.method === 'PUT') return objects.set(url.pathname, body), res.writeHead(200).end();
    if (req.method === 'GET') return objects.has(url.pathname) ? res.writeHead(200).end(objects.get(url.pathname)) : res.writeHead(404).end('NoSuchKey');
    if (req.method === 'DELETE') return objects.delete(url.pathname), res.writeHead(204).end();
    res.writeHead(405).end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, objects, seen, endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

describe('document storage adapters', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'svc-store-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('local: puts, gets and deletes bytes unchanged; missing reads as undefined; keys cannot escape the directory', async () => {
    const s = localStorage(dir);
    await s.put('Platform_1/Document_1', Buffer.from('hello'), 'application/pdf');
    expect((await s.get('Platform_1/Document_1'))?.toString()).toBe('hello');
    await s.delete('Platform_1/Document_1');
    expect(await s.get('Platform_1/Document_1')).toBeUndefined();
    await s.delete('Platform_1/Document_1');
    await expect(s.put('../escape', Buffer.from('x'), 'text/plain')).rejects.toThrow(/invalid storage key/);
  });

  it('s3: PUT, GET and DELETE are signed requests an S3 endpoint accepts (path style)', async () => {
    const stub = await s3Stub();
    try {
      const s = s3Storage({ endpoint: stub.endpoint, region: 'us-east-1', bucket: 'docs', accessKeyId: CREDS.accessKeyId, secretAccessKey: CREDS.secretAccessKey, forcePathStyle: true, timeoutMs: 2000 });
      const bytes = Buffer.from([0, 1, 2, 255]);
      await s.put('Platform_1/Document_2', bytes, 'image/png');
      expect(stub.objects.get('/docs/Platform_1/Document_2')).toEqual(bytes);
      expect(await s.get('Platform_1/Document_2')).toEqual(bytes);
      await s.delete('Platform_1/Document_2');
      expect(await s.get('Platform_1/Document_2')).toBeUndefined();
      expect(stub.seen.map((r) => `${r.method} ${r.url} ${r.ok}`)).toEqual([
        'PUT /docs/Platform_1/Document_2 true',
        'GET /docs/Platform_1/Document_2 true',
        'DELETE /docs/Platform_1/Document_2 true',
        'GET /docs/Platform_1/Document_2 true',
      ]);
      const wrong = s3Storage({ endpoint: stub.endpoint, region: 'us-east-1', bucket: 'docs', accessKeyId: CREDS.accessKeyId, secretAccessKey: 'nope', forcePathStyle: true, timeoutMs: 2000 });
      await expect(wrong.put('k', bytes, 'image/png')).rejects.toThrow(/HTTP 403/);
    } finally {
      stub.server.close();
    }
  });

  it('DOCUMENT_STORAGE=s3 without bucket and keys stops start-up', () => {
    const config = loadConfig({ DATABASE_URL: 'postgresql://x', REDIS_URL: 'redis://x', DOCUMENT_STORAGE: 's3' });
    expect(() => documentStorageFor(config)).toThrow(/S3_BUCKET: is required/);
  });
});
