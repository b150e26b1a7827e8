import { createPublicKey, verify } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BASE, createTestEnv, eventually, type TestEnv, type TestPlatform } from '../helpers/app.js';
import { Receiver } from '../helpers/receiver.js';
import { assertMatchesResponseSchema } from '../helpers/openapi.js';
import { ctxFor } from '../../src/deps.js';
import { recordEvent } from '../../src/platform/outbox.js';
import type { RunningWorkers } from '../../src/workers.js';
import { pruneOnce } from '../../src/platform/retention.js';
import { EVENT_RESOURCE_TYPES, eventKey, eventLabel } from '../../src/domains/webhooks/webhooks.model.js';
import { resourceKey } from '../../src/platform/ids.js';

let env: TestEnv;
let receiver: Receiver;
let workers: RunningWorkers | undefined;

beforeAll(async () => {
  env = await createTestEnv({ OPERATOR_USER: 'ops', OPERATOR_PASSWORD: 'ops-password-0123456789' });
});
afterAll(() => env.close());
afterEach(async () => {
  await workers?.close();
  workers = undefined;
  await receiver?.stop();
});

async function platformWithReceiver(): Promise<TestPlatform> {
  receiver = await new Receiver().start();
  const p = await env.platform();
  // Set directly so no TEST event is queued: these tests count deliveries.
  await env.deps.prisma.platform.update({ where: { id: p.platformId }, data: { webhookEndpoint: receiver.url } });
  return p;
}

/** Records an event; returns its id as the API names it (`Webhook:<uuid>`; the row's id is the uuid, 30f). */
async function emit(platformId: string, type: string, data: unknown): Promise<string> {
  return eventLabel(await ctxFor(env.deps, platformId).db.$transaction((tx) => recordEvent(tx, type, data)));
}

function verifySignature(publicKeyPem: string, body: string, header: string): boolean {
  const { v, s } = JSON.parse(header);
  expect(v).toBe('1');
  return verify('sha256', Buffer.from(body), createPublicKey(publicKeyPem), Buffer.from(s, 'base64'));
}

describe('test webhook', () => {
  it('arrives signed and verifiable with the public key from GET /config', async () => {
    const p = await platformWithReceiver();
    const res = await p.request({ method: 'POST', url: '/sandbox/webhooks/test' });
    expect(res.statusCode).toBe(200);
    assertMatchesResponseSchema('POST', `${BASE}/sandbox/webhooks/test`, 200, res.json());
    expect(res.json()).toEqual({ url: receiver.url, response_status: 200, response_body: 'status 200' });
    expect(receiver.received).toHaveLength(1);
    const got = receiver.received[0]!;
    expect(got.headers['content-type']).toBe('application/json');
    expect(got.json).toEqual({ id: expect.stringMatching(/^Webhook:[0-9a-f-]{36}$/), type: 'TEST', timestamp: expect.any(String), data: {} });
    const publicKey = (await p.request({ method: 'GET', url: '/config' })).json().webhookPublicKey;
    expect(verifySignature(publicKey, got.body, String(got.headers['x-svc-signature']))).toBe(true);
    expect(verifySignature(publicKey, got.body.replace('TEST', 'TESX'), String(got.headers['x-svc-signature']))).toBe(false);
  });

  it('is 400 WEBHOOK_ENDPOINT_NOT_SET without an endpoint', async () => {
    const p = await env.platform();
    const res = await p.request({ method: 'POST', url: '/sandbox/webhooks/test' });
    expect(res.statusCode).toBe(400);
    expect(res.json().code).toBe('WEBHOOK_ENDPOINT_NOT_SET');
  });

  it('is 400 WEBHOOK_DELIVERY_ERROR when the endpoint fails, and is not retried', async () => {
    const p = await platformWithReceiver();
    receiver.script = [500];
    const res = await p.request({ method: 'POST', url: '/sandbox/webhooks/test' });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'WEBHOOK_DELIVERY_ERROR', details: { response_status: 500 } });
    const list = (await p.request({ method: 'GET', url: '/webhook-events?type=TEST' })).json();
    expect(list.data[0]).toMatchObject({ deliveryStatus: 'FAILED', attemptCount: 1 });
  });
});

describe('event delivery through the outbox', () => {
  it('retries a failing endpoint with backoff, keeping the event id, and records each attempt', async () => {
    const p = await platformWithReceiver();
    receiver.script = [500, 503, 200];
    const id = await emit(p.platformId, 'CUSTOMER.KYC_APPROVED', { id: 'Customer:1', kycStatus: 'APPROVED' });
    workers = env.startWorkers();
    const event = await eventually(async () => {
      const e = (await p.request({ method: 'GET', url: `/webhook-events/${id}` })).json();
      return e.deliveryStatus === 'DELIVERED' ? e : undefined;
    });
    assertMatchesResponseSchema('GET', `${BASE}/webhook-events/{eventId}`, 200, event);
    expect(receiver.received).toHaveLength(3);
    expect(new Set(receiver.received.map((r) => r.json.id))).toEqual(new Set([id]));
    expect(receiver.received.every((r) => r.body === receiver.received[0]!.body)).toBe(true);
    expect(event.attemptCount).toBe(3);
    expect(event.attempts.map((a: any) => [a.outcome, a.httpStatus])).toEqual([
      ['FAILED', 500],
      ['FAILED', 503],
      ['DELIVERED', 200],
    ]);
    expect(event.attempts.every((a: any) => typeof a.latencyMs === 'number')).toBe(true);
    expect(event.data).toEqual({ id: 'Customer:1', kycStatus: 'APPROVED' });
  });

  it('treats a 409 from the receiver as delivered', async () => {
    const p = await platformWithReceiver();
    receiver.script = [409];
    const id = await emit(p.platformId, 'CUSTOMER.KYC_PENDING', {});
    workers = env.startWorkers();
    await eventually(async () => (await env.deps.prisma.webhookEvent.findFirst({ where: { id: eventKey(id)! } }))?.deliveryStatus === 'DELIVERED');
    expect(receiver.received).toHaveLength(1);
  });

  it('retries timeouts and connection errors', async () => {
    const p = await platformWithReceiver();
    const slow = await createTestEnv({ WEBHOOK_TIMEOUT_MS: '200', WEBHOOK_RETRY_BASE_MS: '20' });
    try {
      const q = await slow.platform();
      await slow.deps.prisma.platform.update({ where: { id: q.platformId }, data: { webhookEndpoint: receiver.url } });
      receiver.script = [-1000, 200];
      const id = await ctxFor(slow.deps, q.platformId).db.$transaction((tx) => recordEvent(tx, 'X.TIMEOUT', {}));
      const w = slow.startWorkers();
      const e = await eventually(async () => {
        const r = await slow.deps.prisma.webhookEvent.findFirst({ where: { id }, include: { attempts: { orderBy: { attemptedAt: 'asc' } } } });
        return r?.deliveryStatus === 'DELIVERED' ? r : undefined;
      });
      expect(e.attempts.map((a) => a.outcome)).toEqual(['TIMEOUT', 'DELIVERED']);
      await w.close();
    } finally {
      await slow.close();
    }
    void p;
  });

  it('marks the event FAILED when the retry window closes', async () => {
    const short = await createTestEnv({ WEBHOOK_RETRY_WINDOW_MS: '1', WEBHOOK_RETRY_BASE_MS: '10' });
    try {
      receiver = await new Receiver().start();
      const q = await short.platform();
      await short.deps.prisma.platform.update({ where: { id: q.platformId }, data: { webhookEndpoint: receiver.url } });
      receiver.script = [500, 500, 500];
      const id = await ctxFor(short.deps, q.platformId).db.$transaction((tx) => recordEvent(tx, 'X.FAIL', {}));
      const w = short.startWorkers();
      const e = await eventually(async () => {
        const r = await short.deps.prisma.webhookEvent.findFirst({ where: { id } });
        return r?.deliveryStatus === 'FAILED' ? r : undefined;
      });
      expect(e.attemptCount).toBe(1);
      await w.close();
    } finally {
      await short.close();
    }
  });

  it('keeps events of a platform without an endpoint as UNDELIVERABLE, and redelivers them later with the same id', async () => {
    receiver = await new Receiver().start();
    const p = await env.platform();
    const id = await emit(p.platformId, 'CUSTOMER.KYC_REJECTED', { n: 1 });
    // Recorded UNDELIVERABLE as it is written (issue 12): no worker runs yet, nothing is left for the relay.
    expect((await p.request({ method: 'GET', url: `/webhook-events/${id}` })).json().deliveryStatus).toBe('UNDELIVERABLE');
    expect(await env.deps.prisma.webhookEvent.count({ where: { platformId: p.platformId, relayedAt: null } })).toBe(0);
    workers = env.startWorkers();
    await eventually(async () => (await p.request({ method: 'GET', url: `/webhook-events/${id}` })).json().deliveryStatus === 'UNDELIVERABLE');
    await env.deps.prisma.platform.update({ where: { id: p.platformId }, data: { webhookEndpoint: receiver.url } });
    const res = await p.request({ method: 'POST', url: `/webhook-events/${id}/redeliver` });
    expect(res.statusCode).toBe(202);
    assertMatchesResponseSchema('POST', `${BASE}/webhook-events/{eventId}/redeliver`, 202, res.json());
    await eventually(async () => (await p.request({ method: 'GET', url: `/webhook-events/${id}` })).json().deliveryStatus === 'DELIVERED');
    expect(receiver.received.map((r) => r.json.id)).toEqual([id]);
  });

  it('an event cut down by retention is listed and redelivered with its resource id, type and status, byte for byte as before 30c', async () => {
    receiver = await new Receiver().start();
    const p = await env.platform();
    const resource = 'Transaction:0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b';
    const id = await emit(p.platformId, 'OUTGOING_PAYMENT.COMPLETED', { id: resource, status: 'COMPLETED', type: 'OUTGOING', description: 'x'.repeat(300) });
    // An event whose type does not name its resource's type, and one whose resource id is no `<Type>:<uuid>`.
    const other = await emit(p.platformId, 'BULK_UPLOAD.COMPLETED', { id: 'BulkCustomerImport:0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5c', status: 'COMPLETED' });
    const odd = await emit(p.platformId, 'CUSTOMER.UPDATED', { id: 'Customer:legacy-7', status: 'ACTIVE' });
    // Older than the payload retention window (30 days), then cut down by the retention pass.
    await env.deps.prisma.$executeRawUnsafe(`UPDATE webhook_events SET created_at = now() - interval '40 days' WHERE id = ANY($1::uuid[])`, [id, other, odd].map((e) => eventKey(e)!));
    expect((await pruneOnce(env.deps)).eventsPruned).toBeGreaterThanOrEqual(3);
    // Stored: the resource's key (16 bytes), the resource id only where the event's type cannot give it back,
    // nothing a PENDING event alone uses (issue 30, 30c, 30f).
    const stored = async (e: string) => (await env.deps.prisma.$queryRawUnsafe<Array<{ data: unknown; resource_id: string; last_error: string | null; retry_window_started_at: Date | null }>>(
      `SELECT data, resource_id, last_error, retry_window_started_at FROM webhook_events WHERE id = $1::uuid`, eventKey(e)))[0];
    expect(await stored(id)).toEqual({ data: { status: 'COMPLETED', type: 'OUTGOING' }, resource_id: '0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b', last_error: null, retry_window_started_at: null });
    expect(await stored(other)).toMatchObject({ data: { id: 'BulkCustomerImport:0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5c', status: 'COMPLETED' }, resource_id: '0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5c' });
    expect(await stored(odd)).toMatchObject({ data: { id: 'Customer:legacy-7', status: 'ACTIVE' }, resource_id: resourceKey('Customer:legacy-7') });
    const wire = `"data":{"id":"${resource}","type":"OUTGOING","status":"COMPLETED"}`;
    // Listed as the stored {id, type, status} of a payload cut before 30c read.
    expect((await p.request({ method: 'GET', url: `/webhook-events/${id}` })).body).toContain(wire);
    expect((await p.request({ method: 'GET', url: `/webhook-events?resourceId=${resource}` })).body).toContain(wire);
    for (const [e, rid] of [[other, 'BulkCustomerImport:0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5c'], [odd, 'Customer:legacy-7']] as const) {
      expect((await p.request({ method: 'GET', url: `/webhook-events/${e}` })).json().data.id).toBe(rid);
      expect((await p.request({ method: 'GET', url: `/webhook-events?resourceId=${rid}` })).json().data.map((x: any) => x.id)).toEqual([e]);
    }
    // The resource's uuid under another type names no resource of this platform.
    for (const wrong of ['Customer:0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b', '0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b', 'Customer:legacy-8']) {
      expect((await p.request({ method: 'GET', url: `/webhook-events?resourceId=${wrong}` })).json()).toEqual({ data: [], hasMore: false });
    }
    await env.deps.prisma.platform.update({ where: { id: p.platformId }, data: { webhookEndpoint: receiver.url } });
    workers = env.startWorkers();
    expect((await p.request({ method: 'POST', url: `/webhook-events/${id}/redeliver` })).statusCode).toBe(202);
    await eventually(async () => receiver.received.length === 1);
    expect(receiver.received[0]!.body).toContain(wire);
    expect(receiver.received[0]!.json.id).toBe(id);
  });

  it('the database and the events log name the same resource type for each event type (a cut-down payload drops the id only then)', async () => {
    const def = (await env.deps.prisma.$queryRawUnsafe<Array<{ def: string }>>(`SELECT pg_get_functiondef('svc_event_resource_type'::regproc) AS def`))[0]!.def;
    const pairs = Object.fromEntries([...def.matchAll(/WHEN '([A-Z_]+)' THEN '([A-Za-z]+)'/g)].map((m) => [m[1], m[2]]));
    expect(pairs).toEqual(EVENT_RESOURCE_TYPES);
    for (const [family, type] of Object.entries(EVENT_RESOURCE_TYPES)) {
      const r = await env.deps.prisma.$queryRawUnsafe<Array<{ t: string }>>(`SELECT svc_event_resource_type($1) AS t`, `${family}.ANYTHING`);
      expect(r[0]!.t).toBe(type);
    }
  });

  it('setting the endpoint sends a TEST delivery through the outbox', async () => {
    receiver = await new Receiver().start();
    const p = await env.platform();
    workers = env.startWorkers();
    await p.request({ method: 'PATCH', url: '/config', payload: { webhookEndpoint: receiver.url } });
    await eventually(async () => receiver.received.length === 1);
    expect(receiver.received[0]!.json.type).toBe('TEST');
  });

  it('a rolled-back state change emits no event', async () => {
    const p = await env.platform();
    const db = ctxFor(env.deps, p.platformId).db;
    await expect(
      db.$transaction(async (tx) => {
        await recordEvent(tx, 'CUSTOMER.KYC_APPROVED', {});
        throw new Error('state change failed');
      }),
    ).rejects.toThrow('state change failed');
    expect(await env.deps.prisma.webhookEvent.count({ where: { platformId: p.platformId } })).toBe(0);
  });
});

describe('event reads', () => {
  it('lists newest first with cursor pagination and filters, scoped to the platform', async () => {
    const a = await env.platform();
    const b = await env.platform();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push(await emit(a.platformId, i % 2 ? 'A.ODD' : 'A.EVEN', { i }));
    const bId = await emit(b.platformId, 'B.ONLY', {});
    const first = await a.request({ method: 'GET', url: '/webhook-events?limit=2' });
    assertMatchesResponseSchema('GET', `${BASE}/webhook-events`, 200, first.json());
    expect(first.json().data.map((e: any) => e.id)).toEqual([ids[4], ids[3]]);
    expect(first.json().hasMore).toBe(true);
    // Rows added after the first page do not shift the pages that follow.
    await emit(a.platformId, 'A.EVEN', { late: true });
    const second = (await a.request({ method: 'GET', url: `/webhook-events?limit=2&cursor=${first.json().nextCursor}` })).json();
    expect(second.data.map((e: any) => e.id)).toEqual([ids[2], ids[1]]);
    const third = (await a.request({ method: 'GET', url: `/webhook-events?limit=2&cursor=${second.nextCursor}` })).json();
    expect(third.data.map((e: any) => e.id)).toEqual([ids[0]]);
    expect(third.hasMore).toBe(false);
    expect(third.nextCursor).toBeUndefined();
    const odd = (await a.request({ method: 'GET', url: '/webhook-events?type=A.ODD' })).json();
    expect(odd.data.map((e: any) => e.id)).toEqual([ids[3], ids[1]]);
    // A cursor naming no event of the API's form is refused, not looked up.
    const forged = Buffer.from(JSON.stringify({ id: 'Transaction:0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b' })).toString('base64url');
    const refused = await a.request({ method: 'GET', url: `/webhook-events?cursor=${forged}` });
    expect(refused.statusCode).toBe(400);
    expect(refused.json().details.errors).toEqual([{ field: 'cursor', message: 'Not a cursor returned by this API.' }]);
    const bad = await a.request({ method: 'GET', url: '/webhook-events?limit=0&deliveryStatus=NOPE&cursor=zzz' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().details.errors.map((e: any) => e.field).sort()).toEqual(['deliveryStatus', 'limit']);

    // Another platform's event does not exist for this one.
    // Another platform's event, and ids of no event's form, do not exist for this one.
    for (const [method, url] of [['GET', `/webhook-events/${bId}`], ['POST', `/webhook-events/${bId}/redeliver`], ['GET', `/webhook-events/${eventKey(bId)}`], ['GET', '/webhook-events/Webhook:nope']] as const) {
      const res = await a.request({ method, url });
      expect(res.statusCode).toBe(404);
      expect(res.json().code).toBe('WEBHOOK_EVENT_NOT_FOUND');
    }
  });
});

describe('metrics', () => {
  it('exposes request, queue and delivery metrics in Prometheus format', async () => {
    const p = await env.platform();
    await p.request({ method: 'GET', url: '/config' });
    const res = await env.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Basic ${Buffer.from('ops:ops-password-0123456789').toString('base64')}` } });
    expect(res.statusCode).toBe(200);
    expect(res.body).toMatch(/http_requests_total\{method="GET",route="\/2025-10-13\/config",status="200"\} \d+/);
    expect(res.body).toContain('http_request_duration_seconds_bucket');
    expect(res.body).toMatch(/queue_jobs\{queue="webhooks",state="waiting"\}/);
    expect(res.body).toMatch(/webhook_deliveries_total\{outcome="delivered"\} \d+/);
  });
});
