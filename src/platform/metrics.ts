import client from 'prom-client';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Redis } from './redis.js';
import type { Queues } from './queue.js';
import type { PrismaClient } from './db.js';
import { registerBusinessMetrics, type BusinessMetricsDeps } from './business-metrics.js';

/**
 * Prometheus metrics. Request metrics are per process (Prometheus scrapes each API process);
 * counters that workers produce live in Redis hashes so any API process reports the cluster-wide
 * totals, and queue depths are read from BullMQ at scrape time.
 */
export function createMetrics(deps: { redis: Redis; redisPrefix: string; queues: Queues; prisma?: PrismaClient; business?: BusinessMetricsDeps }) {
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
  /** A counter every process adds to (incrementCounter): the Redis hash `counter`, one series per field, labelled `label`. */
  const sharedCounter = (name: string, help: string, counter: string, label: string) =>
    new client.Gauge({
      name,
      help,
      labelNames: [label],
      registers: [registry],
      async collect() {
        this.reset();
        const counts = await deps.redis.hgetall(`${deps.redisPrefix}:metrics:${counter}`);
        for (const [value, n] of Object.entries(counts)) this.set({ [label]: value }, Number(n));
      },
    });
  sharedCounter('webhook_deliveries_total', 'Webhook delivery attempts by outcome (delivered, retry, failed, undeliverable), all workers', 'webhook_deliveries', 'outcome');
  sharedCounter(
    'jobs_revived_total',
    'Jobs the durable-schedule sweepers re-enqueued because no live BullMQ job held due work (issue 11), by queue, all workers',
    'jobs_revived',
    'queue',
  );
  const prisma = deps.prisma;
  if (prisma) {
    // Read from Postgres at scrape time: the figures survive Redis and every API process reports the same.
    new client.Gauge({
      name: 'payments_rail_unknown',
      help: 'PROCESSING payments their rail has no record of (pendingReason RAIL_PAYOUT_UNKNOWN): money held, an operator should look',
      registers: [registry],
      async collect() {
        this.set(await prisma.transaction.count({ where: { status: 'PROCESSING', pendingReason: 'RAIL_PAYOUT_UNKNOWN' } }));
      },
    });
    new client.Gauge({
      name: 'payments_processing',
      help: 'Payments still PROCESSING, and how many of them are past their reconciliation time (overdue)',
      labelNames: ['state'] as const,
      registers: [registry],
      async collect() {
        this.reset();
        const [all, overdue] = await Promise.all([
          prisma.transaction.count({ where: { status: 'PROCESSING' } }),
          prisma.transaction.count({ where: { status: 'PROCESSING', reconcileAfter: { lt: new Date() } } }),
        ]);
        this.set({ state: 'all' }, all);
        this.set({ state: 'overdue' }, overdue);
      },
    });
  }

  /**
   * Counts every request; serves GET /metrics only when `guard` is given (operator credentials set),
   * behind it. Without operator credentials /metrics is a 404.
   */
  function install(app: FastifyInstance, guard?: (req: FastifyRequest, reply: FastifyReply) => Promise<unknown>) {
    app.addHook('onResponse', (req, reply, done) => {
      const route = req.routeOptions.url ?? 'unmatched';
      requests.inc({ method: req.method, route, status: String(reply.statusCode) });
      latency.observe({ method: req.method, route }, reply.elapsedTime / 1000);
      done();
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
export async function incrementCounter(deps: { redis: Redis; config: { REDIS_PREFIX: string } }, name: string, label: string, by = 1): Promise<void> {
  await deps.redis.hincrby(`${deps.config.REDIS_PREFIX}:metrics:${name}`, label, by);
}
