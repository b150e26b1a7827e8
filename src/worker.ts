import closeWithGrace from 'close-with-grace';
import { ConfigError, loadConfig } from './config.js';
import { closeDeps, createDeps } from './bootstrap.js';
import { startWorkers } from './workers.js';

async function main() {
  const config = loadConfig();
  const deps = await createDeps(config, 'worker');
  const running = startWorkers(deps);
  // Ready once every queue processor holds its Redis connection (the line operators and tests wait for).
  await Promise.all(running.workers.map((w) => w.waitUntilReady()));
  deps.logger.info({ queues: running.workers.map((w) => w.name) }, 'worker ready');
  // SIGTERM/SIGINT: finish the jobs in hand (BullMQ keeps the rest queued), then close the pools.
  closeWithGrace({ delay: config.SHUTDOWN_TIMEOUT_MS }, async ({ signal, err }) => {
    if (err) deps.logger.error({ err }, 'shutting down after error');
    else deps.logger.info({ signal }, 'shutting down');
    await running.close();
    await closeDeps(deps);
  });
}

main().catch((err) => {
  console.error(err instanceof ConfigError ? err.message : err);
  process.exit(1);
});
