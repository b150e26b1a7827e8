import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, eventually, type TestEnv } from '../helpers/app.js';
import { Receiver } from '../helpers/receiver.js';
import { ctxFor } from '../../src/deps.js';
import { recordEvent } from '../../src/platform/outbox.js';
import { eventLabel } from '../../src/domains/webhooks/webhooks.model.js';

let env: TestEnv;
let calls = 0;

beforeAll(async () => {
  // Deliveries must not time out (the suite's 2 s) on a loaded machine: a timed-out delivery the receiver did get is
  // retried, as it should be, which this file's exactly-once count would read as a shutdown that cut one off.
  env = await createTestEnv({ WEBHOOK_TIMEOUT_MS: '30000' }, {
    // A test-only idempotent route: counts executions; fails with 500 when asked to.
    extendApi: (api) => {
        api.post('/things', { config: { idempotent: true } }, async (req, reply) => {
          calls += 1;
          const body = (req.body ?? {}) as { fail?: boolean; slowMs?: number };
          if (body.slowMs) await new Promise((r) => setTimeout(r, body.slowMs));
          if (body.fail) throw new Error('boom');
          reply.status(201);
          return { n: calls };
        });
    },
  });
});
afterAll(() => env.close());

describe('graceful worker shutdown', () => {
  it('finishes the jobs in hand and leaves the rest queued: every event is delivered exactly once', async () => {
    const receiver = await new Receiver().start();
    try {
      const p = await env.platform();
      await env.deps.prisma.platform.update({ where: { id: p.platformId }, data: { webhookEndpoint: receiver.url } });
      // Each delivery takes 150 ms at the receiver.
      receiver.script = Array.from({ length: 40 }, () => -150);
      const db = ctxFor(env.deps, p.platformId).db;
      const ids: string[] = [];
      for (let i = 0; i < 40; i++) ids.push(eventLabel(await db.$transaction((tx) => recordEvent(tx, 'X.SHUTDOWN', { i }))));

      const first = env.startWorkers();
      await eventually(async () => receiver.received.length >= 3);
      await first.close();
      const afterClose = await env.deps.prisma.webhookEvent.groupBy({ by: ['deliveryStatus'], where: { platformId: p.platformId }, _count: true });
      // Nothing was cut off mid-delivery: every request the receiver got is recorded as delivered.
      const delivered = afterClose.find((g) => g.deliveryStatus === 'DELIVERED')?._count ?? 0;
      expect(delivered).toBe(receiver.received.length);
      expect(delivered).toBeLessThan(40);

      const second = env.startWorkers();
      await eventually(async () => (await env.deps.prisma.webhookEvent.count({ where: { platformId: p.platformId, deliveryStatus: 'DELIVERED' } })) === 40, 20_000);
      await second.close();
      const counts = new Map<string, number>();
      for (const r of receiver.received) counts.set(r.json.id, (counts.get(r.json.id) ?? 0) + 1);
      expect([...counts.keys()].sort()).toEqual([...ids].sort());
      expect([...counts.values()].every((n) => n === 1)).toBe(true);
    } finally {
      await receiver.stop();
    }
  });
});

describe('Idempotency-Key', () => {
  it('replays the stored response for the same key and body without running again', async () => {
    const p = await env.platform();
    const before = calls;
    const a = await p.request({ method: 'POST', url: '/things', headers: { 'idempotency-key': 'k1' }, payload: { x: 1 } });
    const b = await p.request({ method: 'POST', url: '/things', headers: { 'idempotency-key': 'k1' }, payload: { x: 1 } });
    expect(a.statusCode).toBe(201);
    expect(b.statusCode).toBe(201);
    expect(b.json()).toEqual(a.json());
    expect(b.headers['idempotent-replayed']).toBe('true');
    expect(calls - before).toBe(1);
  });

  it('a different body under the same key is 422 IDEMPOTENCY_KEY_REUSED', async () => {
    const p = await env.platform();
    await p.request({ method: 'POST', url: '/things', headers: { 'idempotency-key': 'k2' }, payload: { x: 1 } });
    const res = await p.request({ method: 'POST', url: '/things', headers: { 'idempotency-key': 'k2' }, payload: { x: 2 } });
    expect(res.statusCode).toBe(422);
    expect(res.json().code).toBe('IDEMPOTENCY_KEY_REUSED');
  });

  it('keys are per platform', async () => {
    const p = await env.platform();
    const q = await env.platform();
    const a = await p.request({ method: 'POST', url: '/things', headers: { 'idempotency-key': 'shared' }, payload: {} });
    const b = await q.request({ method: 'POST', url: '/things', headers: { 'idempotency-key': 'shared' }, payload: {} });
    expect(b.headers['idempotent-replayed']).toBeUndefined();
    expect(b.json().n).not.toBe(a.json().n);
  });

  it('concurrent duplicates run once: the others get 409 CONFLICT or the replay', async () => {
    const p = await env.platform();
    const before = calls;
    const results = await Promise.all(
      Array.from({ length: 5 }, () => p.request({ method: 'POST', url: '/things', headers: { 'idempotency-key': 'k3' }, payload: { slowMs: 200 } })),
    );
    expect(calls - before).toBe(1);
    const fresh = results.filter((r) => r.statusCode === 201 && r.headers['idempotent-replayed'] === undefined);
    expect(fresh).toHaveLength(1);
    for (const r of results) {
      if (r.statusCode === 201) expect(r.json()).toEqual(fresh[0]!.json());
      else {
        expect(r.statusCode).toBe(409);
        expect(r.json().code).toBe('CONFLICT');
      }
    }
  });

  it('a 5xx answer is not stored, so the retry runs again', async () => {
    const p = await env.platform();
    const before = calls;
    const a = await p.request({ method: 'POST', url: '/things', headers: { 'idempotency-key': 'k4' }, payload: { fail: true } });
    expect(a.statusCode).toBe(500);
    const b = await p.request({ method: 'POST', url: '/things', headers: { 'idempotency-key': 'k4' }, payload: { fail: true } });
    expect(b.statusCode).toBe(500);
    expect(calls - before).toBe(2);
  });

  it('refuses an over-long key', async () => {
    const p = await env.platform();
    const res = await p.request({ method: 'POST', url: '/things', headers: { 'idempotency-key': 'k'.repeat(256) }, payload: {} });
    expect(res.statusCode).toBe(400);
    expect(res.json().details.errors[0].field).toBe('Idempotency-Key');
  });
});
