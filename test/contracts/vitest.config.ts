import { defineConfig } from 'vitest/config';

/**
 * `npm run adapter:test`: only the module contract runner, and no database or Redis (an adapter
 * author needs neither).
 */
export default defineConfig({
  test: {
    root: process.cwd(),
    include: ['test/contracts/module.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
