import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TestEnv } from '../helpers/app.js';
import { listDocumentedOperations } from '../helpers/openapi.js';

let env: TestEnv;
beforeAll(async () => {
  env = await createTestEnv({ OPERATOR_USER: 'op', OPERATOR_PASSWORD: 'op-password-123' });
});
afterAll(() => env.close());

/** Framework-served asset routes that are not part of the API contract. */
const UNDOCUMENTED = [/^\/docs\/.+/, /^\/admin\/queues/, /^\/dashboard\/assets\//];

/** Fastify `:param` → OpenAPI `{param}`. */
const toTemplate = (url: string) => url.replace(/:([A-Za-z0-9_]+)/g, '{$1}').replace(/\/$/, '') || '/';

describe('openapi.yaml and the routes stay in step', () => {
  it('documents every route that exists, and nothing that does not', () => {
    const served = new Set(
      env.app.routeTable
        .filter((r) => r.method !== 'HEAD' && !UNDOCUMENTED.some((re) => re.test(r.url)))
        .map((r) => `${r.method} ${toTemplate(r.url)}`),
    );
    const documented = new Set(listDocumentedOperations().map((o) => `${o.method.toUpperCase()} ${o.path}`));
    expect([...served].filter((r) => !documented.has(r)).sort(), 'served but not documented').toEqual([]);
    expect([...documented].filter((r) => !served.has(r)).sort(), 'documented but not served').toEqual([]);
  });

  it('serves the document and the interactive docs rendered from it', async () => {
    const yaml = await env.app.inject({ method: 'GET', url: '/openapi.yaml' });
    expect(yaml.statusCode).toBe(200);
    expect(yaml.body).toMatch(/^openapi: 3\.1/m);
    const docs = await env.app.inject({ method: 'GET', url: '/docs' });
    expect(docs.statusCode).toBe(200);
    expect(docs.body).toContain('swagger-ui');
    const json = await env.app.inject({ method: 'GET', url: '/docs/json' });
    expect(json.json().paths['/config']).toBeDefined();
  });

  it('keeps the queue dashboard behind operator credentials', async () => {
    expect((await env.app.inject({ method: 'GET', url: '/admin/queues' })).statusCode).toBe(401);
    const wrong = `Basic ${Buffer.from('op:nope').toString('base64')}`;
    expect((await env.app.inject({ method: 'GET', url: '/admin/queues', headers: { authorization: wrong } })).statusCode).toBe(401);
    const right = `Basic ${Buffer.from('op:op-password-123').toString('base64')}`;
    const ok = await env.app.inject({ method: 'GET', url: '/admin/queues', headers: { authorization: right } });
    expect(ok.statusCode).toBe(200);
    expect(ok.body).toContain('<html');
  });
});
