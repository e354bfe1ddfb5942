import { readdirSync } from 'node:fs';
import http from 'node:http';
import type { APIRequestContext } from '@playwright/test';
import { readDevMailbox } from '@/server/mail/dev-mailbox.server';
import { PICTURE_POLICY } from '../../src/edge/csp.ts';
import { expect, test } from './fixtures';
import { newShopper } from './journeys';

// Attacks at the HTTP edge, sent as an attacker would: raw requests with headers a browser would never let a page set.

const mailbox = `http://127.0.0.1:${process.env.E2E_MAILBOX_PORT}`;

interface RawAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** One raw HTTP request to the server under test; `body` may be a function that writes (or never finishes) it. */
function raw(
  baseURL: string,
  path: string,
  {
    method = 'GET',
    headers = {},
    body,
  }: { method?: string; headers?: Record<string, string>; body?: string | ((req: http.ClientRequest) => void) } = {},
): Promise<RawAnswer> {
  const url = new URL(path, baseURL);
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        text += chunk;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
    });
    req.on('error', reject);
    if (typeof body === 'function') body(req);
    else req.end(body);
  });
}

/** A product picture's address, as the product page shows it (a release's picture, named by its bytes). */
async function productPicture(request: APIRequestContext): Promise<string> {
  const html = await (await request.get('/product/3')).text();
  const picture = /\/pictures\/[\w.-]+\.svg/.exec(html)?.[0];
  if (!picture) throw new Error('the product page shows no picture');
  return picture;
}

const errorMessage = (answer: RawAnswer) => (JSON.parse(answer.body) as { error: { message: string } }).error.message;

test.describe('HTTP edge', () => {
  test('every document carries the security headers, pre-rendered and on-demand pages alike', async ({ request }) => {
    // The 404 page and /admin (404 to a guest) are rendered on demand; the others are built files.
    for (const path of ['/', '/product/3', '/wishlist', '/no-such-page', '/admin']) {
      const res = await request.get(path);
      const headers = res.headers();
      expect(headers['content-type'], path).toMatch(/^text\/html/);
      expect(headers['x-content-type-options'], path).toBe('nosniff');
      expect(headers['x-frame-options'], path).toBe('DENY');
      expect(headers['referrer-policy'], path).toBe('strict-origin-when-cross-origin');
      expect(headers['content-security-policy'], path).toContain("frame-ancestors 'none'");
      expect(headers['content-security-policy'], path).toContain("default-src 'self'");
      expect(headers['strict-transport-security'], `${path}: no HSTS over plain http`).toBeUndefined();
      // The embedded default has no Stripe: no page may load its script, frames or API (src/edge/csp.ts).
      expect(headers['content-security-policy'], path).not.toContain('stripe.com');
    }
  });

  test('scripts, pictures and JSON carry nosniff, and none of the headers only a document heeds', async ({ request }) => {
    const assets = readdirSync(new URL('../../dist/client/_astro', import.meta.url));
    const script = assets.find((f) => f.endsWith('.js'));
    const picture = await productPicture(request);
    for (const path of ['/favicon.svg', `/_astro/${script}`, picture, '/api/auth/session', '/api/no-such-thing']) {
      const headers = (await request.get(path)).headers();
      expect(headers['content-type'], path).not.toMatch(/^text\/html/);
      expect(headers['x-content-type-options'], path).toBe('nosniff');
      for (const name of ['x-frame-options', 'referrer-policy', 'cross-origin-opener-policy'])
        expect(headers[name], `${path}: ${name}`).toBeUndefined();
      // A picture opened on its own is a document: it gets the policy under which nothing in it runs or loads
      // (PICTURE_POLICY), compressed or not; anything else that is no document gets no policy at all.
      if (path.endsWith('.svg')) {
        for (const encoding of ['br', 'gzip', 'identity']) {
          const answer = await request.get(path, { headers: { 'accept-encoding': encoding } });
          expect(answer.headers()['content-security-policy'], `${path} (${encoding})`).toBe(PICTURE_POLICY);
        }
      } else expect(headers['content-security-policy'], path).toBeUndefined();
    }
  });

  test('a picture opened on its own runs nothing, though its styles apply', async ({ page, baseURL, request }) => {
    const picture = await productPicture(request);
    const blocked: string[] = [];
    page.on('console', (message) => {
      if (/content security policy/i.test(message.text())) blocked.push(message.text());
    });
    await page.goto(`${baseURL}${picture}`);
    // Sandboxed without allow-scripts: the page's own script cannot run, and the picture has an opaque origin.
    expect(await page.evaluate(() => window.origin)).toBe('null');
    expect(await page.locator('svg').first().isVisible()).toBe(true);
    expect(blocked).toEqual([]);
  });

  test('an idle connection is left for the client to close (no reset as a reused connection is dropped)', async ({ request }) => {
    const res = await request.get('/api/health');
    expect(res.headers()['keep-alive']).toBe('timeout=65');
  });

  test('no page of the shop can be framed, not even by a page of the same site', async ({ page, baseURL }) => {
    await page.goto('/about');
    // setContent waits for the frame's load: a shop page would show its header inside it.
    await page.setContent(`<iframe src="${baseURL}/wishlist" title="framed"></iframe>`);
    const child = page.frames().find((f) => f !== page.mainFrame());
    expect(child).toBeDefined();
    expect(await child?.locator('header').count()).toBe(0);
  });

  test('links in e-mails use the shop’s own origin, whatever Host the request names', async ({ baseURL }) => {
    const origin = baseURL ?? '';
    const victim = newShopper('Vera');
    const signup = await raw(origin, '/api/auth/signup', {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin },
      body: JSON.stringify({ ...victim, confirmPassword: victim.password }),
    });
    expect(signup.status).toBe(200);

    // The attacker names their own host and a matching Origin: refused outright.
    const forged = await raw(origin, '/api/auth/reset-request', {
      method: 'POST',
      headers: { host: 'attacker.example', origin: 'http://attacker.example', 'content-type': 'application/json' },
      body: JSON.stringify({ email: victim.email }),
    });
    expect(forged.status).toBe(403);

    // With our Origin but their Host, the reset goes out, linking to the shop.
    const reset = await raw(origin, '/api/auth/reset-request', {
      method: 'POST',
      headers: { host: 'attacker.example', origin, 'content-type': 'application/json' },
      body: JSON.stringify({ email: victim.email }),
    });
    expect(reset.status).toBe(200);
    let links: string[] = [];
    await expect
      .poll(async () => {
        const mails = (await readDevMailbox(mailbox)).filter((m) => m.to.includes(victim.email));
        links = mails.flatMap((m) => m.text.match(/https?:\/\/\S+token=[\w-]+/g) ?? []);
        return links.length;
      })
      .toBeGreaterThanOrEqual(2);
    for (const link of links) expect(new URL(link).origin).toBe(origin);
  });

  test('a body declared too large is refused before it is read', async ({ baseURL }) => {
    const started = Date.now();
    const answer = await raw(baseURL ?? '', '/api/contact', {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: baseURL ?? '', 'content-length': String(100 * 1024 * 1024) },
      // Send only the first kilobyte of the promised 100 MiB: the answer must not wait for the rest.
      body: (req) => req.write('x'.repeat(1024)),
    });
    expect(answer.status).toBe(413);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  test('a streamed body is cut off at the limit', async ({ baseURL }) => {
    const answer = await raw(baseURL ?? '', '/api/contact', {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: baseURL ?? '', 'transfer-encoding': 'chunked' },
      body: (req) => {
        const chunk = 'x'.repeat(64 * 1024);
        let sent = 0;
        const more = () => {
          // 64 MiB at most, stopping as soon as the server has answered.
          while (sent < 1024 && !req.destroyed && req.write(chunk)) sent++;
          if (sent < 1024 && !req.destroyed) req.once('drain', more);
          else req.end();
        };
        req.on('response', () => req.destroy());
        more();
      },
    }).catch((error: Error) => ({ status: -1, headers: {}, body: error.message }));
    expect(answer.status).toBe(413);
  });

  test('a body that never arrives is timed out', async ({ baseURL }) => {
    test.slow();
    const answer = await raw(baseURL ?? '', '/api/contact', {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: baseURL ?? '', 'content-length': '200' },
      body: (req) => req.write('{"name":'),
    });
    expect(answer.status).toBe(408);
  });

  test('NUL characters in any text field get a 400 with a message, never a 500', async ({ request, baseURL }) => {
    const headers = { origin: baseURL ?? '' };
    const shopper = newShopper('Nul');
    const attempts = [
      ['/api/contact', { name: 'Ann\u0000', email: 'ann@example.com', message: 'Hello' }],
      ['/api/contact', { name: 'Ann', email: 'ann@example.com', message: 'Hel\u0000lo' }],
      ['/api/auth/login', { email: 'ann\u0000@example.com', password: 'whatever-1' }],
      ['/api/auth/signup', { ...shopper, firstName: 'N\u0000', confirmPassword: shopper.password }],
      ['/api/auth/signup', { ...shopper, lastName: '\u0000', confirmPassword: shopper.password }],
    ] as const;
    for (const [path, data] of attempts) {
      const res = await request.post(path, { headers, data });
      expect(res.status(), path).toBe(400);
      expect(((await res.json()) as { error: { message: string } }).error.message).toMatch(/NUL character/);
    }
    const query = await request.get('/api/reviews?productId=1%00');
    expect(query.status()).toBe(400);
  });
});

test('a raw request with a NUL in its address is answered 400, not 500', async ({ baseURL }) => {
  const answer = await raw(baseURL ?? '', '/api/orders?status=%00');
  expect(answer.status).toBe(400);
  expect(errorMessage(answer)).toMatch(/NUL character/);
});

test('no request path makes the built shop redirect off the site', async ({ baseURL }) => {
  const { hostname, port } = new URL(baseURL ?? '');
  for (const path of ['//evil.com/%2e%2e/', '//evil.com/', '/\\evil.com/%2e%2e/', '///evil.com/product/', '//evil.com/about/']) {
    // The path goes out exactly as written: a URL object would resolve it against the host.
    const answer = await new Promise<http.IncomingMessage>((resolve, reject) =>
      http.get({ hostname, port, path }, resolve).on('error', reject),
    );
    answer.resume();
    const location = answer.headers.location;
    if (location !== undefined)
      expect(new URL(location, baseURL).host, `${path} → ${location}`).toBe(new URL(baseURL ?? '').host);
  }
});
