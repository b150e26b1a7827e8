import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASE, createTestEnv, type TestEnv, type TestPlatform } from '../helpers/app.js';
import { forgetCredential } from '../../src/platform/http/auth.js';

let env: TestEnv;
let p: TestPlatform;

beforeAll(async () => {
  env = await createTestEnv();
  p = await env.platform();
});
afterAll(() => env.close());

const basic = (user: string, pass: string) => `Basic ${Buffer.from(`${user}:${pass}`).toString('base64')}`;

function expectUnauthorized(res: { statusCode: number; json(): any; headers: Record<string, unknown> }) {
  expect(res.statusCode).toBe(401);
  expect(res.json()).toEqual({ status: 401, code: 'UNAUTHORIZED', message: expect.any(String) });
  expect(res.headers['x-request-id']).toBeTruthy();
}

describe('platform Basic auth', () => {
  it('accepts the right client id and secret', async () => {
    const res = await env.app.inject({ method: 'GET', url: `${BASE}/config`, headers: { authorization: p.auth } });
    expect(res.statusCode).toBe(200);
    expect(res.json().id).toMatch(/^PlatformConfig:/);
  });

  it('refuses a wrong secret, also after a success was cached', async () => {
    await env.app.inject({ method: 'GET', url: `${BASE}/config`, headers: { authorization: p.auth } });
    expectUnauthorized(await env.app.inject({ method: 'GET', url: `${BASE}/config`, headers: { authorization: basic(p.clientId, `${p.clientSecret}x`) } }));
  });

  it('refuses an unknown client id', async () => {
    expectUnauthorized(await env.app.inject({ method: 'GET', url: `${BASE}/config`, headers: { authorization: basic('cli_unknown', p.clientSecret) } }));
  });

  it('refuses a malformed header', async () => {
    for (const authorization of ['Basic !!!notbase64', 'Basic', `Basic ${Buffer.from('no-colon').toString('base64')}`, 'Bearer abc', `Basic ${Buffer.from(':').toString('base64')}`]) {
      expectUnauthorized(await env.app.inject({ method: 'GET', url: `${BASE}/config`, headers: { authorization } }));
    }
  });

  it('refuses a missing header, on every API path including unknown ids', async () => {
    expectUnauthorized(await env.app.inject({ method: 'GET', url: `${BASE}/config` }));
    expectUnauthorized(await env.app.inject({ method: 'GET', url: `${BASE}/webhook-events/Webhook:x` }));
  });

  it('stores the secret only as a slow hash', async () => {
    const row = await env.deps.prisma.platformCredential.findFirstOrThrow({ where: { clientId: p.clientId } });
    expect(row.secretHash).toMatch(/^scrypt\$16384\$8\$1\$/);
    expect(row.secretHash).not.toContain(p.clientSecret);
  });

  it('a revoked credential stops working at once, cached or not', async () => {
    const q = await env.platform();
    expect((await q.request({ method: 'GET', url: '/config' })).statusCode).toBe(200);
    await env.deps.prisma.platformCredential.updateMany({ where: { clientId: q.clientId }, data: { revokedAt: new Date() } });
    await forgetCredential({ redis: env.deps.redis, redisPrefix: env.config.REDIS_PREFIX, bus: env.deps.bus }, q.clientId);
    expectUnauthorized(await q.request({ method: 'GET', url: '/config' }));
  });

  it('caches a verification so repeated calls skip the slow hash', async () => {
    const q = await env.platform();
    await q.request({ method: 'GET', url: '/config' });
    const cached = await env.deps.redis.hgetall(`${env.config.REDIS_PREFIX}:auth:${q.clientId}`);
    const values = Object.values(cached);
    expect(values).toHaveLength(1);
    expect(JSON.parse(values[0]!).platformId).toBe(q.platformId);
    expect(Object.keys(cached)[0]).not.toContain(q.clientSecret);
  });

  it('a credential without MANAGE cannot change configuration (403)', async () => {
    const q = await env.platform({ permissions: ['VIEW'] });
    const res = await q.request({ method: 'PATCH', url: '/config', payload: { umaDomain: 'example.com' } });
    expect(res.statusCode).toBe(403);
    expect(res.json().code).toBe('FORBIDDEN');
    expect((await q.request({ method: 'GET', url: '/config' })).statusCode).toBe(200);
  });

  it('operational endpoints need no credentials', async () => {
    expect((await env.app.inject({ method: 'GET', url: '/healthz' })).json()).toEqual({ status: 'ok' });
    const ready = await env.app.inject({ method: 'GET', url: '/readyz' });
    expect(ready.statusCode).toBe(200);
    expect(ready.json()).toEqual({ status: 'ok', checks: { postgres: 'ok', redis: 'ok' } });
  });
});
