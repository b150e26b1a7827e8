import { createServer, type Server } from 'node:http';
import type { AppDeps } from './deps.js';
import type { RunningWorkers } from './workers.js';
import { MODULES } from './modules.js';

/** A loop that has not finished a pass for its interval plus this long is stuck. */
export const LOOP_STALE_GRACE_MS = 300_000;

export function workerHealth(deps: AppDeps, running: RunningWorkers, now = Date.now()) {
  const stale: string[] = [];
  for (const loop of MODULES.flatMap((m) => m.loops ?? [])) {
    const beat = running.heartbeats.get(loop.name);
    if (beat === undefined || now - beat > loop.intervalMs(deps) + LOOP_STALE_GRACE_MS) stale.push(loop.name);
  }
  const stopped = running.workers.filter((w) => !w.isRunning()).map((w) => w.name);
  return { ok: stale.length === 0 && stopped.length === 0, staleLoops: stale, stoppedQueues: stopped };
}

/**
 * The worker's health port (WORKER_HEALTH_PORT): GET /healthz is 200 while every periodic loop keeps
 * beating and every queue worker runs (a stuck worker is restarted by Docker or Kubernetes);
 * GET /readyz also checks Postgres and Redis. Nothing else is served.
 */
export async function startWorkerHealthServer(deps: AppDeps, running: RunningWorkers, port: number, host = '0.0.0.0'): Promise<Server> {
  const server = createServer(async (req, res) => {
    const send = (status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (req.method !== 'GET') return send(405, { status: 'error' });
    if (req.url === '/healthz') {
      const h = workerHealth(deps, running);
      return send(h.ok ? 200 : 503, { status: h.ok ? 'ok' : 'error', ...h });
    }
    if (req.url === '/readyz') {
      const timeout = <T>(p: Promise<T>) => Promise.race([p, new Promise<never>((_, rej) => setTimeout(() => rej(new Error('timeout')), 2000).unref())]);
      const [pg, redis] = await Promise.all([
        timeout(deps.prisma.$queryRaw`SELECT 1`).then(() => 'ok', () => 'error'),
        timeout(deps.redis.ping()).then(() => 'ok', () => 'error'),
      ]);
      const ok = pg === 'ok' && redis === 'ok' && workerHealth(deps, running).ok;
      return send(ok ? 200 : 503, { status: ok ? 'ok' : 'error', checks: { postgres: pg, redis } });
    }
    send(404, { status: 'error' });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, resolve);
  });
  return server;
}
