import { createServer, type IncomingMessage } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
// s3rver: a local fake S3 that checks SigV4 signatures (keys S3RVER/S3RVER) and keeps objects on disk.
import S3rver from 's3rver';
import { localStorage } from '../../src/adapters/storage/local/index.js';
import { s3Storage } from '../../src/adapters/storage/s3/index.js';
import { documentStorageFor } from '../../src/adapters/storage/index.js';
import { loadConfig } from '../../src/config.js';
import { describeStorageContract } from '../contracts/storage.contract.js';

async function startS3rver() {
  const dir = mkdtempSync(path.join(tmpdir(), 'svc-s3rver-'));
  const server = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory: dir, configureBuckets: [{ name: 'docs', configs: [] }] });
  const { port } = (await server.run()) as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    async close() {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

// The contract every storage meets, run against the SDK-based adapter and a real (fake) S3 endpoint.
describeStorageContract('s3 (AWS SDK v3 against s3rver)', async () => {
  const s3 = await startS3rver();
  const adapter = s3Storage({ endpoint: s3.endpoint, region: 'us-east-1', bucket: 'docs', accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER', forcePathStyle: true, timeoutMs: 5000 });
  return { adapter, close: () => s3.close() };
});

/** A loopback endpoint that records requests and answers from a script (for what s3rver cannot show). */
async function scriptedEndpoint(script: number[]) {
  const seen: Array<{ method: string; url: string; headers: IncomingMessage['headers'] }> = [];
  const server = createServer(async (req, res) => {
    for await (const _ of req) void _;
    seen.push({ method: req.method!, url: req.url!, headers: req.headers });
    const status = script.shift() ?? 200;
    res.writeHead(status, { 'content-type': 'application/xml' }).end(status >= 500 ? '<Error><Code>SlowDown</Code><Message>slow down</Message></Error>' : '');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { seen, endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => new Promise<void>((r) => server.close(() => r())) };
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

  it('s3: an unknown access key is refused by the endpoint', async () => {
    const s3 = await startS3rver();
    try {
      const wrong = s3Storage({ endpoint: s3.endpoint, region: 'us-east-1', bucket: 'docs', accessKeyId: 'NOT-A-KEY', secretAccessKey: 'nope', forcePathStyle: true, timeoutMs: 5000, maxAttempts: 1 });
      await expect(wrong.put('k', Buffer.from('x'), 'image/png')).rejects.toThrow(/S3 PUT failed: HTTP 403/);
      await wrong.close?.();
    } finally {
      await s3.close();
    }
  });

  it('s3: temporary credentials carry their session token; a 503 is retried by the SDK', async () => {
    const ep = await scriptedEndpoint([503, 200]);
    try {
      const s = s3Storage({ endpoint: ep.endpoint, region: 'eu-west-1', bucket: 'docs', accessKeyId: 'ASIAEXAMPLE', secretAccessKey: 'secret', sessionToken: 'session-token-from-sts', forcePathStyle: true, timeoutMs: 10_000 });
      await s.put('Platform_1/Document_9', Buffer.from('pdf'), 'application/pdf');
      expect(ep.seen.map((r) => `${r.method} ${r.url}`)).toEqual(['PUT /docs/Platform_1/Document_9?x-id=PutObject', 'PUT /docs/Platform_1/Document_9?x-id=PutObject']);
      for (const r of ep.seen) {
        expect(r.headers['x-amz-security-token']).toBe('session-token-from-sts');
        expect(String(r.headers.authorization)).toMatch(/^AWS4-HMAC-SHA256 Credential=ASIAEXAMPLE\/\d{8}\/eu-west-1\/s3\/aws4_request/);
      }
      await s.close?.();
    } finally {
      await ep.close();
    }
  });

  it('DOCUMENT_STORAGE=s3 without a bucket stops start-up; keys are optional (IAM roles) but come in pairs', () => {
    const base = { DATABASE_URL: 'postgresql://x', REDIS_URL: 'redis://x', DOCUMENT_STORAGE: 's3' };
    expect(() => documentStorageFor(loadConfig(base))).toThrow(/S3_BUCKET: is required/);
    expect(() => documentStorageFor(loadConfig({ ...base, S3_BUCKET: 'b', S3_ACCESS_KEY_ID: 'AKIA' }))).toThrow(/set both or neither/);
    expect(documentStorageFor(loadConfig({ ...base, S3_BUCKET: 'b' })).id).toBe('s3');
  });
});
