import { expect, type Page } from '@playwright/test';

/** Waits until the island containing `selector` has hydrated (Astro drops the `ssr` attribute then). */
export async function hydrated(page: Page, selector: string): Promise<void> {
  const island = page.locator('astro-island', { has: page.locator(selector) }).last();
  await island.scrollIntoViewIfNeeded();
  await expect(island).not.toHaveAttribute('ssr', /.*/);
}

/**
 * Waits until every island on the page has hydrated. A `client:visible` one waits to be seen, so each is scrolled into
 * view first (its first element: an island is `display: contents`; one that renders nothing is simply waited for).
 * What axe then checks is what a shopper uses, not the server's first paint.
 */
export async function allHydrated(page: Page): Promise<void> {
  await page.evaluate(async () => {
    const frame = () => new Promise((resolve) => requestAnimationFrame(resolve));
    for (const island of document.querySelectorAll('astro-island[ssr][client="visible"]')) {
      island.firstElementChild?.scrollIntoView({ block: 'center' });
      await frame();
      await frame();
    }
  });
  await expect(page.locator('astro-island[ssr]')).toHaveCount(0);
}

/** Every console error and uncaught error the page reports from now on (React's hydration errors among them). */
export function consoleErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  page.on('pageerror', (e) => errors.push(e.message));
  return errors;
}
