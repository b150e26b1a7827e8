import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // The dashboard's unit tests (formatting, state) run with the server's.
    include: ['test/**/*.test.ts', 'dashboard/test/**/*.test.ts'],
    globalSetup: ['test/helpers/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Each file gets its own database and Redis prefix (test/helpers/app.ts), so files run in parallel.
    fileParallelism: true,
  },
});
