/// <reference types="vitest/config" />
import { getViteConfig } from 'astro/config';

// Astro's Vite config gives tests the same `@/` alias and astro/zod as the site.
export default getViteConfig({
  test: {
    environment: 'node',
    setupFiles: ['tests/setup/fail-on-console-error.ts'],
    // The database suites hash passwords (argon2id) and run migrations on PGlite: on a busy 2-core machine a test that
    // takes 1 s alone can take 6. A hang still fails, after 15 s rather than 5.
    testTimeout: 15_000,
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
