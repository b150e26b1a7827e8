import type { Worker } from 'bullmq';
import type { AppDeps } from './deps.js';
import { bullConnection } from './bootstrap.js';
import { relayOutbox, startWebhookWorker } from './domains/webhooks/webhooks.jobs.js';

export interface RunningWorkers {
  workers: Worker[];
  /** Stops taking jobs, waits for the running ones to finish, stops the relay. */
  close(): Promise<void>;
}

/** Starts every queue processor and the outbox relay loop. Used by worker.ts and by tests. */
export function startWorkers(deps: AppDeps): RunningWorkers {
  const connection = bullConnection(deps.config);
  const workers = [startWebhookWorker(deps, connection)];
  for (const w of workers) w.on('error', (err) => deps.logger.error({ err, queue: w.name }, 'worker error'));

  let stopped = false;
  let wake: (() => void) | undefined;
  const relayLoop = (async () => {
    while (!stopped) {
      let moved = 0;
      try {
        moved = await relayOutbox(deps);
      } catch (err) {
        deps.logger.error({ err }, 'outbox relay failed');
      }
      // A full batch means more rows are waiting: go again at once.
      if (moved < deps.config.OUTBOX_RELAY_BATCH && !stopped) {
        await new Promise<void>((resolve) => {
          const t = setTimeout(resolve, deps.config.OUTBOX_RELAY_INTERVAL_MS);
          wake = () => {
            clearTimeout(t);
            resolve();
          };
        });
      }
    }
  })();

  return {
    workers,
    async close() {
      stopped = true;
      wake?.();
      await relayLoop;
      await Promise.all(workers.map((w) => w.close()));
    },
  };
}
