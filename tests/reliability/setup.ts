// The reliability suites' project (vitest.config.ts) runs this before each of its files: the shop's services are the
// test shop's (a fresh database, e-mail recorded instead of sent), and astro:content, which only exists inside Astro's
// build, is the catalogue read from content/. vi.mock in a setup file applies to every test file it runs before.
import { vi } from 'vitest';

vi.mock('@/app/services.server', async (real) => ({
  ...(await real<object>()),
  getServices: (await import('./test-shop')).testServices,
}));
vi.mock('astro:content', async () => (await import('./test-shop')).astroContent);
