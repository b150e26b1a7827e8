import type { FastifyRateLimitOptions, FastifyRateLimitStore, FastifyRateLimitStoreCtor } from '@fastify/rate-limit';
import type { Redis } from '../redis.js';
import { LRUCache } from 'lru-cache';
import { invariant } from '../errors.js';
import { coalescer } from '../coalesce.js';

type Callback = (error: Error | null, result?: { current: number; ttl: number }) => void;

/**
 * The hits of one key, added at once: the count after them and the window's remaining ms. A key's window
 * starts at its first hit (PEXPIRE then), as in @fastify/rate-limit's own RedisStore script.
 */
const INCR_BY_SCRIPT = `
local current = redis.call('INCRBY', KEYS[1], ARGV[1])
if current == tonumber(ARGV[1]) then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return {current, tonumber(ARGV[2])}
end
return {current, redis.call('PTTL', KEYS[1])}
`;
const COMMAND = 'svcRateLimitIncrBy';

type WithCommand = Redis & { [COMMAND](key: string, hits: number, windowMs: number, cb: (err: Error | null, result?: [number, number]) => void): void };

/** Permits a process takes beyond the hits waiting, at most (see leaseExtra). */
export const LEASE_MAX = 64;
/** ...and never more than this share of what the window had left when last counted. */
const LEASE_SHARE = 8;

/**
 * How many permits to take beyond the hits waiting, for a window with `max` permits of which `counted`
 * were taken when this process last asked: up to LEASE_MAX, never more than an eighth of the rest, none
 * once fewer than eight are left (each hit then counted as it comes).
 */
export function leaseExtra(max: number, counted: number): number {
  return Math.max(0, Math.min(LEASE_MAX, Math.floor((max - counted) / LEASE_SHARE)));
}

/** A process's permits on one key: ordinals `next`..`last` of the key's window, which ends at `endsAt` (ms). */
interface Lease {
  next: number;
  last: number;
  endsAt: number;
  /** The key's count after this process's last INCRBY: sizes the next lease. */
  counted: number;
}

/**
 * @fastify/rate-limit's counters in Redis under the keys its RedisStore uses (`<nameSpace><key>`, one
 * window per key from its first hit). A hit's count is its permit's ordinal in the window, as one INCR
 * per hit would give it, so who is over the limit is decided as the library decides it, and processes
 * running the library's store count on the same keys. Two things spare the round trip per request
 * (issue 12; the measurement is in docs/decisions.md "Rate-limit counters"):
 * - the hits on a key during one turn of the event loop reach Redis as one INCRBY, sent at setImmediate;
 * - that INCRBY also takes a few permits more (leaseExtra: up to 64, at most an eighth of what the
 *   window has left, none near the limit), which this process's next hits on the key use without
 *   asking Redis, until they run out or the window ends.
 * Never more hits than the limit pass across processes; a process's unused permits can make another
 * refuse that many hits early, at most an eighth of the window's remainder each. Only the plugin's
 * defaults are supported (no continueExceeding, no exponentialBackoff).
 */
export function coalescingRedisStore(redis: Redis, nameSpace: string): FastifyRateLimitStoreCtor {
  const client = redis as WithCommand;
  if (typeof client[COMMAND] !== 'function') redis.defineCommand(COMMAND, { numberOfKeys: 1, lua: INCR_BY_SCRIPT });
  return class {
    constructor(options: FastifyRateLimitOptions) {
      const o = options as { continueExceeding?: boolean; exponentialBackoff?: boolean };
      invariant(!o.continueExceeding && !o.exponentialBackoff, 'coalescingRedisStore: continueExceeding and exponentialBackoff are not supported');
      return new CoalescingRedisStore(client, nameSpace);
    }
  } as unknown as FastifyRateLimitStoreCtor;
}

/** A hit on a key, and its answer: its permit's ordinal in the window and the window's remaining ms. */
interface Hit {
  key: string;
  windowMs: number;
  max: number;
}
type Permit = { current: number; ttl: number };

class CoalescingRedisStore implements FastifyRateLimitStore {
  /** Per key (credential or agent): a bounded number of them, the least recently used dropped first. */
  private readonly leases = new LRUCache<string, Lease>({ max: 10_000 });
  /** INCRBYs on their way to Redis, per key. */
  private readonly sending = new Map<string, number>();
  /** The hits on a key in one turn of the event loop, counted together (src/platform/coalesce.ts). */
  private readonly hits = coalescer<Hit, Permit>({ key: (h) => `${h.windowMs}\n${h.max}\n${h.key}`, flush: 'turn', maxBatch: Number.POSITIVE_INFINITY, run: (hits) => this.count(hits) });

  constructor(
    private readonly redis: WithCommand,
    private readonly prefix: string,
  ) {}

  incr(key: string, callback: Callback, timeWindow: number, max: number): void {
    const full = this.prefix + key;
    const leased = this.serve(this.leases.get(full), 1);
    if (leased.length === 1) return callback(null, leased[0]);
    this.hits.load({ key: full, windowMs: timeWindow, max }).then(
      (permit) => callback(null, permit),
      (err: Error) => callback(err),
    );
  }

  /** The permits of a key's hits: a lease's first (hits that waited while one arrived), then one INCRBY for the rest. */
  private async count(hits: readonly Hit[]): Promise<Array<Permit | Error>> {
    const { key, windowMs, max } = hits[0]!;
    const before = this.leases.get(key);
    const served: Array<Permit | Error> = this.serve(before, hits.length);
    const waiting = hits.length - served.length;
    if (waiting === 0) return served;
    const now = Date.now();
    // One lease in the making per key, taken only once the last one is used up: a batch sent while
    // another is on its way takes only its hits, so no lease replaces one whose permits are unused.
    const sending = this.sending.get(key) ?? 0;
    const extra = sending > 0 ? 0 : leaseExtra(max, before && before.endsAt > now ? before.counted : 0);
    const take = waiting + extra;
    this.sending.set(key, sending + 1);
    const result = await new Promise<[number, number] | Error>((resolve) =>
      this.redis[COMMAND](key, take, windowMs, (err, r) => resolve(err ?? r ?? new Error('rate limit: no answer from Redis'))),
    );
    const left = this.sending.get(key)! - 1;
    if (left > 0) this.sending.set(key, left);
    else this.sending.delete(key);
    if (result instanceof Error) return [...served, ...Array.from({ length: waiting }, () => result)];
    const [after, ttl] = result;
    const first = after - take + 1;
    // The permits beyond the hits, up to the limit, are this process's until the window ends.
    if (extra > 0) this.leases.set(key, { next: first + waiting, last: Math.min(after, max), endsAt: Date.now() + ttl, counted: after });
    for (let i = 0; i < waiting; i++) served.push({ current: first + i, ttl });
    return served;
  }

  /** Up to `wanted` of the lease's next permits while it has some in a running window. */
  private serve(lease: Lease | undefined, wanted: number): Permit[] {
    if (!lease || lease.next > lease.last) return [];
    const ttl = lease.endsAt - Date.now();
    if (ttl <= 0) return [];
    const served = Math.min(wanted, lease.last - lease.next + 1);
    return Array.from({ length: served }, () => ({ current: lease.next++, ttl }));
  }

  /** A route's own limit (config.rateLimit): its keys apart, as RedisStore names them. */
  child(routeOptions: Parameters<FastifyRateLimitStore['child']>[0]): FastifyRateLimitStore {
    // The plugin passes its merged parameters, the route under `routeInfo` (the typings say otherwise).
    const route = (routeOptions as unknown as { routeInfo: { method: string; url: string } }).routeInfo;
    return new CoalescingRedisStore(this.redis, `${this.prefix}${route.method}${route.url}-`);
  }
}
