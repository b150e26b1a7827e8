import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { BASE, createTestEnv, type TestEnv, type TestPlatform } from '../helpers/app.js';
import { parseInput } from '../../src/platform/http/validate.js';
import { assertMatchesResponseSchema } from '../helpers/openapi.js';

let env: TestEnv;
let p: TestPlatform;

beforeAll(async () => {
  env = await createTestEnv({ BODY_LIMIT_BYTES: '2048' }, { extend: (app) => {
    // Test-only routes: a crash, and a validator with nested and array fields.
    app.get('/boom', async () => {
      throw new Error('secret internal detail');
    });
    app.post('/echo', async (req) =>
      parseInput(
        z.object({
          name: z.string().min(2),
          address: z.object({ country: z.string().length(2), postalCode: z.string() }),
          tags: z.array(z.enum(['A', 'B'])),
          amount: z.number().int(),
        }),
        req.body,
      ),
    );
  } });
  p = await env.platform();
});
afterAll(() => env.close());

function expectErrorBody(res: { statusCode: number; json(): any; headers: Record<string, unknown> }, status: number, code: string) {
  expect(res.statusCode).toBe(status);
  const body = res.json();
  expect(body).toMatchObject({ status, code, message: expect.any(String) });
  expect(res.headers['content-type']).toMatch(/application\/json/);
  expect(res.headers['x-request-id']).toBeTruthy();
  return body;
}

describe('error bodies', () => {
  it('an unknown route is 404 NOT_FOUND in the spec body', async () => {
    expectErrorBody(await p.request({ method: 'GET', url: '/no-such-thing' }), 404, 'NOT_FOUND');
    expectErrorBody(await env.app.inject({ method: 'GET', url: '/nowhere' }), 404, 'NOT_FOUND');
  });

  it('a known path with the wrong method is 405 METHOD_NOT_ALLOWED with Allow', async () => {
    const res = await p.request({ method: 'DELETE', url: '/config' });
    expectErrorBody(res, 405, 'METHOD_NOT_ALLOWED');
    expect(res.headers.allow).toContain('GET');
    expect(res.headers.allow).toContain('PATCH');
  });

  it('malformed JSON is 400 INVALID_INPUT', async () => {
    const body = expectErrorBody(
      await p.request({ method: 'PATCH', url: '/config', headers: { 'content-type': 'application/json' }, payload: '{"umaDomain": ' }),
      400,
      'INVALID_INPUT',
    );
    expect(body.details.errors[0].field).toBe('(body)');
  });

  it('a wrong content type is 415', async () => {
    expectErrorBody(await p.request({ method: 'PATCH', url: '/config', headers: { 'content-type': 'text/plain' }, payload: 'hello' }), 415, 'UNSUPPORTED_MEDIA_TYPE');
    expectErrorBody(await p.request({ method: 'PATCH', url: '/config', headers: { 'content-type': 'application/xml' }, payload: '<a/>' }), 415, 'UNSUPPORTED_MEDIA_TYPE');
  });

  it('an oversized body is 413', async () => {
    const res = await p.request({ method: 'PATCH', url: '/config', payload: { umaDomain: 'x'.repeat(5000) } });
    expectErrorBody(res, 413, 'PAYLOAD_TOO_LARGE');
  });

  it('names every invalid field at once with dot paths and constraints', async () => {
    const res = await env.app.inject({ method: 'POST', url: '/echo', payload: { name: 'x', address: { country: 'USA' }, tags: ['A', 'C'], amount: 1.5 } });
    const body = expectErrorBody(res, 400, 'INVALID_INPUT');
    const byField = Object.fromEntries(body.details.errors.map((e: any) => [e.field, e]));
    expect(Object.keys(byField).sort()).toEqual(['address.country', 'address.postalCode', 'amount', 'name', 'tags[1]']);
    expect(byField['name'].constraint).toEqual({ minLength: 2 });
    expect(byField['address.postalCode'].message).toBe('Required.');
    expect(byField['tags[1]'].constraint).toEqual({ enum: ['A', 'B'] });
  });

  it('an unexpected exception is 500 INTERNAL_ERROR naming only the request id', async () => {
    const res = await env.app.inject({ method: 'GET', url: '/boom', headers: { 'x-request-id': 'trace-123' } });
    const body = expectErrorBody(res, 500, 'INTERNAL_ERROR');
    expect(body.details).toEqual({ requestId: 'trace-123' });
    expect(res.body).not.toContain('secret internal detail');
    expect(res.body).not.toContain('at ');
    expect(res.headers['x-request-id']).toBe('trace-123');
  });

  it('every response carries a request id, generated when none is given', async () => {
    const res = await p.request({ method: 'GET', url: '/config' });
    expect(res.headers['x-request-id']).toMatch(/^req_[0-9a-f-]{36}$/);
  });

  it('error bodies match the documented Error schema', async () => {
    const res = await p.request({ method: 'GET', url: '/webhook-events/Webhook:nope' });
    expect(res.statusCode).toBe(404);
    assertMatchesResponseSchema('GET', `${BASE}/webhook-events/{eventId}`, 404, res.json());
  });
});

describe('rate limit', () => {
  it('answers 429 RATE_LIMITED with Retry-After past the per-credential limit, counted in Redis', async () => {
    const limited = await createTestEnv({ RATE_LIMIT_MAX: '3' });
    try {
      const q = await limited.platform();
      const other = await limited.platform();
      for (let i = 0; i < 3; i++) expect((await q.request({ method: 'GET', url: '/config' })).statusCode).toBe(200);
      const res = await q.request({ method: 'GET', url: '/config' });
      const body = expectErrorBody(res, 429, 'RATE_LIMITED');
      expect(body.status).toBe(429);
      expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
      // Another credential has its own budget.
      expect((await other.request({ method: 'GET', url: '/config' })).statusCode).toBe(200);
    } finally {
      await limited.close();
    }
  });
});
