import os from 'node:os';
import { defineConfig } from 'vitest/config';

/**
 * Files that run whole processes (built API and worker, killed -9, a Redis of their own, Chromium): each
 * keeps a core busy in bursts, so they run two at a time, after the rest.
 */
const PROCESS_TESTS = [
  'test/chaos/**/*.test.ts',
  'test/deploy/**/*.test.ts',
  'test/dashboard/*.e2e.test.ts',
  'test/customers/hosted-kyc.test.ts',
  'test/platform/startup.test.ts',
  'test/platform/redis-loss.test.ts',
  'test/platform/redis-cluster.test.ts',
  'test/payments/idempotency-crash.test.ts',
  'test/payments/worker-crash.test.ts',
  'test/adapters/registry.test.ts',
  'test/adapters/public-api.test.ts',
];

/**
 * The rest: HTTP through app.inject against Postgres and Redis, each file on a database of its own
 * (test/helpers/app.ts), so files run in parallel. They wait on Postgres, Redis and queue drains as much
 * as they compute: twice as many files as cores keeps the cores busy (one per core left them idle 40 %
 * of the time on the 2-core CI machine).
 */
const cores = os.availableParallelism();

export default defineConfig({
  test: {
    globalSetup: ['test/helpers/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    fileParallelism: true,
    projects: [
      {
        extends: true,
        test: {
          name: 'requests',
          // The dashboard's unit tests (formatting, state) run with the server's.
          include: ['test/**/*.test.ts', 'dashboard/test/**/*.test.ts'],
          exclude: PROCESS_TESTS,
          maxWorkers: Math.max(2, cores * 2),
          // A worker runs its files one after another on one module graph: each file builds its own app on a
          // database, queue prefix and Redis keys of its own (test/helpers/app.ts) and closes it in afterAll, and
          // src/ keeps per-app state in WeakMaps keyed by the app's objects, so nothing of one file reaches the
          // next. Evaluating src/ and its dependencies once per worker instead of once per file halves the
          // project's CPU time (the `import` phase was a third of the suite on the 2-core CI machine).
          isolate: false,
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: {
          name: 'processes',
          include: PROCESS_TESTS,
          maxWorkers: Math.max(1, cores),
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
