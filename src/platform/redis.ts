import { Cluster, Redis, type ClusterOptions, type RedisOptions } from 'ioredis';

export type { Redis };

/** The Redis settings of src/config.ts (docs/deploy.md "Redis"). */
export interface RedisTopology {
  REDIS_URL: string;
  REDIS_MODE?: 'standalone' | 'sentinel' | 'cluster';
  REDIS_SENTINELS?: string;
  REDIS_SENTINEL_MASTER?: string;
  REDIS_CLUSTER_NODES?: string;
}

const hostPorts = (list: string, defaultPort: number) =>
  list
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((s) => {
      const i = s.lastIndexOf(':');
      return i > 0 ? { host: s.slice(0, i).replace(/^\[|\]$/g, ''), port: Number(s.slice(i + 1)) } : { host: s, port: defaultPort };
    });

/** Credentials, database and TLS from REDIS_URL (in sentinel and cluster mode they apply to every node). */
function urlOptions(url: string): RedisOptions {
  const u = new URL(url);
  return {
    host: u.hostname,
    port: Number(u.port || 6379),
    ...(u.username ? { username: decodeURIComponent(u.username) } : {}),
    ...(u.password ? { password: decodeURIComponent(u.password) } : {}),
    ...(u.pathname.length > 1 ? { db: Number(u.pathname.slice(1)) } : {}),
    ...(u.protocol === 'rediss:' ? { tls: {} } : {}),
  };
}

/**
 * ioredis options (standalone, sentinel) or a Cluster (cluster mode) for the given topology.
 * BullMQ's connections need `maxRetriesPerRequest: null`.
 */
export function redisConnection(t: RedisTopology, forBullmq: boolean): RedisOptions | Cluster {
  const base = urlOptions(t.REDIS_URL);
  const extra = forBullmq ? { maxRetriesPerRequest: null } : {};
  if (t.REDIS_MODE === 'cluster') {
    const { host: _h, port: _p, db: _db, ...nodeOptions } = base;
    const options: ClusterOptions = { redisOptions: { ...nodeOptions, ...extra }, enableReadyCheck: true, ...(nodeOptions.tls ? { dnsLookup: (address, cb) => cb(null, address) } : {}) };
    return new Cluster(hostPorts(t.REDIS_CLUSTER_NODES ?? '', 6379), options);
  }
  if (t.REDIS_MODE === 'sentinel') {
    const { host: _h, port: _p, ...rest } = base;
    return { ...rest, sentinels: hostPorts(t.REDIS_SENTINELS ?? '', 26379), name: t.REDIS_SENTINEL_MASTER ?? 'mymaster', ...extra };
  }
  return { ...base, ...extra };
}

/**
 * The app's own client (caches, rate limits, counters). A URL string (tests, CLIs) means standalone.
 * A Cluster answers the same commands; it is typed as Redis for the callers.
 */
export function createRedis(urlOrTopology: string | RedisTopology, opts: { forBullmq?: boolean; logger?: OutageLogger } = {}): Redis {
  const t = typeof urlOrTopology === 'string' ? { REDIS_URL: urlOrTopology } : urlOrTopology;
  const conn = redisConnection(t, opts.forBullmq ?? false);
  const client = conn instanceof Cluster ? (conn as unknown as Redis) : new Redis({ ...conn, lazyConnect: false, enableReadyCheck: true });
  logOutages(client, 'redis', opts.logger);
  return client;
}

/** The part of a pino logger outage reports need. */
export interface OutageLogger {
  warn(obj: object, msg: string): void;
  info(msg: string): void;
}

/**
 * One warning when `emitter` (a Redis client, a BullMQ queue) loses its server and one line when it is
 * back — instead of ioredis's "Unhandled error event" on every reconnection attempt. ioredis and BullMQ
 * reconnect by themselves; callers see their commands fail (or wait) meanwhile.
 */
export function logOutages(emitter: { on(event: string, fn: (...args: any[]) => void): unknown }, what: string, logger?: OutageLogger): void {
  let down = false;
  emitter.on('error', (err: Error) => {
    if (down) return;
    down = true;
    logger?.warn({ err: err.message, what }, `${what} unavailable; reconnecting`);
  });
  emitter.on('ready', () => {
    if (!down) return;
    down = false;
    logger?.info(`${what} available again`);
  });
}
