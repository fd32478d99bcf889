import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts'],
          exclude: ['test/lab/**', 'test/package/**', 'node_modules/**', 'dist/**'],
          globalSetup: ['test/global-setup.ts'],
          testTimeout: 30_000,
        },
      },
      {
        // What `npm run package` built (dist/package): run after it, as scripts/test-all.sh does.
        test: {
          name: 'package',
          include: ['test/package/**/*.test.ts'],
          globalSetup: ['test/global-setup.ts'],
          testTimeout: 60_000,
        },
      },
      {
        // Lab suites send real traffic on a 2-core machine: one file at a time (LAB.md).
        test: {
          name: 'lab',
          include: ['test/lab/**/*.test.ts'],
          globalSetup: ['test/global-setup.ts'],
          fileParallelism: false,
          testTimeout: 180_000,
          hookTimeout: 60_000,
        },
      },
    ],
  },
});
