import closeWithGrace from 'close-with-grace';
import { ConfigError, loadConfig } from './config.js';
import { startTracing } from './platform/tracing.js';

async function main() {
  const config = loadConfig();
  // Tracing (when enabled) starts before the modules it instruments are loaded: hence the imports below.
  const tracing = await startTracing(config, 'svc-payments-worker');
  const { closeDeps, createDeps } = await import('./bootstrap.js');
  const { startWorkers } = await import('./workers.js');
  const { startWorkerHealthServer } = await import('./worker-health.js');
  const deps = await createDeps(config, 'worker');
  const running = startWorkers(deps);
  // Ready once every queue processor holds its Redis connection (the line operators and tests wait for).
  await Promise.all(running.workers.map((w) => w.waitUntilReady()));
  const health = config.WORKER_HEALTH_PORT ? await startWorkerHealthServer(deps, running, config.WORKER_HEALTH_PORT, config.HOST) : undefined;
  deps.logger.info({ queues: running.workers.map((w) => w.name), healthPort: config.WORKER_HEALTH_PORT || null }, 'worker ready');
  // SIGTERM/SIGINT: stop taking jobs, finish the jobs in hand (BullMQ keeps the rest queued for the
  // next worker), then close the pools. A job still running at SHUTDOWN_TIMEOUT_MS is left to
  // BullMQ's stalled-job check, which hands it to another worker.
  closeWithGrace({ delay: config.SHUTDOWN_TIMEOUT_MS }, async ({ signal, err }) => {
    if (err) deps.logger.error({ err }, 'shutting down after error');
    else deps.logger.info({ signal }, 'shutting down: draining jobs in hand');
    await running.close();
    health?.close();
    await closeDeps(deps);
    await tracing?.shutdown().catch(() => undefined);
    deps.logger.info('worker stopped');
  });
}

main().catch((err) => {
  console.error(err instanceof ConfigError ? err.message : err);
  process.exit(1);
});
