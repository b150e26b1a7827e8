import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TestEnv, type TestPlatform } from '../helpers/app.js';

const lines: string[] = [];
let env: TestEnv;
let p: TestPlatform;

beforeAll(async () => {
  env = await createTestEnv({ LOG_LEVEL: 'info' }, { logStream: { write: (s) => lines.push(s) } });
  p = await env.platform();
});
afterAll(() => env.close());

const logged = () => lines.map((l) => JSON.parse(l));

describe('logging', () => {
  it('writes one line per request with request id, platform, route, status and latency', async () => {
    lines.length = 0;
    const res = await p.request({ method: 'GET', url: '/config', headers: { 'x-request-id': 'log-test-1' } });
    expect(res.statusCode).toBe(200);
    const reqLines = logged().filter((l) => l.reqId === 'log-test-1');
    expect(reqLines).toHaveLength(1);
    // Exactly one reqId key on every line of the request (JSON.parse would hide a duplicate).
    for (const raw of lines.filter((l) => l.includes('log-test-1'))) expect(raw.match(/"reqId":/g)).toHaveLength(1);
    expect(reqLines[0]).toMatchObject({ msg: 'request', platformId: p.platformId, method: 'GET', route: '/2025-10-13/config', status: 200, latencyMs: expect.any(Number) });
  });

  it('never writes credentials or request bodies', async () => {
    lines.length = 0;
    await p.request({ method: 'PATCH', url: '/config', payload: { umaDomain: 'secret-domain.example.com' } });
    await env.app.inject({ method: 'GET', url: '/2025-10-13/config', headers: { authorization: `Basic ${Buffer.from(`${p.clientId}:wrong-secret-xyz`).toString('base64')}` } });
    const all = lines.join('');
    expect(all).not.toContain(p.clientSecret);
    expect(all).not.toContain('wrong-secret-xyz');
    expect(all).not.toContain(p.auth.slice(6));
    expect(all).not.toContain('secret-domain.example.com');
  });

  it('redacts PII fields of any object a module logs', () => {
    lines.length = 0;
    env.deps.logger.info(
      { customer: { identifier: '123-45-6789', birthDate: '1990-01-02', phoneNumber: '+4915112345678', accountInfo: { accountNumber: '000123456789', iban: 'DE89370400440532013000' } } },
      'pii check',
    );
    const out = lines.join('');
    for (const secret of ['123-45-6789', '1990-01-02', '+4915112345678', '000123456789', 'DE89370400440532013000']) expect(out).not.toContain(secret);
    expect(out).toContain('[REDACTED]');
  });
});
