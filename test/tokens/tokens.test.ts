import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASE, createTestEnv, type TestEnv, type TestPlatform } from '../helpers/app.js';
import { assertMatchesResponseSchema } from '../helpers/openapi.js';
import { verifyCredentials } from '../../src/platform/http/auth.js';

let env: TestEnv;
let p: TestPlatform;

beforeAll(async () => {
  env = await createTestEnv();
  p = await env.platform();
});
afterAll(() => env.close());

const basic = (user: string, pass: string) => `Basic ${Buffer.from(`${user}:${pass}`).toString('base64')}`;

async function call(auth: string, method: 'GET' | 'POST' | 'DELETE' | 'PATCH', url: string, payload?: unknown) {
  const res = await env.app.inject({ method, url: `${BASE}${url}`, headers: { authorization: auth }, ...(payload !== undefined ? { payload: payload as object } : {}) });
  if (res.statusCode < 500 && res.body) assertMatchesResponseSchema(method, `${BASE}${url.split('?')[0]}`, res.statusCode, res.json());
  return res;
}

async function newToken(owner: TestPlatform, name: string, permissions: string[]) {
  const res = await call(owner.auth, 'POST', '/tokens', { name, permissions });
  expect(res.statusCode).toBe(201);
  const t = res.json();
  return { ...t, auth: basic(t.clientId, t.clientSecret) } as { id: string; clientId: string; clientSecret: string; permissions: string[]; auth: string };
}

describe('API tokens', () => {
  it('creates a token whose secret is shown once, hashed at rest, usable at once', async () => {
    const res = await call(p.auth, 'POST', '/tokens', { name: 'Reporting', permissions: ['VIEW', 'VIEW'] });
    expect(res.statusCode).toBe(201);
    expect(res.headers['cache-control']).toBe('no-store');
    const t = res.json();
    expect(t).toEqual({
      id: expect.stringMatching(/^Token:[0-9a-f-]{36}$/),
      name: 'Reporting',
      permissions: ['VIEW'],
      clientId: expect.stringMatching(/^cli_/),
      clientSecret: expect.stringMatching(/^sec_/),
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    const row = await env.deps.prisma.platformCredential.findFirstOrThrow({ where: { id: t.id } });
    expect(row.secretHash).toMatch(/^scrypt\$16384\$8\$1\$/);
    expect(row.secretHash).not.toContain(t.clientSecret);
    const got = await call(basic(t.clientId, t.clientSecret), 'GET', '/config');
    expect(got.statusCode).toBe(200);
    const read = await call(p.auth, 'GET', `/tokens/${t.id}`);
    expect(read.statusCode).toBe(200);
    expect(read.json()).not.toHaveProperty('clientSecret');
    expect(read.json()).toMatchObject({ id: t.id, name: 'Reporting', permissions: ['VIEW'], clientId: t.clientId });
  });

  it('orders permissions canonically and validates the body', async () => {
    const t = await newToken(p, 'All', ['MANAGE', 'VIEW', 'TRANSACT']);
    expect(t.permissions).toEqual(['VIEW', 'TRANSACT', 'MANAGE']);
    for (const [body, field] of [
      [{ name: 'x', permissions: [] }, 'permissions'],
      [{ name: 'x', permissions: ['ADMIN'] }, 'permissions[0]'],
      [{ name: '', permissions: ['VIEW'] }, 'name'],
      [{ permissions: ['VIEW'] }, 'name'],
      [{ name: 'x', permissions: ['VIEW'], extra: 1 }, 'extra'],
    ] as const) {
      const res = await call(p.auth, 'POST', '/tokens', body);
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ status: 400, code: 'INVALID_INPUT', details: { errors: [expect.objectContaining({ field })] } });
    }
  });

  it('lists live tokens newest first with cursor pagination and filters', async () => {
    const q = await env.platform({ credentialName: 'Initial' });
    const made = [];
    for (const name of ['a', 'b', 'c']) made.push(await newToken(q, name, ['VIEW']));
    const first = await call(q.auth, 'GET', '/tokens?limit=2');
    expect(first.statusCode).toBe(200);
    expect(first.json().data.map((t: any) => t.name)).toEqual(['c', 'b']);
    expect(first.json().hasMore).toBe(true);
    expect(first.json().data[0]).not.toHaveProperty('clientSecret');
    const second = await call(q.auth, 'GET', `/tokens?limit=2&cursor=${first.json().nextCursor}`);
    expect(second.json().data.map((t: any) => t.name)).toEqual(['a', 'Initial']);
    expect(second.json().hasMore).toBe(false);
    expect(second.json().data[1].id).toMatch(/^Token:/);
    const named = await call(q.auth, 'GET', '/tokens?name=b');
    expect(named.json().data.map((t: any) => t.id)).toEqual([made[1]!.id]);
    const after = await call(q.auth, 'GET', `/tokens?createdAfter=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`);
    expect(after.json().data).toEqual([]);
    const bad = await call(q.auth, 'GET', '/tokens?createdAfter=yesterday');
    expect(bad.statusCode).toBe(400);
    const unknown = await call(q.auth, 'GET', '/tokens?colour=red');
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().details.errors[0].field).toBe('colour');
  });

  it('delete revokes at once, also a cached success, and is then 404', async () => {
    const t = await newToken(p, 'Rotating', ['VIEW', 'TRANSACT']);
    expect((await call(t.auth, 'GET', '/config')).statusCode).toBe(200);
    expect((await call(t.auth, 'GET', '/config')).statusCode).toBe(200); // served from the auth cache
    const del = await call(p.auth, 'DELETE', `/tokens/${t.id}`);
    expect(del.statusCode).toBe(204);
    const refused = await call(t.auth, 'GET', '/config');
    expect(refused.statusCode).toBe(401);
    expect(refused.json().code).toBe('UNAUTHORIZED');
    expect((await call(p.auth, 'GET', `/tokens/${t.id}`)).json()).toMatchObject({ status: 404, code: 'TOKEN_NOT_FOUND' });
    expect((await call(p.auth, 'DELETE', `/tokens/${t.id}`)).statusCode).toBe(404);
    const listed = await call(p.auth, 'GET', '/tokens?limit=100');
    expect(listed.json().data.map((x: any) => x.id)).not.toContain(t.id);
  });

  it('a verification racing with a delete does not leave the secret cached', async () => {
    const t = await newToken(p, 'Race', ['VIEW']);
    const deps = { prisma: env.deps.prisma, redis: env.deps.redis, redisPrefix: env.config.REDIS_PREFIX, cacheTtlSeconds: 60, cacheKey: 'k' };
    // The revocation commits after this process read the row, and drops the cache before it writes:
    // simulated by revoking in the database without touching Redis, then verifying.
    await env.deps.prisma.platformCredential.updateMany({ where: { id: t.id }, data: { revokedAt: new Date() } });
    await expect(verifyCredentials(deps, t.clientId, t.clientSecret)).rejects.toMatchObject({ status: 401 });
    expect(await env.deps.redis.exists(`${env.config.REDIS_PREFIX}:auth:${t.clientId}`)).toBe(0);
  });

  it('rotates credentials without downtime: new token works before the old one is deleted', async () => {
    const q = await env.platform();
    const next = await newToken(q, 'Next', ['VIEW', 'TRANSACT', 'MANAGE']);
    expect((await call(q.auth, 'GET', '/config')).statusCode).toBe(200);
    expect((await call(next.auth, 'GET', '/config')).statusCode).toBe(200);
    expect((await call(next.auth, 'DELETE', `/tokens/${q.credentialId}`)).statusCode).toBe(204);
    expect((await call(q.auth, 'GET', '/config')).statusCode).toBe(401);
    expect((await call(next.auth, 'GET', '/config')).statusCode).toBe(200);
  });

  it('refuses to delete the last MANAGE token, even concurrently', async () => {
    const q = await env.platform();
    const last = await call(q.auth, 'DELETE', `/tokens/${q.credentialId}`);
    expect(last.statusCode).toBe(409);
    expect(last.json()).toMatchObject({ status: 409, code: 'CONFLICT', details: { tokenId: q.credentialId } });
    expect((await call(q.auth, 'GET', '/config')).statusCode).toBe(200);
    // A token may delete itself when another MANAGE token remains.
    const other = await newToken(q, 'Other admin', ['MANAGE']);
    const viewer = await newToken(q, 'Viewer', ['VIEW']);
    const [a, b] = await Promise.all([call(q.auth, 'DELETE', `/tokens/${other.id}`), call(other.auth, 'DELETE', `/tokens/${q.credentialId}`)]);
    // Exactly one wins; the loser is refused as the last MANAGE token (409) or, when its own token
    // was already revoked by the winner, as unauthenticated (401).
    expect([a.statusCode, b.statusCode].filter((s) => s === 204)).toHaveLength(1);
    expect([401, 409]).toContain(a.statusCode === 204 ? b.statusCode : a.statusCode);
    const listed = await call(a.statusCode === 204 ? q.auth : other.auth, 'GET', '/tokens');
    expect(listed.json().data.filter((t: any) => t.permissions.includes('MANAGE'))).toHaveLength(1);
    // Deleting a non-MANAGE token is always allowed.
    expect((await call(a.statusCode === 204 ? q.auth : other.auth, 'DELETE', `/tokens/${viewer.id}`)).statusCode).toBe(204);
  });

  it('enforces permissions: managing tokens needs MANAGE, GET needs VIEW, other methods TRANSACT', async () => {
    const viewer = await newToken(p, 'Viewer', ['VIEW']);
    const trader = await newToken(p, 'Trader', ['TRANSACT']);
    for (const [method, url] of [['POST', '/tokens'], ['GET', '/tokens'], ['GET', `/tokens/${viewer.id}`], ['DELETE', `/tokens/${viewer.id}`]] as const) {
      const res = await call(viewer.auth, method, url, method === 'POST' ? { name: 'x', permissions: ['VIEW'] } : undefined);
      expect(res.statusCode).toBe(403);
      expect(res.json()).toMatchObject({ status: 403, code: 'FORBIDDEN' });
    }
    expect((await call(viewer.auth, 'GET', '/customers')).statusCode).toBe(200);
    expect((await call(viewer.auth, 'POST', '/customers', { customerType: 'INDIVIDUAL', platformCustomerId: 'v1' })).statusCode).toBe(403);
    expect((await call(viewer.auth, 'PATCH', '/config', {})).statusCode).toBe(403);
    expect((await call(trader.auth, 'GET', '/customers')).statusCode).toBe(403);
    expect((await call(trader.auth, 'PATCH', '/config', {})).statusCode).toBe(403);
  });

  it('GET /tokens/current returns the calling token to any credential', async () => {
    const trader = await newToken(p, 'Only transact', ['TRANSACT']);
    const me = await call(trader.auth, 'GET', '/tokens/current');
    expect(me.statusCode).toBe(200);
    expect(me.json()).toMatchObject({ id: trader.id, name: 'Only transact', permissions: ['TRANSACT'], clientId: trader.clientId });
    expect(me.json()).not.toHaveProperty('clientSecret');
    const first = await call(p.auth, 'GET', '/tokens/current');
    expect(first.json()).toMatchObject({ id: p.credentialId, name: 'Platform credential', permissions: ['VIEW', 'TRANSACT', 'MANAGE'] });
  });

  it('another platform\'s token is not found', async () => {
    const q = await env.platform();
    const t = await newToken(q, 'Theirs', ['VIEW']);
    expect((await call(p.auth, 'GET', `/tokens/${t.id}`)).statusCode).toBe(404);
    expect((await call(p.auth, 'DELETE', `/tokens/${t.id}`)).statusCode).toBe(404);
    expect((await call(t.auth, 'GET', '/config')).statusCode).toBe(200);
    const listed = await call(p.auth, 'GET', '/tokens?limit=100');
    expect(listed.json().data.map((x: any) => x.id)).not.toContain(t.id);
  });
});
