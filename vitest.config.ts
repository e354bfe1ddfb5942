/// <reference types="vitest/config" />
import { getViteConfig } from 'astro/config';

// Astro's Vite config gives tests the same `@/` alias and astro/zod as the site.
export default getViteConfig({
  test: {
    environment: 'node',
    include: ['src/**/*.test.ts', 'tests/unit/**/*.test.ts', 'tests/db/**/*.test.ts', 'tests/contract/**/*.test.ts'],
    setupFiles: ['tests/setup/fail-on-console-error.ts'],
  },
});
