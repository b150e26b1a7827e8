import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASE, createTestEnv, type TestEnv, type TestPlatform } from '../helpers/app.js';
import { assertMatchesResponseSchema } from '../helpers/openapi.js';
import { operatorSetStablecoinEnablement } from '../../src/domains/stablecoin/stablecoin.service.js';
import { stablecoinEnablementTransitions, STABLECOIN_ENABLEMENT_STATUSES } from '../../src/domains/stablecoin/stablecoin.model.js';
import { runCli } from '../helpers/cli.js';
import { platformLabel, resourceKey } from '../../src/platform/ids.js';

let env: TestEnv;
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(() => env.close());

const get = (p: TestPlatform) => p.request({ method: 'GET', url: '/stablecoin-enablement' });
const request = (p: TestPlatform) => p.request({ method: 'POST', url: '/stablecoin-enablement' });

describe('stablecoin enablement', () => {
  it('starts NOT_ENABLED; a request moves it to PENDING_APPROVAL; a repeat succeeds unchanged', async () => {
    const p = await env.platform();
    const initial = await get(p);
    expect(initial.statusCode).toBe(200);
    assertMatchesResponseSchema('GET', `${BASE}/stablecoin-enablement`, 200, initial.json());
    expect(initial.json().status).toBe('NOT_ENABLED');
    const first = await request(p);
    expect(first.statusCode, first.body).toBe(200);
    assertMatchesResponseSchema('POST', `${BASE}/stablecoin-enablement`, 200, first.json());
    expect(first.json().status).toBe('PENDING_APPROVAL');
    const again = await request(p);
    expect(again.statusCode).toBe(200);
    expect(again.json()).toEqual(first.json());
    expect((await get(p)).json()).toEqual(first.json());
    const history = await env.deps.prisma.statusChange.findMany({ where: { resourceId: resourceKey(platformLabel(p.platformId)), machine: 'stablecoin-enablement' } });
    expect(history).toHaveLength(1);
  });

  it('concurrent requests all succeed and move the status once', async () => {
    const p = await env.platform();
    const results = await Promise.all(Array.from({ length: 8 }, () => request(p)));
    expect(results.map((r) => r.statusCode)).toEqual(Array(8).fill(200));
    expect(await env.deps.prisma.statusChange.count({ where: { resourceId: resourceKey(platformLabel(p.platformId)), machine: 'stablecoin-enablement' } })).toBe(1);
  });

  it('ENABLING, ENABLED and DISABLED come only from the operator; requesting from them is 409 STABLECOIN_GRID_ENABLEMENT_NOT_REQUESTABLE', async () => {
    const p = await env.platform();
    await request(p);
    for (const status of ['ENABLING', 'ENABLED', 'DISABLED'] as const) {
      const set = await operatorSetStablecoinEnablement(env.deps, p.platformId, status);
      expect(set.status).toBe(status);
      expect((await get(p)).json().status).toBe(status);
      const res = await request(p);
      expect(res.statusCode).toBe(409);
      expect(res.json()).toMatchObject({ code: 'STABLECOIN_GRID_ENABLEMENT_NOT_REQUESTABLE', details: { status } });
    }
  });

  it('the operator cannot skip the request: NOT_ENABLED → ENABLED is an illegal move', async () => {
    const p = await env.platform();
    await expect(operatorSetStablecoinEnablement(env.deps, p.platformId, 'ENABLED')).rejects.toMatchObject({ code: 'INVALID_STATE_TRANSITION' });
    expect((await get(p)).json().status).toBe('NOT_ENABLED');
  });

  it('requesting needs the MANAGE permission', async () => {
    const p = await env.platform({ permissions: ['VIEW', 'TRANSACT'] });
    expect((await request(p)).statusCode).toBe(403);
    expect((await get(p)).statusCode).toBe(200);
  });

  it('npm run stablecoin:set drives the operator moves', async () => {
    const p = await env.platform();
    await request(p);
    const cliEnv = { DATABASE_URL: env.databaseUrl, REDIS_URL: env.config.REDIS_URL };
    const { stdout } = await runCli('stablecoin-set', ['--platform', p.platformId, '--status', 'ENABLING'], cliEnv);
    expect(stdout).toContain('ENABLING');
    expect((await get(p)).json().status).toBe('ENABLING');
    await expect(runCli('stablecoin-set', ['--platform', p.platformId, '--status', 'PENDING_APPROVAL'], cliEnv)).rejects.toThrow(/--status must be one of/);
  }, 120_000);
});

describe('stablecoin enablement transition table', () => {
  it('allows exactly the documented moves (every event against every status)', () => {
    const allowed: string[] = [];
    for (const [event, t] of Object.entries(stablecoinEnablementTransitions)) {
      for (const s of STABLECOIN_ENABLEMENT_STATUSES) if ((t.from as readonly string[]).includes(s)) allowed.push(`${event}:${s}>${t.to}`);
    }
    expect(allowed.sort()).toEqual([
      'approve:DISABLED>ENABLING', 'approve:PENDING_APPROVAL>ENABLING',
      'disable:ENABLED>DISABLED', 'disable:ENABLING>DISABLED', 'disable:PENDING_APPROVAL>DISABLED',
      'enable:ENABLING>ENABLED', 'enable:PENDING_APPROVAL>ENABLED',
      'request:NOT_ENABLED>PENDING_APPROVAL',
    ]);
  });
});
