import type { Logger } from 'pino';
import type { Redis } from './redis.js';

/**
 * Read-mostly data cached inside each process (platform settings, verified credentials) with
 * invalidation across every process through Redis pub/sub. Processes stay stateless: the cache is
 * only a copy of Postgres, and whenever the invalidation channel may have missed a message (the
 * subscriber reconnected) or an entry is older than `maxAgeMs`, it is read again. A write calls
 * `invalidate` after its transaction commits: the writing process forgets at once, the others as
 * soon as the message arrives (milliseconds).
 */
export class ProcessCache<V> {
  private readonly entries = new Map<string, { value: Promise<V>; loadedAt: number }>();

  constructor(
    readonly name: string,
    private readonly bus: InvalidationBus,
    private readonly maxAgeMs: number,
    private readonly maxEntries = 10_000,
  ) {
    bus.register(this);
  }

  /** The cached value, or `load()`'s (one load at a time per key; a failed load is not kept). */
  get(key: string, load: () => Promise<V>): Promise<V> {
    // Without the invalidation channel a copy could be stale: read through.
    if (!this.bus.live) return load();
    const hit = this.entries.get(key);
    const now = Date.now();
    if (hit && now - hit.loadedAt < this.maxAgeMs) return hit.value;
    if (this.entries.size >= this.maxEntries) this.entries.clear();
    const value = load();
    this.entries.set(key, { value, loadedAt: now });
    value.catch(() => {
      if (this.entries.get(key)?.value === value) this.entries.delete(key);
    });
    return value;
  }

  /** Drops `key` and the keys grouped under it (`key` + newline + anything). */
  forget(key: string): void {
    this.entries.delete(key);
    const group = `${key}\n`;
    for (const k of this.entries.keys()) if (k.startsWith(group)) this.entries.delete(k);
  }

  clear(): void {
    this.entries.clear();
  }
}

/** One Redis subscriber per process carrying every cache's invalidations. */
export class InvalidationBus {
  private readonly caches = new Map<string, ProcessCache<unknown>>();
  private subscriber?: Redis;
  private readonly channel: string;

  constructor(
    private readonly redis: Redis,
    prefix: string,
    private readonly logger?: Logger,
  ) {
    this.channel = `${prefix}:invalidate`;
  }

  register(cache: ProcessCache<any>): void {
    this.caches.set(cache.name, cache);
  }

  /** Subscribes; until then (and after every reconnect) nothing cached can be trusted, so all is cleared. */
  async start(): Promise<void> {
    if (this.subscriber) return;
    const sub = this.redis.duplicate();
    this.subscriber = sub;
    sub.on('error', (err) => this.logger?.warn({ err: err.message }, 'invalidation subscriber error'));
    sub.on('ready', () => this.clearAll());
    sub.on('close', () => this.clearAll());
    sub.on('message', (_channel, message: string) => {
      const sep = message.indexOf('\n');
      if (sep < 0) return;
      this.caches.get(message.slice(0, sep))?.forget(message.slice(sep + 1));
    });
    await sub.subscribe(this.channel);
    this.clearAll();
  }

  /** While the subscriber is not connected, every read goes to Postgres. */
  get live(): boolean {
    return this.subscriber?.status === 'ready';
  }

  async publish(cacheName: string, key: string): Promise<void> {
    await this.redis.publish(this.channel, `${cacheName}\n${key}`).catch((err) => this.logger?.warn({ err: err.message }, 'invalidation publish failed'));
  }

  clearAll(): void {
    for (const c of this.caches.values()) c.clear();
  }

  async close(): Promise<void> {
    const sub = this.subscriber;
    this.subscriber = undefined;
    if (sub) await sub.quit().catch(() => sub.disconnect());
  }
}
