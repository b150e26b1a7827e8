import { createRequire } from 'node:module';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TestEnv } from '../helpers/app.js';
import { coalescingRedisStore, LEASE_MAX, leaseExtra } from '../../src/platform/http/rate-limit-store.js';

/**
 * The rate limit's counters (src/platform/http/rate-limit-store.ts): the hits of one credential in one
 * turn of the event loop go to Redis as one INCRBY (issue 12), which also leases the process a few
 * permits more for its next hits; each request is judged by its permit's ordinal, as if the hits had been
 * counted one by one, on the keys @fastify/rate-limit's own RedisStore uses.
 */
let env: TestEnv;
const WINDOW_MS = 60_000;

beforeAll(async () => {
  env = await createTestEnv({ RATE_LIMIT_MAX: '5', RATE_LIMIT_WINDOW_MS: String(WINDOW_MS) });
});
afterAll(() => env.close());

type Store = { incr(key: string, cb: (err: Error | null, r?: { current: number; ttl: number }) => void, timeWindow: number, max: number): void };
const incr = (store: Store, key: string, max = 5, windowMs = WINDOW_MS) =>
  new Promise<{ current: number; ttl: number }>((resolve, reject) => store.incr(key, (err, r) => (err ? reject(err) : resolve(r!)), windowMs, max));
const newStore = (nameSpace: string): Store => new (coalescingRedisStore(env.deps.redis, nameSpace))({}) as unknown as Store;

describe('rate limit counters', () => {
  it('of requests sent together: exactly the limit pass, the rest are 429 with Retry-After, all counted on the credential key', async () => {
    const p = await env.platform();
    const answers = await Promise.all(Array.from({ length: 8 }, () => p.request({ method: 'GET', url: '/config' })));
    const statuses = answers.map((r) => r.statusCode).sort();
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429, 429]);
    for (const r of answers.filter((a) => a.statusCode === 429)) {
      expect(r.json().code).toBe('RATE_LIMITED');
      expect(Number(r.headers['retry-after'])).toBeGreaterThan(0);
    }
    const credential = await env.deps.prisma.platformCredential.findFirstOrThrow({ where: { platformId: p.platformId } });
    const key = `${env.config.REDIS_PREFIX}:rl:${credential.id}`;
    expect(await env.deps.redis.get(key)).toBe('8');
    const ttl = await env.deps.redis.pttl(key);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(WINDOW_MS);
    // Another credential has its own budget.
    expect((await (await env.platform()).request({ method: 'GET', url: '/config' })).statusCode).toBe(200);
  });

  it('count every hit once, in one turn or several, across stores (processes) sharing Redis', async () => {
    const ns = `${env.config.REDIS_PREFIX}:rlt_${randomBytes(3).toString('hex')}:`;
    const a = newStore(ns);
    const b = newStore(ns);
    const first = await Promise.all([incr(a, 'k'), incr(a, 'k'), incr(b, 'k'), incr(a, 'other')]);
    const second = await Promise.all([incr(b, 'k'), incr(a, 'k')]);
    const third = await incr(a, 'k');
    const counts = [...first.slice(0, 3), ...second, third].map((r) => r.current).sort((x, y) => x - y);
    expect(counts).toEqual([1, 2, 3, 4, 5, 6]);
    expect(first[3]!.current).toBe(1);
    expect(await env.deps.redis.get(`${ns}k`)).toBe('6');
    // The window starts at the key's first hit and is not extended by later ones.
    for (const r of [...first, ...second, third]) expect(r.ttl).toBeGreaterThan(0);
    expect(await env.deps.redis.pttl(`${ns}k`)).toBeLessThanOrEqual(WINDOW_MS);
  });

  it("share their keys with the library's own RedisStore (processes of the previous version during a deploy)", async () => {
    const ns = `${env.config.REDIS_PREFIX}:rlt_${randomBytes(3).toString('hex')}:`;
    const RedisStore = createRequire(import.meta.url)('@fastify/rate-limit/store/RedisStore.js') as new (ce: boolean, eb: boolean, redis: unknown, key: string) => Store;
    const theirs = new RedisStore(false, false, env.deps.redis, ns);
    const ours = newStore(ns);
    expect((await incr(theirs, 'k')).current).toBe(1);
    expect((await incr(ours, 'k')).current).toBe(2);
    expect((await incr(theirs, 'k')).current).toBe(3);
    expect((await Promise.all([incr(ours, 'k'), incr(ours, 'k')])).map((r) => r.current)).toEqual([4, 5]);
  });

  it('lease a process permits beyond its hits: its next hits are counted without Redis, and across processes exactly the limit pass', async () => {
    const ns = `${env.config.REDIS_PREFIX}:rlt_${randomBytes(3).toString('hex')}:`;
    const max = 1000;
    const a = newStore(ns);
    const b = newStore(ns);
    const counter = async () => Number(await env.deps.redis.get(`${ns}k`));
    // a's first hit takes its permit and LEASE_MAX more (an eighth of 1000 is more than that).
    expect(leaseExtra(max, 0)).toBe(LEASE_MAX);
    expect((await incr(a, 'k', max)).current).toBe(1);
    expect(await counter()).toBe(1 + LEASE_MAX);
    // Its next LEASE_MAX hits use them, in order, and Redis's count does not move.
    const leased: number[] = [];
    for (let i = 0; i < LEASE_MAX; i++) leased.push((await incr(a, 'k', max)).current);
    expect(leased).toEqual(Array.from({ length: LEASE_MAX }, (_, i) => i + 2));
    expect(await counter()).toBe(1 + LEASE_MAX);
    // b's permits come after a's.
    expect((await incr(b, 'k', max)).current).toBe(2 + LEASE_MAX);
    // Both keep hitting, in turns of several hits, until a turn has only refusals: every permit up to the
    // limit went to exactly one hit, none beyond it passed, and the leases shrank to none near the end.
    const admitted: number[] = [1, ...leased, 2 + LEASE_MAX];
    for (let passed = 1; passed > 0; ) {
      const turn = await Promise.all([a, a, a, b, b].map((store) => incr(store, 'k', max)));
      passed = turn.filter((r) => r.current <= max).length;
      for (const r of turn) {
        if (r.current <= max) admitted.push(r.current);
        expect(r.ttl).toBeGreaterThan(0);
      }
    }
    expect(admitted.sort((x, y) => x - y)).toEqual(Array.from({ length: max }, (_, i) => i + 1));
    expect(leaseExtra(max, max - 7)).toBe(0);
  });

  it('hits that waited while a lease was on its way use it, and a turn sent before the last is answered takes no lease: no leased permit is lost', async () => {
    const ns = `${env.config.REDIS_PREFIX}:rlt_${randomBytes(3).toString('hex')}:`;
    const store = newStore(ns);
    const max = 500;
    const admitted: number[] = [];
    for (let passed = 1; passed > 0; ) {
      // Four turns of hits, each turn's INCRBY sent at its setImmediate, most before the previous one is answered.
      const turns: Array<Promise<Array<{ current: number }>>> = [];
      for (let t = 0; t < 4; t++) {
        turns.push(Promise.all(Array.from({ length: 3 }, () => incr(store, 'k', max))));
        await new Promise((resolve) => setImmediate(resolve));
      }
      const hits = (await Promise.all(turns)).flat();
      passed = hits.filter((r) => r.current <= max).length;
      for (const r of hits) if (r.current <= max) admitted.push(r.current);
    }
    expect(admitted.sort((x, y) => x - y)).toEqual(Array.from({ length: max }, (_, i) => i + 1));
  });

  it('a lease ends with its window: the first hit after it is counted in a new window', async () => {
    const ns = `${env.config.REDIS_PREFIX}:rlt_${randomBytes(3).toString('hex')}:`;
    const store = newStore(ns);
    // Long enough that a loaded machine still makes a second hit inside it; short enough that hits 10 ms
    // apart (at most 50 of them) never use up a lease of LEASE_MAX (64) permits.
    const windowMs = 500;
    expect((await incr(store, 'k', 1000, windowMs)).current).toBe(1);
    // Hit until a hit is counted in a new window (bounded): until then every hit takes the lease's next
    // permit, in order; the first hit after the window is 1 again, and Redis counts the new lease.
    const counts: number[] = [];
    for (let tries = 0; counts.at(-1) !== 1; tries++) {
      expect(tries, 'the window never ended').toBeLessThan(500);
      counts.push((await incr(store, 'k', 1000, windowMs)).current);
      if (counts.at(-1) !== 1) await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(counts.length).toBeGreaterThan(1);
    expect(counts.slice(0, -1)).toEqual(Array.from({ length: counts.length - 1 }, (_, i) => i + 2));
    expect(counts.length - 1).toBeLessThanOrEqual(LEASE_MAX);
    expect(await env.deps.redis.get(`${ns}k`)).toBe(String(1 + LEASE_MAX));
  });
});
