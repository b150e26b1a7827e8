import type { FastifyRateLimitOptions, FastifyRateLimitStore, FastifyRateLimitStoreCtor } from '@fastify/rate-limit';
import type { Redis } from '../redis.js';
import { invariant } from '../errors.js';

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

/**
 * @fastify/rate-limit's counters in Redis under the keys its RedisStore uses (`<nameSpace><key>`, one
 * window per key from its first hit), but the hits on a key during one turn of the event loop reach
 * Redis as one INCRBY, sent at setImmediate: the requests of a credential that arrived together cost one
 * command and one round trip instead of one each (issue 12: the counter was a quarter of the API's CPU
 * on GET /transactions/{id}). Each request gets the count that as many INCRs in a row would have
 * given it, so who is over the limit is decided as before, and processes running the library's store
 * count on the same keys. Only the plugin's defaults are supported (no continueExceeding, no
 * exponentialBackoff).
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

class CoalescingRedisStore implements FastifyRateLimitStore {
  private pending = new Map<string, { key: string; windowMs: number; callbacks: Callback[] }>();
  private scheduled = false;

  constructor(
    private readonly redis: WithCommand,
    private readonly prefix: string,
  ) {}

  incr(key: string, callback: Callback, timeWindow: number): void {
    const full = this.prefix + key;
    const batchKey = `${timeWindow}\n${full}`;
    let batch = this.pending.get(batchKey);
    if (!batch) this.pending.set(batchKey, (batch = { key: full, windowMs: timeWindow, callbacks: [] }));
    batch.callbacks.push(callback);
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(this.flush);
    }
  }

  private readonly flush = (): void => {
    this.scheduled = false;
    const batches = this.pending;
    this.pending = new Map();
    for (const { key, windowMs, callbacks } of batches.values()) {
      this.redis[COMMAND](key, callbacks.length, windowMs, (err, result) => {
        if (err || !result) {
          for (const cb of callbacks) cb(err ?? new Error('rate limit: no answer from Redis'));
          return;
        }
        const [after, ttl] = result;
        const first = after - callbacks.length + 1;
        for (let i = 0; i < callbacks.length; i++) callbacks[i]!(null, { current: first + i, ttl });
      });
    }
  };

  /** A route's own limit (config.rateLimit): its keys apart, as RedisStore names them. */
  child(routeOptions: Parameters<FastifyRateLimitStore['child']>[0]): FastifyRateLimitStore {
    // The plugin passes its merged parameters, the route under `routeInfo` (the typings say otherwise).
    const route = (routeOptions as unknown as { routeInfo: { method: string; url: string } }).routeInfo;
    return new CoalescingRedisStore(this.redis, `${this.prefix}${route.method}${route.url}-`);
  }
}
