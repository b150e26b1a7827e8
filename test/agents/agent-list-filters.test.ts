import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASE, createTestEnv, type TestEnv } from '../helpers/app.js';
import { anApprovedCustomer } from '../helpers/builders.js';
import { assertMatchesResponseSchema } from '../helpers/openapi.js';

/** Issue 25 part B: REF's GET /agents filters and GET /verifications?verificationStatus= values. */
let env: TestEnv;
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(async () => {
  await env.close();
});

const POLICY = { currency: 'USD', maxTransactionAmount: 100_000, dailyLimit: 150_000, approvalThreshold: 20_000 };
const fieldsOf = (res: { json(): any }) => (res.json().details?.errors ?? []).map((e: { field: string }) => e.field);

describe('GET /agents filters', () => {
  it('filters by isPaused, isConnected and the created/updated windows, combined with AND', async () => {
    const p = await env.platform();
    const c = await anApprovedCustomer(env, p);
    const make = async (name: string) => (await p.request({ method: 'POST', url: '/agents', payload: { customerId: c.customerId, name, policy: POLICY } })).json().id as string;
    const plain = await make('plain');
    const connected = await make('connected');
    const paused = await make('paused');
    const code = (await p.request({ method: 'POST', url: `/agents/${connected}/device-codes` })).json().code;
    expect((await env.app.inject({ method: 'POST', url: `${BASE}/agents/device-codes/${code}/redeem` })).statusCode).toBe(200);
    // No endpoint pauses an agent in this part of the work: the status is set as a pause would set it.
    const pausedAt = new Date(Date.now() + 60_000);
    await env.deps.prisma.agent.updateMany({ where: { id: paused }, data: { status: 'DISABLED', updatedAt: pausedAt } });
    const ids = async (query: string) => {
      const res = await p.request({ method: 'GET', url: `/agents?${query}` });
      expect(res.statusCode, res.body).toBe(200);
      assertMatchesResponseSchema('GET', `${BASE}/agents`, 200, res.json());
      return res.json().data.map((a: { id: string }) => a.id).sort();
    };
    expect(await ids('isPaused=true')).toEqual([paused]);
    expect(await ids('isPaused=false')).toEqual([plain, connected].sort());
    expect(await ids('isConnected=true')).toEqual([connected]);
    expect(await ids('isConnected=false&isPaused=false')).toEqual([plain]);
    expect(await ids(`updatedAfter=${encodeURIComponent(new Date(pausedAt.getTime() - 1).toISOString())}`)).toEqual([paused]);
    expect(await ids(`updatedBefore=${encodeURIComponent(new Date(pausedAt.getTime() - 1).toISOString())}`)).toEqual([plain, connected].sort());
    expect(await ids(`createdAfter=${encodeURIComponent(new Date(Date.now() + 3_600_000).toISOString())}`)).toEqual([]);
    expect(await ids(`createdBefore=${encodeURIComponent(new Date(Date.now() + 3_600_000).toISOString())}&customerId=${c.customerId}`)).toHaveLength(3);
    // Another platform's agents are never listed.
    expect((await (await env.platform()).request({ method: 'GET', url: '/agents?isPaused=true' })).json().data).toEqual([]);
  });

  it('refuses malformed filter values with 400 INVALID_INPUT naming them', async () => {
    const p = await env.platform();
    for (const [query, field] of [['isPaused=yes', 'isPaused'], ['isConnected=1', 'isConnected'], ['createdAfter=yesterday', 'createdAfter'], ['updatedBefore=2026-13-01T00:00:00Z', 'updatedBefore'], ['paused=true', 'paused']] as const) {
      const res = await p.request({ method: 'GET', url: `/agents?${query}` });
      expect(res.statusCode, query).toBe(400);
      expect(res.json().code).toBe('INVALID_INPUT');
      expect(fieldsOf(res), query).toContain(field);
    }
  });
});

describe('GET /verifications?verificationStatus=', () => {
  it('accepts every REF status, READY_FOR_VERIFICATION included (an empty page when none has it), and refuses others', async () => {
    const p = await env.platform();
    for (const status of ['RESOLVE_ERRORS', 'IN_PROGRESS', 'PENDING_MANUAL_REVIEW', 'APPROVED', 'REJECTED', 'READY_FOR_VERIFICATION']) {
      const res = await p.request({ method: 'GET', url: `/verifications?verificationStatus=${status}` });
      expect(res.statusCode, status).toBe(200);
      assertMatchesResponseSchema('GET', `${BASE}/verifications`, 200, res.json());
    }
    expect((await p.request({ method: 'GET', url: '/verifications?verificationStatus=READY_FOR_VERIFICATION' })).json()).toMatchObject({ data: [], hasMore: false });
    const bad = await p.request({ method: 'GET', url: '/verifications?verificationStatus=DONE' });
    expect(bad.statusCode).toBe(400);
    expect(fieldsOf(bad)).toEqual(['verificationStatus']);
  });
});
