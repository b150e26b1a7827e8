import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, eventually, type TestEnv, type TestPlatform } from '../helpers/app.js';
import { anApprovedCustomer } from '../helpers/builders.js';
import type { RunningWorkers } from '../../src/workers.js';

let env: TestEnv;
let workers: RunningWorkers;
beforeAll(async () => {
  env = await createTestEnv();
  workers = env.startWorkers();
});
afterAll(async () => {
  await workers.close();
  await env.close();
});

async function inviter(p: TestPlatform, currencies = ['USD']) {
  const c = await anApprovedCustomer(env, p, currencies);
  const row = await env.deps.prisma.customer.findFirstOrThrow({ where: { id: c.customerId } });
  return { ...c, uma: row.umaAddress };
}

const create = (p: TestPlatform, body: object) => p.request({ method: 'POST', url: '/invitations', payload: body });

describe('UMA invitations (invitations.create/retrieve/claim/cancel)', () => {
  it('creates a PENDING invitation with REF\'s fields, optional ones omitted until set', async () => {
    const p = await env.platform();
    const c = await inviter(p);
    const res = await create(p, { inviterUma: c.uma });
    expect(res.statusCode, res.body).toBe(201);
    const inv = res.json();
    expect(inv).toEqual({ code: expect.stringMatching(/^[a-z2-7]{12}$/), createdAt: expect.any(String), inviterUma: c.uma, status: 'PENDING', url: expect.stringContaining(`/invite/${inv.code}`) });
    const full = await create(p, { inviterUma: c.uma, amountToSend: 12550, firstName: 'Alice', expiresAt: new Date(Date.now() + 86_400_000).toISOString() });
    expect(full.json()).toMatchObject({ amountToSend: { amount: 12550, currency: { code: 'USD' } }, firstName: 'Alice', expiresAt: expect.any(String) });
    const got = await p.request({ method: 'GET', url: `/invitations/${inv.code}` });
    expect(got.statusCode).toBe(200);
    expect(got.json()).toEqual(inv);
  });

  it('refuses a malformed or unknown inviter, a past expiry and unknown fields', async () => {
    const p = await env.platform();
    const c = await inviter(p);
    expect((await create(p, { inviterUma: 'not-an-address' })).json().code).toBe('INVALID_UMA_ADDRESS');
    // REF documents 201/400/401/500 for POST /invitations: an unknown inviter is a 400 naming the field.
    const unknown = await create(p, { inviterUma: '$nobody@example.com' });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json()).toMatchObject({ code: 'INVALID_INPUT', details: { errors: [{ field: 'inviterUma' }] } });
    const past = await create(p, { inviterUma: c.uma, expiresAt: '2020-01-01T00:00:00Z' });
    expect(past.statusCode).toBe(400);
    expect(past.json().details.errors[0].field).toBe('expiresAt');
    const extra = await create(p, { inviterUma: c.uma, colour: 'red' });
    expect(extra.statusCode).toBe(400);
    expect(extra.json().details.errors[0].field).toBe('colour');
    expect((await create(p, {})).json().details.errors[0].field).toBe('inviterUma');
  });

  it('a claim happens once, from any platform, and INVITATION.CLAIMED reaches the creating platform', async () => {
    const p = await env.platform();
    const other = await env.platform();
    const c = await inviter(p);
    const inv = (await create(p, { inviterUma: c.uma, amountToSend: 500 })).json();
    const claimed = await other.request({ method: 'POST', url: `/invitations/${inv.code}/claim`, payload: { inviteeUma: '$bob@other.example' } });
    expect(claimed.statusCode, claimed.body).toBe(200);
    expect(claimed.json()).toMatchObject({ status: 'CLAIMED', inviteeUma: '$bob@other.example', claimedAt: expect.any(String) });
    const again = await p.request({ method: 'POST', url: `/invitations/${inv.code}/claim`, payload: { inviteeUma: '$carol@other.example' } });
    expect(again.statusCode).toBe(400);
    expect(again.json().code).toBe('INVITATION_ALREADY_CLAIMED');
    const cancel = await p.request({ method: 'POST', url: `/invitations/${inv.code}/cancel` });
    expect(cancel.json().code).toBe('INVITATION_ALREADY_CLAIMED');
    const events = await eventually(async () => {
      const rows = await env.deps.prisma.webhookEvent.findMany({ where: { platformId: p.platformId, type: 'INVITATION.CLAIMED' } });
      return rows.length ? rows : undefined;
    });
    expect(events).toHaveLength(1);
    expect(events[0]!.data).toMatchObject({ code: inv.code, status: 'CLAIMED', inviteeUma: '$bob@other.example' });
    expect(await env.deps.prisma.webhookEvent.count({ where: { platformId: other.platformId, type: 'INVITATION.CLAIMED' } })).toBe(0);
  });

  it('the inviter cannot claim its own invitation; a bad address is 400 INVALID_UMA_ADDRESS', async () => {
    const p = await env.platform();
    const c = await inviter(p);
    const inv = (await create(p, { inviterUma: c.uma })).json();
    const self = await p.request({ method: 'POST', url: `/invitations/${inv.code}/claim`, payload: { inviteeUma: c.uma } });
    expect(self.statusCode).toBe(400);
    expect(self.json().details.errors[0].field).toBe('inviteeUma');
    const bad = await p.request({ method: 'POST', url: `/invitations/${inv.code}/claim`, payload: { inviteeUma: 'bob' } });
    expect(bad.json().code).toBe('INVALID_UMA_ADDRESS');
    expect((await p.request({ method: 'GET', url: `/invitations/${inv.code}` })).json().status).toBe('PENDING');
  });

  it('only the creating platform cancels; a cancelled invitation cannot be claimed', async () => {
    const p = await env.platform();
    const other = await env.platform();
    const c = await inviter(p);
    const inv = (await create(p, { inviterUma: c.uma })).json();
    const foreign = await other.request({ method: 'POST', url: `/invitations/${inv.code}/cancel` });
    expect(foreign.statusCode).toBe(403);
    const res = await p.request({ method: 'POST', url: `/invitations/${inv.code}/cancel` });
    expect(res.statusCode).toBe(200);
    expect(res.json().status).toBe('CANCELLED');
    const claim = await other.request({ method: 'POST', url: `/invitations/${inv.code}/claim`, payload: { inviteeUma: '$bob@other.example' } });
    expect(claim.json().code).toBe('INVITATION_CANCELLED');
    expect((await p.request({ method: 'POST', url: `/invitations/${inv.code}/cancel` })).json().code).toBe('INVITATION_CANCELLED');
  });

  it('an invitation past its expiry reads EXPIRED and can neither be claimed nor cancelled', async () => {
    const p = await env.platform();
    const c = await inviter(p);
    const inv = (await create(p, { inviterUma: c.uma, expiresAt: new Date(Date.now() + 60_000).toISOString() })).json();
    env.clock.advance(120_000);
    try {
      expect((await p.request({ method: 'GET', url: `/invitations/${inv.code}` })).json().status).toBe('EXPIRED');
      expect((await p.request({ method: 'POST', url: `/invitations/${inv.code}/claim`, payload: { inviteeUma: '$bob@other.example' } })).json().code).toBe('INVITATION_EXPIRED');
      expect((await p.request({ method: 'POST', url: `/invitations/${inv.code}/cancel` })).json().code).toBe('INVITATION_EXPIRED');
    } finally {
      env.clock.advance(-120_000);
    }
  });

  it('an unknown code is 404 INVITATION_NOT_FOUND', async () => {
    const p = await env.platform();
    for (const [method, url] of [['GET', '/invitations/zzzzzzzzzzzz'], ['POST', '/invitations/zzzzzzzzzzzz/cancel']] as const) {
      const res = await p.request({ method, url });
      expect(res.statusCode).toBe(404);
      expect(res.json().code).toBe('INVITATION_NOT_FOUND');
    }
  });
});
