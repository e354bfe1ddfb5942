/// <reference types="vitest/config" />
import { getViteConfig } from 'astro/config';

// Astro's Vite config gives tests the same `@/` alias and astro/zod as the site.
export default getViteConfig({
  test: {
    environment: 'node',
    include: [
      'src/**/*.test.ts',
      'editor/**/*.test.ts',
      'tests/unit/**/*.test.ts',
      'tests/db/**/*.test.ts',
      'tests/contract/**/*.test.ts',
      'tests/reliability/**/*.test.ts',
    ],
    setupFiles: ['tests/setup/fail-on-console-error.ts'],
    // The database suites hash passwords (argon2id) and run migrations on PGlite: on a busy 2-core machine a test that
    // takes 1 s alone can take 6. A hang still fails, after 15 s rather than 5.
    testTimeout: 15_000,
  },
});
