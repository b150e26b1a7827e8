import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASE, createTestEnv, type TestEnv } from '../helpers/app.js';

// How the API process serves the built dashboard (src/platform/http/dashboard.ts), and the 401
// form script clients get.
let built: TestEnv;
let missing: TestEnv;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'svc-dash-serving-'));
  mkdirSync(path.join(dir, 'assets'));
  writeFileSync(path.join(dir, 'index.html'), '<meta name="svc-api-base" content="__SVC_API_BASE__"><meta name="svc-idle-minutes" content="__SVC_IDLE_MINUTES__"><script type="module" src="/dashboard/assets/app-1234.js"></script>');
  writeFileSync(path.join(dir, 'assets', 'app-1234.js'), 'console.log(1)');
  built = await createTestEnv({ DASHBOARD_DIR: dir, DASHBOARD_IDLE_MINUTES: '7' });
  missing = await createTestEnv({ DASHBOARD_DIR: path.join(dir, 'nope') });
});
afterAll(async () => {
  await built.close();
  await missing.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('GET /dashboard', () => {
  it('serves the page without credentials, with the API base path and idle timeout filled in and strict headers', async () => {
    const res = await built.app.inject({ method: 'GET', url: '/dashboard' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('text/html');
    expect(res.body).toContain(`content="${BASE}"`);
    expect(res.body).toContain('name="svc-idle-minutes" content="7"');
    expect(res.headers['content-security-policy']).toContain("default-src 'self'");
    expect(res.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers['referrer-policy']).toBe('no-referrer');
    expect((await built.app.inject({ method: 'GET', url: '/dashboard/' })).statusCode).toBe(200);
  });

  it('serves hashed assets for good, and nothing outside the assets directory', async () => {
    const asset = await built.app.inject({ method: 'GET', url: '/dashboard/assets/app-1234.js' });
    expect(asset.statusCode).toBe(200);
    expect(asset.body).toBe('console.log(1)');
    expect(asset.headers['cache-control']).toContain('immutable');
    expect((await built.app.inject({ method: 'GET', url: '/dashboard/assets/missing.js' })).statusCode).toBe(404);
    const escape = await built.app.inject({ method: 'GET', url: '/dashboard/assets/..%2Findex.html' });
    expect(escape.statusCode).toBeGreaterThanOrEqual(400);
    expect(escape.body).not.toContain('svc-api-base');
  });

  it('answers 503 with a hint when the dashboard was not built', async () => {
    const res = await missing.app.inject({ method: 'GET', url: '/dashboard' });
    expect(res.statusCode).toBe(503);
    expect(res.body).toContain('npm run build');
  });
});

describe('401 for script clients', () => {
  it('omits WWW-Authenticate when X-Requested-With is sent, so browsers show no password prompt', async () => {
    const plain = await built.app.inject({ method: 'GET', url: `${BASE}/config` });
    expect(plain.statusCode).toBe(401);
    expect(plain.headers['www-authenticate']).toBe('Basic realm="api"');
    const script = await built.app.inject({ method: 'GET', url: `${BASE}/config`, headers: { 'x-requested-with': 'svc-dashboard', authorization: `Basic ${Buffer.from('cli_x:sec_y').toString('base64')}` } });
    expect(script.statusCode).toBe(401);
    expect(script.json()).toMatchObject({ status: 401, code: 'UNAUTHORIZED' });
    expect(script.headers['www-authenticate']).toBeUndefined();
  });
});
