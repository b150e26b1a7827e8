import client from 'prom-client';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Redis } from './redis.js';
import type { Queues } from './queue.js';
import { registerBusinessMetrics, type BusinessMetricsDeps } from './business-metrics.js';

/**
 * Prometheus metrics. Request metrics are per process (Prometheus scrapes each API process);
 * counters that workers produce live in Redis hashes so any API process reports the cluster-wide
 * totals, and queue depths are read from BullMQ at scrape time.
 */
export function createMetrics(deps: { redis: Redis; redisPrefix: string; queues: Queues; business?: BusinessMetricsDeps }) {
  const registry = new client.Registry();
  client.collectDefaultMetrics({ register: registry });
  if (deps.business) registerBusinessMetrics(registry, deps.business);
  const requests = new client.Counter({
    name: 'http_requests_total',
    help: 'HTTP requests by route, method and status',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [registry],
  });
  const latency = new client.Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request latency by route',
    labelNames: ['method', 'route'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry],
  });
  new client.Gauge({
    name: 'queue_jobs',
    help: 'BullMQ jobs by queue and state',
    labelNames: ['queue', 'state'] as const,
    registers: [registry],
    async collect() {
      this.reset();
      for (const [name, q] of Object.entries(deps.queues)) {
        const counts = await q.getJobCounts('waiting', 'active', 'delayed', 'failed', 'completed');
        for (const [state, n] of Object.entries(counts)) this.set({ queue: name, state }, n);
      }
    },
  });
  new client.Gauge({
    name: 'webhook_deliveries_total',
    help: 'Webhook delivery attempts by outcome (delivered, retry, failed, undeliverable), all workers',
    labelNames: ['outcome'] as const,
    registers: [registry],
    async collect() {
      this.reset();
      const counts = await deps.redis.hgetall(`${deps.redisPrefix}:metrics:webhook_deliveries`);
      for (const [outcome, n] of Object.entries(counts)) this.set({ outcome }, Number(n));
    },
  });

  /**
   * Counts every request; serves GET /metrics only when `guard` is given (operator credentials set),
   * behind it. Without operator credentials /metrics is a 404.
   */
  function install(app: FastifyInstance, guard?: (req: FastifyRequest, reply: FastifyReply) => Promise<unknown>) {
    app.addHook('onResponse', async (req, reply) => {
      const route = req.routeOptions.url ?? 'unmatched';
      requests.inc({ method: req.method, route, status: String(reply.statusCode) });
      latency.observe({ method: req.method, route }, reply.elapsedTime / 1000);
    });
    if (!guard) return;
    app.get('/metrics', { logLevel: 'warn', onRequest: guard }, async (_req, reply) => {
      reply.type(registry.contentType);
      return registry.metrics();
    });
  }
  return { registry, install };
}

/** Cluster-wide counter kept in Redis (see createMetrics). */
export async function incrementCounter(deps: { redis: Redis; config: { REDIS_PREFIX: string } }, name: string, label: string): Promise<void> {
  await deps.redis.hincrby(`${deps.config.REDIS_PREFIX}:metrics:${name}`, label, 1);
}
