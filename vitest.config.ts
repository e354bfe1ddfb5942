/// <reference types="vitest/config" />
import { availableParallelism } from 'node:os';
import { getViteConfig } from 'astro/config';

// Astro's Vite config gives tests the same `@/` alias and astro/zod as the site.
export default getViteConfig({
  test: {
    environment: 'node',
    setupFiles: ['tests/setup/fail-on-console-error.ts'],
    // One migrated PGlite snapshot per run, which each database suite opens a copy of.
    globalSetup: ['tests/setup/pglite-snapshot.ts'],
    // The database suites hash passwords (argon2id) and run migrations on PGlite: on a busy 2-core machine a test that
    // takes 1 s alone can take 6. A hang still fails, after 15 s rather than 5.
    testTimeout: 15_000,
    // Hooks open, migrate and close PGlite databases: closing one took over Vitest's default 10 s beside the end-to-end
    // suite in CI (backup-files.test's afterAll). A hook that hangs still fails, after a minute.
    hookTimeout: 60_000,
    // Vitest's default leaves a core free, which on 2 cores is one file at a time; two take the suite from about 7
    // minutes to under 4 here (docs/performance.md).
    maxWorkers: Math.max(2, availableParallelism() - 1),
    // Each test file runs in a process of its own, and each database suite's compiles PGlite's WebAssembly there:
    // without V8's optimising tier that costs about a fifth less CPU across the database suites (docs/performance.md),
    // as it does for the server (scripts/server-flags.mjs).
    execArgv: ['--liftoff-only'],
    projects: [
      {
        extends: true,
        test: {
          name: 'shop',
          include: [
            'src/**/*.test.ts',
            'editor/**/*.test.ts',
            'tests/unit/**/*.test.ts',
            'tests/db/**/*.test.ts',
            'tests/contract/**/*.test.ts',
          ],
        },
      },
      {
        // Every /api endpoint in-process on a test shop: its setup file puts the test shop's services in place.
        extends: true,
        test: {
          name: 'reliability',
          include: ['tests/reliability/**/*.test.ts'],
          setupFiles: ['tests/reliability/setup.ts'],
        },
      },
    ],
  },
});
