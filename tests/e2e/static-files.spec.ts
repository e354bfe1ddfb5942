import { readdirSync, readFileSync, statSync } from 'node:fs';
import { zstdDecompressSync } from 'node:zlib';
import type { APIResponse } from '@playwright/test';
import { expect, test } from './fixtures';
import { allHydrated } from './journeys';

// How the built files and a release's pages are served (src/edge/static-files.ts, src/edge/release.ts): pages, their one URL each, long-lived
// caching for fingerprinted assets, conditional and partial requests, nothing outside the build, and /api never looked
// for on disk; and how every answer is compressed: the built files from the brotli and gzip files the build wrote
// beside them, a release's pages once when it is readied, on-demand pages and JSON as they are sent.

const client = new URL('../../dist/client/', import.meta.url);

/** An answer's text, decoded: Playwright's request client decodes brotli and gzip itself, but not zstd. */
const textOf = async (res: APIResponse) =>
  res.headers()['content-encoding'] === 'zstd' ? zstdDecompressSync(await res.body()).toString() : res.text();
const builtAssets = readdirSync(new URL('_astro', client));
const asset = builtAssets.find((f) => f.endsWith('.js'));
/** The largest script of the build (React), which every page loads. */
const bigScript = builtAssets
  .filter((f) => f.endsWith('.js'))
  .sort((a, b) => statSync(new URL(`_astro/${b}`, client)).size - statSync(new URL(`_astro/${a}`, client)).size)[0];
const sizeOf = (file: string) => String(statSync(new URL(file, client)).size);

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

// Playwright's request sends its own Accept-Encoding unless told: every request below names the one it means.
// Its answers' bodies come decoded; the headers say what went over the wire.
test.describe('compression', () => {
  test('a page and a script are sent in the encoding asked for, with the encoded length and Vary', async ({ request }) => {
    const cases: [string, string | undefined, string][] = [
      ['br, gzip', 'br', '.br'],
      ['gzip, deflate, br, zstd', 'br', '.br'],
      ['gzip', 'gzip', '.gz'],
      ['br;q=0, gzip', 'gzip', '.gz'],
      ['identity', undefined, ''],
      ['', undefined, ''],
    ];
    // The script as the build wrote it, beside its brotli and gzip files.
    const original = readFileSync(new URL(`_astro/${bigScript}`, client));
    for (const [accept, encoding, suffix] of cases) {
      const res = await request.get(`/_astro/${bigScript}`, { headers: { 'accept-encoding': accept } });
      const what = `${bigScript} with Accept-Encoding "${accept}"`;
      expect(res.status(), what).toBe(200);
      expect(res.headers()['content-encoding'], what).toBe(encoding);
      expect(res.headers().vary, what).toBe('Accept-Encoding');
      expect(res.headers()['content-length'], what).toBe(sizeOf(`_astro/${bigScript}${suffix}`));
      expect((await res.body()).equals(original), what).toBe(true);
    }
    // A release's pages, compressed once when the release was readied (decision 018): the same bytes in every encoding.
    for (const path of ['/', '/product/3']) {
      const plain = await request.get(path, { headers: { 'accept-encoding': 'identity' } });
      const original = await plain.body();
      expect(plain.headers()['content-length']).toBe(String(original.length));
      for (const [accept, encoding] of cases) {
        const res = await request.get(path, { headers: { 'accept-encoding': accept } });
        const what = `${path} with Accept-Encoding "${accept}"`;
        expect(res.status(), what).toBe(200);
        expect(res.headers()['content-encoding'], what).toBe(encoding);
        expect(res.headers().vary, what).toBe('Accept-Encoding');
        if (encoding) expect(Number(res.headers()['content-length']), what).toBeLessThan(original.length / 3);
        expect((await res.body()).equals(original), what).toBe(true);
      }
    }
  });

  test('HEAD, a 304 for the encoding held, and a Range request (answered from the file itself)', async ({ request }) => {
    const head = await request.head('/product/3', { headers: { 'accept-encoding': 'br' } });
    const br = await request.get('/product/3', { headers: { 'accept-encoding': 'br' } });
    expect(head.headers()['content-encoding']).toBe('br');
    expect(head.headers()['content-length']).toBe(br.headers()['content-length']);
    expect(await head.body()).toHaveLength(0);

    const gzip = await request.get('/product/3', { headers: { 'accept-encoding': 'gzip' } });
    const etag = br.headers().etag ?? '';
    expect(etag).not.toBe(gzip.headers().etag);
    const again = await request.get('/product/3', { headers: { 'accept-encoding': 'br', 'if-none-match': etag } });
    expect(again.status()).toBe(304);
    expect(again.headers().vary).toBe('Accept-Encoding');
    const other = await request.get('/product/3', { headers: { 'accept-encoding': 'gzip', 'if-none-match': etag } });
    expect(other.status()).toBe(200);
    expect(other.headers()['content-encoding']).toBe('gzip');

    const part = await request.get('/product/3', { headers: { 'accept-encoding': 'br, gzip', range: 'bytes=0-14' } });
    expect(part.status()).toBe(206);
    expect(part.headers()['content-encoding']).toBeUndefined();
    const whole = (await (await request.get('/product/3', { headers: { 'accept-encoding': 'identity' } })).body()).length;
    expect(part.headers()['content-range']).toBe(`bytes 0-14/${whole}`);
    expect(await part.text()).toBe('<!DOCTYPE html>');
  });

  test('on-demand JSON over 1 KB comes compressed when asked for, as it is when not; small JSON as it is', async ({
    request,
    baseURL,
    signIn,
  }) => {
    // A shopper's own pending review is in their reviews list: a long one makes the answer over 1 KB.
    await signIn(request, 'Zip');
    const comment = 'Rich and light at once; it sinks in fast and the scent stays gentle all day. '.repeat(20).trim();
    const posted = await request.post('/api/reviews', { headers: { origin: baseURL ?? '' }, data: { productId: 3, comment } });
    expect(posted.status()).toBe(201);
    const reviews = (accept: string) => request.get('/api/reviews?productId=3', { headers: { 'accept-encoding': accept } });
    const raw = await reviews('identity');
    const rawLength = Number(raw.headers()['content-length'] ?? (await raw.body()).length);
    expect(rawLength).toBeGreaterThan(1024);
    expect(raw.headers()['content-encoding']).toBeUndefined();
    expect(raw.headers().vary).toBe('Accept-Encoding');
    const list = JSON.stringify(await raw.json());
    expect(list).toContain(comment);
    for (const [accept, encoding] of [
      ['gzip, deflate, br, zstd', 'zstd'],
      ['br, gzip', 'br'],
      ['gzip', 'gzip'],
    ] as const) {
      const res = await reviews(accept);
      expect(res.headers()['content-encoding'], accept).toBe(encoding);
      expect(res.headers().vary, accept).toBe('Accept-Encoding');
      expect(res.headers()['content-type'], accept).toBe('application/json; charset=utf-8');
      expect(Number(res.headers()['content-length']), accept).toBeLessThan(rawLength / 2);
      expect(JSON.stringify(JSON.parse(await textOf(res))), accept).toBe(list);
    }
    const health = await request.get('/api/health', { headers: { 'accept-encoding': 'br' } });
    expect(health.headers()['content-encoding']).toBeUndefined();
  });

  test('an on-demand page (the 404 page, streamed by Astro) comes whole in every encoding', async ({ request }) => {
    const plain = await request.get('/no-such-page', { headers: { 'accept-encoding': 'identity' } });
    expect(plain.status()).toBe(404);
    const page = await plain.text();
    expect(page).toMatch(/^<!DOCTYPE html>[\s\S]*Not Found[\s\S]*<\/html>$/);
    for (const [accept, encoding] of [
      ['gzip, deflate, br, zstd', 'zstd'],
      ['br', 'br'],
      ['gzip', 'gzip'],
    ] as const) {
      const res = await request.get('/no-such-page', { headers: { 'accept-encoding': accept } });
      expect(res.status(), accept).toBe(404);
      expect(res.headers()['content-encoding'], accept).toBe(encoding);
      expect(res.headers()['content-security-policy'], accept).toContain("frame-ancestors 'none'");
      const text = await textOf(res);
      expect(text, accept).toMatch(/^<!DOCTYPE html>[\s\S]*Not Found[\s\S]*<\/html>$/);
    }
  });

  for (const path of ['/', '/product/3']) {
    test(`${path}: no text answer over 1 KB reaches Chromium uncompressed`, async ({ page }) => {
      const texts: Promise<string | undefined>[] = [];
      page.on('response', (response) => {
        texts.push(
          (async () => {
            const type = response.headers()['content-type'] ?? '';
            if (!/^(text\/|application\/(json|javascript|xml|manifest\+json)|image\/svg\+xml)/.test(type)) return;
            const body = await response.body().catch(() => undefined);
            if (!body || body.length <= 1024) return;
            const encoding = response.headers()['content-encoding'];
            return encoding === 'zstd' || encoding === 'br' || encoding === 'gzip'
              ? undefined
              : `${response.url()} (${type}, ${body.length} bytes)`;
          })(),
        );
      });
      await page.goto(path);
      await page.locator('footer').scrollIntoViewIfNeeded();
      await allHydrated(page);
      // Every file the page has loaded so far (the document and each resource it reports) has been looked at.
      const loaded = await page.evaluate(() => 1 + performance.getEntriesByType('resource').length);
      await expect.poll(() => texts.length).toBeGreaterThanOrEqual(loaded);
      expect(texts.length).toBeGreaterThan(3);
      expect((await Promise.all(texts)).filter(Boolean)).toEqual([]);
    });
  }
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
