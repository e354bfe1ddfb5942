import { expect, type Page } from '@playwright/test';

/** Waits until the island containing `selector` has hydrated (Astro drops the `ssr` attribute then). */
export async function hydrated(page: Page, selector: string): Promise<void> {
  const island = page.locator('astro-island', { has: page.locator(selector) }).last();
  await island.scrollIntoViewIfNeeded();
  await expect(island).not.toHaveAttribute('ssr', /.*/);
}
