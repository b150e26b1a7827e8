import { Redis } from 'ioredis';

export type { Redis };

/** BullMQ needs `maxRetriesPerRequest: null` on its connections; the app's own client uses the default. */
export function createRedis(url: string, opts: { forBullmq?: boolean } = {}): Redis {
  return new Redis(url, {
    lazyConnect: false,
    enableReadyCheck: true,
    ...(opts.forBullmq ? { maxRetriesPerRequest: null } : {}),
  });
}
