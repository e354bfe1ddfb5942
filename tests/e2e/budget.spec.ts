import { gzipSync } from 'node:zlib';
import { expect, test } from './fixtures';

// The JavaScript budget (issue: at most 80 KB gzip on / and /product/*), counted in bytes, not timed.
const BUDGET_BYTES = 80 * 1024;

for (const path of ['/', '/product/3', '/product/8']) {
  test(`${path} loads at most 80 KB of JavaScript (gzip)`, async ({ page }) => {
    const scripts = new Map<string, number>();
    page.on('response', async (response) => {
      if (response.request().resourceType() !== 'script') return;
      scripts.set(response.url(), gzipSync(await response.body()).length);
    });
    await page.goto(path);
    // Scroll to the footer so client:visible islands load too.
    await page.locator('footer').scrollIntoViewIfNeeded();
    await expect(page.locator('astro-island[client="idle"][ssr]')).toHaveCount(0);
    await expect(page.locator('astro-island[client="visible"][ssr]')).toHaveCount(0);
    const total = [...scripts.values()].reduce((a, b) => a + b, 0);
    expect(total, [...scripts.entries()].map(([u, n]) => `${new URL(u).pathname} ${n}`).join('\n')).toBeLessThanOrEqual(
      BUDGET_BYTES,
    );
  });
}
