import type { Worker } from 'bullmq';
import type { AppDeps } from './deps.js';
import { bullConnection } from './bootstrap.js';
import { MODULES } from './modules.js';

export interface RunningWorkers {
  workers: Worker[];
  /** Heartbeats: when each periodic loop last finished a pass (epoch ms); worker health reads them. */
  heartbeats: Map<string, number>;
  /** Stops taking jobs, waits for the running ones to finish, stops the loops. */
  close(): Promise<void>;
}

/** Starts every module's queue processors and periodic loops. Used by worker.ts and by tests. */
export function startWorkers(deps: AppDeps): RunningWorkers {
  const connection = bullConnection(deps.config);
  const workers = MODULES.flatMap((m) => m.workers?.(deps, connection) ?? []);
  for (const w of workers) w.on('error', (err) => deps.logger.error({ err, queue: w.name }, 'worker error'));

  let stopped = false;
  const wakers = new Set<() => void>();
  const heartbeats = new Map<string, number>();
  const loops = MODULES.flatMap((m) => m.loops ?? []).map(async (loop) => {
    heartbeats.set(loop.name, Date.now());
    while (!stopped) {
      let handled = 0;
      try {
        handled = await loop.run(deps);
      } catch (err) {
        deps.logger.error({ err, loop: loop.name }, 'loop failed');
      }
      heartbeats.set(loop.name, Date.now());
      // A full batch means more is waiting: go again at once.
      if (loop.batch && handled >= loop.batch(deps)) continue;
      if (stopped) break;
      await new Promise<void>((resolve) => {
        const wake = () => {
          clearTimeout(t);
          wakers.delete(wake);
          resolve();
        };
        const t = setTimeout(wake, loop.intervalMs(deps));
        wakers.add(wake);
      });
    }
  });

  return {
    workers,
    heartbeats,
    async close() {
      stopped = true;
      for (const wake of [...wakers]) wake();
      await Promise.all(loops);
      await Promise.all(workers.map((w) => w.close()));
    },
  };
}
