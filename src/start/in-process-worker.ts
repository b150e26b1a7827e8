import type { AppConfig } from '../config.js';
import { closeDeps, createDeps } from '../bootstrap.js';
import { startWorkers } from '../workers.js';

/**
 * The worker inside the API process (`npm start` in the sandbox; RUN_WORKER_IN_PROCESS): the same queue
 * processors and loops as `npm run worker`, on connections of their own (pool, Redis, BullMQ) as a second
 * process would have, so neither side waits on the other's pool. Its health is the API's: it is ready
 * before the API listens, and stops with it.
 */
export async function startInProcessWorker(config: AppConfig): Promise<{ close(): Promise<void> }> {
  const deps = await createDeps(config, 'worker');
  const running = startWorkers(deps);
  try {
    await Promise.all(running.workers.map((w) => w.waitUntilReady()));
  } catch (err) {
    await running.close().catch(() => undefined);
    await closeDeps(deps);
    throw err;
  }
  deps.logger.info({ queues: running.workers.map((w) => w.name), inProcess: true }, 'worker ready');
  return {
    async close() {
      await running.close();
      await closeDeps(deps);
    },
  };
}

/** `npm start -- --no-worker` runs the API alone for this start, whatever RUN_WORKER_IN_PROCESS says. */
export const runsWorkerInProcess = (config: AppConfig, argv: readonly string[]): boolean => config.RUN_WORKER_IN_PROCESS && !argv.includes('--no-worker');
