import { readdirSync, readFileSync } from 'node:fs';
import { expect, test } from '@playwright/test';

// How the built files are served (scripts/serve.mjs): pages, their one URL each, long-lived caching for fingerprinted
// assets, conditional and partial requests, nothing outside the build, and /api never looked for on disk.

const client = new URL('../../dist/client/', import.meta.url);
const builtAssets = readdirSync(new URL('_astro', client));
const asset = builtAssets.find((f) => f.endsWith('.js'));

test.describe('static files', () => {
  test('pages answer at their one URL; a trailing slash redirects to it, keeping the query', async ({ request }) => {
    for (const path of ['/', '/about', '/product/3', '/about?utm=x']) {
      const res = await request.get(path, { maxRedirects: 0 });
      expect(res.status(), path).toBe(200);
      expect(res.headers()['content-type'], path).toBe('text/html; charset=utf-8');
    }
    const redirects: [string, string][] = [
      ['/about/', '/about'],
      ['/product/3/', '/product/3'],
      ['/product/', '/product'],
      ['/about/?utm=x', '/about?utm=x'],
    ];
    for (const [path, to] of redirects) {
      const res = await request.get(path, { maxRedirects: 0 });
      expect(res.status(), path).toBe(301);
      expect(res.headers().location, path).toBe(to);
    }
  });

  test('what the build does not hold is the shop’s 404 page; files outside it and dot files are never served', async ({
    request,
  }) => {
    for (const path of ['/product', '/product/99', '/no-such-page', '/.env', '/_astro', '/%2e%2e/package.json']) {
      const res = await request.get(path, { maxRedirects: 0 });
      expect(res.status(), path).toBe(404);
      expect(await res.text(), path).toContain('Not Found');
    }
    const res = await request.get('/%E0%A4%A');
    expect(res.status()).toBe(400);
  });

  test('fingerprinted assets are cached for a year; pages revalidate with ETag and answer ranges', async ({ request }) => {
    const script = await request.get(`/_astro/${asset}`);
    expect(script.status()).toBe(200);
    expect(script.headers()['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(script.headers()['content-type']).toMatch(/^text\/javascript/);

    const page = await request.get('/about');
    expect(page.headers()['cache-control']).toBe('public, max-age=0');
    const etag = page.headers().etag ?? '';
    expect(etag).not.toBe('');
    expect((await request.get('/about', { headers: { 'if-none-match': etag } })).status()).toBe(304);
    const part = await request.get('/about', { headers: { range: 'bytes=0-14' } });
    expect(part.status()).toBe(206);
    expect(await part.text()).toBe('<!DOCTYPE html>');
  });

  test('/api answers JSON from the server, its unknown paths included, never a file', async ({ request }) => {
    const health = await request.get('/api/health');
    expect(health.status()).toBe(200);
    expect(health.headers()['content-type']).toBe('application/json; charset=utf-8');
    const unknown = await request.get('/api/no-such-thing');
    expect(unknown.status()).toBe(404);
    expect(unknown.headers()['content-type']).toBe('application/json; charset=utf-8');
  });
});

test('the minified product pictures render pixel for pixel as their sources', async ({ page }) => {
  const sources = new URL('../../content/products/images/', import.meta.url);
  const pairs = readdirSync(sources)
    .filter((f) => f.endsWith('.svg'))
    .map((f) => {
      const built = builtAssets.find((b) => b.startsWith(`${f.slice(0, -4)}.`) && b.endsWith('.svg'));
      return [f, built] as const;
    });
  expect(pairs.length).toBeGreaterThan(10);
  const dataUrl = (svg: Buffer) => `data:image/svg+xml;base64,${svg.toString('base64')}`;
  for (const [source, built] of pairs) {
    expect(built, source).toBeDefined();
    const a = dataUrl(readFileSync(new URL(source, sources)));
    const b = dataUrl(readFileSync(new URL(`_astro/${built}`, client)));
    expect(readFileSync(new URL(`_astro/${built}`, client)).length, source).toBeLessThanOrEqual(
      readFileSync(new URL(source, sources)).length,
    );
    const differing = await page.evaluate(
      async ({ first, second }) => {
        const load = (src: string) =>
          new Promise<HTMLImageElement>((resolve, reject) => {
            const image = new Image();
            image.onload = () => resolve(image);
            image.onerror = reject;
            image.src = src;
          });
        const pixels = async (src: string) => {
          const canvas = new OffscreenCanvas(800, 800);
          const context = canvas.getContext('2d');
          context?.drawImage(await load(src), 0, 0, 800, 800);
          return context?.getImageData(0, 0, 800, 800).data ?? new Uint8ClampedArray();
        };
        const [x, y] = [await pixels(first), await pixels(second)];
        let count = 0;
        for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) count++;
        return count;
      },
      { first: a, second: b },
    );
    expect(differing, `${source} → ${built}`).toBe(0);
  }
});
