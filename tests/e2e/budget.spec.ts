import { gzipSync } from 'node:zlib';
import { expect, test } from './fixtures';
import { allHydrated } from './journeys';

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
    // Scroll to the footer so the islands that wait to be seen (client:painted="visible") load too.
    await page.locator('footer').scrollIntoViewIfNeeded();
    await expect(page.locator('astro-island[ssr]')).toHaveCount(0);
    const total = [...scripts.values()].reduce((a, b) => a + b, 0);
    expect(total, [...scripts.entries()].map(([u, n]) => `${new URL(u).pathname} ${n}`).join('\n')).toBeLessThanOrEqual(
      BUDGET_BYTES,
    );
  });
}

// Before its first paint a page fetches nothing but itself (and what it draws): the islands' scripts wait for the
// paint (client:painted), so they never compete with it on a slow network, and the icon is in the page. The 404 page
// is short enough to show its footer, whose newsletter form waits to be seen.
for (const path of ['/', '/product/3', '/about', '/no-such-page']) {
  test(`${path}: the islands' scripts are fetched after the first paint, and no icon is fetched`, async ({ page }) => {
    const requested: string[] = [];
    page.on('request', (request) => requested.push(new URL(request.url()).pathname));
    await page.goto(path);
    await allHydrated(page);
    const { paint, scripts } = await page.evaluate(() => ({
      paint: performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? Number.NaN,
      scripts: performance
        .getEntriesByType('resource')
        .filter((entry) => new URL(entry.name).pathname.endsWith('.js'))
        .map((entry) => ({ url: new URL(entry.name).pathname, start: entry.startTime })),
    }));
    expect(paint).toBeGreaterThan(0);
    expect(scripts.length).toBeGreaterThan(3);
    for (const script of scripts) expect(script.start, script.url).toBeGreaterThanOrEqual(paint);
    expect(requested.filter((p) => p.includes('favicon'))).toEqual([]);
  });
}
