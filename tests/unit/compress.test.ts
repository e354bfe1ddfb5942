import { randomBytes } from 'node:crypto';
import { EventEmitter } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createBrotliDecompress, createGunzip, createZstdDecompress, zstdCompressSync, zstdDecompressSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compressing, keptZstd, negotiateEncoding, recentlyCompressed } from '../../src/edge/compression.ts';
import { type Answer, decoded, rawRequest } from './raw-http';

// On-demand answers (Astro's pages and /api JSON) compressed as they are sent (src/edge/compression.ts), as Astro's
// adapter writes them: writeHead with every header, the body in chunks, then end(), with no Content-Length.

const json = { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' };
const html = { 'content-type': 'text/html; charset=utf-8' };
const large = JSON.stringify({
  reviews: Array.from({ length: 40 }, (_, i) => ({ id: i, comment: `Lovely cream, number ${i}` })),
});
const small = JSON.stringify({ user: null });
const other = JSON.stringify({ orders: Array.from({ length: 90 }, (_, i) => ({ id: `order-${i}`, total: i * 7 })) });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Released by a client once it has decoded the first part of a streamed page. The handler waits for that (3 s at most)
 * before it writes the rest; `releasedInTime` says whether the client released it, rather than the wait running out.
 */
let release: () => void = () => {};
let releasedInTime = false;
async function waitForClient() {
  const outcome = await Promise.race([
    new Promise<string>((resolve) => {
      release = () => resolve('client');
    }),
    sleep(3000).then(() => 'timeout'),
  ]);
  release = () => {};
  releasedInTime = outcome === 'client';
}

const routes: Record<string, (res: http.ServerResponse) => unknown> = {
  '/json-large': (res) => res.writeHead(200, json).end(large),
  '/json-large-chunks': (res) => {
    res.writeHead(200, json);
    for (let i = 0; i < large.length; i += 300) res.write(large.slice(i, i + 300));
    res.end();
  },
  '/json-small': (res) => res.writeHead(200, json).end(small),
  '/json-other-chunks': (res) => {
    res.writeHead(200, json);
    for (let i = 0; i < other.length; i += 700) res.write(other.slice(i, i + 700));
    res.end();
  },
  '/json-small-chunks': (res) => {
    res.writeHead(200, json);
    res.write(small.slice(0, 5));
    res.end(small.slice(5));
  },
  '/json-end-only': (res) => {
    res.setHeader('content-type', 'application/json');
    res.end(large);
  },
  '/json-small-end-only': (res) => {
    res.setHeader('content-type', 'application/json');
    res.end(small);
  },
  '/known-length': (res) => res.writeHead(200, { ...json, 'content-length': String(Buffer.byteLength(large)) }).end(large),
  '/page-streamed': async (res) => {
    res.writeHead(200, html);
    res.write(`<!DOCTYPE html><title>Orders</title>${'<p>part one</p>'.repeat(100)}`);
    await waitForClient();
    res.write('<p>part two</p>');
    res.end('</html>');
  },
  '/page-three-parts': async (res) => {
    res.writeHead(200, html);
    res.write(`<!DOCTYPE html><title>Orders</title>${'<p>part one</p>'.repeat(100)}`);
    await waitForClient();
    const first = releasedInTime;
    res.write('<p>part two</p>'.repeat(100));
    // Waits again: the client releases it once part two has arrived, before the page has ended.
    await waitForClient();
    releasedInTime &&= first;
    res.end('</html>');
  },
  '/page-small-first': async (res) => {
    res.writeHead(404, html);
    res.write('<!DOCTYPE html><title>Not found</title>');
    await waitForClient();
    res.end(`${'<p>more</p>'.repeat(200)}</html>`);
  },
  '/events': async (res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    res.write(`data: ${'x'.repeat(2000)}\n\n`);
    await waitForClient();
    res.end('data: bye\n\n');
  },
  '/page-of-views': (res) => {
    // Parts of one larger buffer, as a stream hands them over: each a view with an offset of its own.
    const whole = new TextEncoder().encode(`xx${viewsPage}yy`);
    const half = 2 + Math.floor(viewsPage.length / 2);
    res.writeHead(200, html);
    res.write(whole.subarray(2, half));
    res.end(whole.subarray(half, whole.length - 2));
  },
  '/no-content': (res) => res.writeHead(204).end(),
  '/not-modified': (res) => res.writeHead(304, { etag: '"a"', 'content-type': 'text/html' }).end(),
  '/already-encoded': (res) => res.writeHead(200, { ...json, 'content-encoding': 'gzip' }).end('not really gzip'),
  '/no-transform': (res) => res.writeHead(200, { ...json, 'cache-control': 'no-transform' }).end(large),
  '/picture': (res) => res.writeHead(200, { 'content-type': 'image/png' }).end(Buffer.alloc(5000)),
  '/write-callback': (res) => {
    res.writeHead(500, html);
    res.write('Internal server error', () => res.end());
  },
};

const viewsPage = `<!DOCTYPE html><title>Views</title>${'<p>a part of a larger buffer</p>'.repeat(80)}`;

let server: http.Server;
let port: number;
beforeAll(async () => {
  server = http.createServer(
    compressing(
      (req, res) => {
        const route = routes[(req.url ?? '').split('?')[0] ?? ''];
        if (route) route(res);
        else res.writeHead(404).end();
      },
      // What the edge does with it (fits the policy to the page), reduced to something a test can see.
      { wholeBody: (res, body) => res.setHeader('x-whole-body', `${body.length} ${body.subarray(0, 2)}`) },
    ),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const request = (path: string, headers: Record<string, string> = {}, method = 'GET') => rawRequest(port, path, headers, method);
const text = (answer: Answer) => decoded(answer).toString();

/**
 * Reads a streamed answer decoded as it comes, releasing the server's handler once `first` has arrived; resolves to
 * the whole text. The handler waits for that release (3 s at most), so the first part must arrive while it waits.
 */
function streamed(path: string, accept: string, first: string) {
  return new Promise<{ headers: http.IncomingHttpHeaders; text: string }>((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port, path, headers: { 'accept-encoding': accept } }, (res) => {
        const encoding = res.headers['content-encoding'];
        const body =
          encoding === 'zstd'
            ? res.pipe(createZstdDecompress())
            : encoding === 'br'
              ? res.pipe(createBrotliDecompress())
              : encoding === 'gzip'
                ? res.pipe(createGunzip())
                : res;
        let received = '';
        body.on('data', (chunk: Buffer) => {
          received += chunk.toString();
          if (received.includes(first)) release();
        });
        body.on('end', () => resolve({ headers: res.headers, text: received }));
        body.on('error', reject);
      })
      .on('error', reject);
  });
}

describe('on-demand answers are compressed for clients that accept it', () => {
  it.each([
    ['/json-large', 'br, gzip', 'br'],
    // What Chromium and Firefox send: zstd, about as cheap as brotli 0 and as small as brotli 3 (see compressing).
    ['/json-large', 'gzip, deflate, br, zstd', 'zstd'],
    ['/json-large', 'zstd;q=0.5, br', 'br'],
    ['/json-large', 'zstd', 'zstd'],
    // `*` does not name zstd, which older clients that send it may not read: they get brotli, as before.
    ['/json-large', '*', 'br'],
    ['/json-large-chunks', 'zstd, br', 'zstd'],
    ['/json-large', 'gzip', 'gzip'],
    ['/json-large', 'br;q=0, gzip', 'gzip'],
    ['/json-large', 'identity', undefined],
    ['/json-large', 'gzip;q=0, br;q=0', undefined],
    ['/json-large-chunks', 'br', 'br'],
    ['/json-end-only', 'br', 'br'],
    ['/known-length', 'gzip', 'gzip'],
  ])('%s with Accept-Encoding "%s": %s', async (path, accept, encoding) => {
    const answer = await request(path, { 'accept-encoding': accept });
    expect(answer.status).toBe(200);
    expect(answer.headers['content-encoding']).toBe(encoding);
    expect(answer.headers.vary).toBe('Accept-Encoding');
    expect(answer.headers['cache-control'] ?? 'no-store').toBe('no-store');
    expect(JSON.parse(text(answer))).toEqual(JSON.parse(large));
    if (encoding) expect(answer.body.length).toBeLessThan(Buffer.byteLength(large) / 2);
    // A body that came whole while its head was held back is compressed whole, and says its length.
    if (encoding && ['/json-large', '/json-end-only'].includes(path))
      expect(answer.headers['content-length']).toBe(String(answer.body.length));
  });

  it('shows the whole body before the head goes, when it ended while the head was held, and not for a stream', async () => {
    for (const accept of ['zstd', 'br', 'gzip']) {
      const whole = await request('/json-large', { 'accept-encoding': accept });
      expect(whole.headers['x-whole-body'], accept).toBe(`${Buffer.byteLength(large)} {"`);
      const tiny = await request('/json-small', { 'accept-encoding': accept });
      expect(tiny.headers['x-whole-body'], accept).toBe(`${Buffer.byteLength(small)} {"`);
    }
    const { headers } = await streamed('/page-streamed', 'zstd', 'part one');
    expect(headers['x-whole-body']).toBeUndefined();
  });

  it('answers put together at the same time each get their own bytes (the parts of a body are joined in one reused buffer)', async () => {
    const paths = ['/json-large-chunks', '/json-other-chunks', '/json-small-chunks'];
    const bodies: Record<string, string> = {
      '/json-large-chunks': large,
      '/json-other-chunks': other,
      '/json-small-chunks': small,
    };
    const answers = await Promise.all(
      Array.from({ length: 60 }, (_, i) => paths[i % 3] ?? '').map(async (path, i) => ({
        path,
        answer: await request(path, { 'accept-encoding': ['zstd', 'br', 'gzip'][i % 3] ?? 'zstd' }),
      })),
    );
    for (const { path, answer } of answers) expect(text(answer), path).toBe(bodies[path]);
  });

  it('a small body sent as it is keeps its bytes while later answers are put together', () => {
    // A response that keeps what it is given to send, as a socket that cannot write yet does, and reads it later.
    const given: Buffer[] = [];
    const response = () => {
      const headers = new Map<string, unknown>();
      const res = Object.assign(new EventEmitter(), {
        statusCode: 200,
        getHeader: (name: string) => headers.get(name.toLowerCase()),
        setHeader: (name: string, value: unknown) => headers.set(name.toLowerCase(), value),
        removeHeader: (name: string) => headers.delete(name.toLowerCase()),
        writeHead: () => res,
        write: () => true,
        end: (chunk: Buffer) => {
          given.push(chunk);
          return res;
        },
      });
      return res;
    };
    const handler = compressing((req, res) => {
      const body = req.url === '/small' ? small : large;
      res.writeHead(200, json);
      res.write(body.slice(0, 5));
      res.end(body.slice(5));
    });
    for (const url of ['/small', '/large', '/small', '/large']) {
      const req = { url, method: 'GET', headers: { 'accept-encoding': 'zstd' } };
      handler(req as unknown as http.IncomingMessage, response() as unknown as http.ServerResponse);
    }
    expect(given.map((bytes, i) => (i % 2 === 0 ? bytes.toString() : zstdDecompressSync(bytes).toString()))).toEqual([
      small,
      large,
      small,
      large,
    ]);
  });

  it('a client that sends no Accept-Encoding gets JSON as it is', async () => {
    const answer = await request('/json-large');
    expect(answer.headers['content-encoding']).toBeUndefined();
    expect(answer.body.toString()).toBe(large);
  });

  it('a body written as views into a larger buffer is sent as those bytes, not the buffer around them', async () => {
    for (const accept of ['zstd', 'br', 'gzip', 'identity']) {
      const answer = await request('/page-of-views', { 'accept-encoding': accept });
      expect(text(answer)).toBe(viewsPage);
    }
  });

  it('answers under 1 KB are sent as they are, with their length, even when their length was not given', async () => {
    for (const path of ['/json-small', '/json-small-end-only']) {
      const answer = await request(path, { 'accept-encoding': 'br, gzip' });
      expect(answer.headers['content-encoding'], path).toBeUndefined();
      expect(answer.headers['content-length'], path).toBe(String(Buffer.byteLength(small)));
      expect(answer.body.toString(), path).toBe(small);
    }
  });

  it('HEAD, 204 and 304 get no Content-Encoding (a HEAD still says Vary)', async () => {
    const head = await request('/json-large', { 'accept-encoding': 'br' }, 'HEAD');
    expect(head.headers['content-encoding']).toBeUndefined();
    expect(head.headers.vary).toBe('Accept-Encoding');
    for (const path of ['/no-content', '/not-modified']) {
      const answer = await request(path, { 'accept-encoding': 'br' });
      expect(answer.headers['content-encoding'], path).toBeUndefined();
      expect(answer.body.length, path).toBe(0);
    }
  });

  it('leaves alone what is encoded already, what says no-transform, and pictures', async () => {
    const encoded = await request('/already-encoded', { 'accept-encoding': 'br' });
    expect(encoded.headers['content-encoding']).toBe('gzip');
    expect(encoded.body.toString()).toBe('not really gzip');
    const kept = await request('/no-transform', { 'accept-encoding': 'br' });
    expect(kept.headers['content-encoding']).toBeUndefined();
    expect(kept.body.toString()).toBe(large);
    const picture = await request('/picture', { 'accept-encoding': 'br' });
    expect(picture.headers['content-encoding']).toBeUndefined();
    expect(picture.body.length).toBe(5000);
  });

  it('a streamed page arrives as it is rendered: its first part is decoded before the rest is written', async () => {
    for (const accept of ['zstd', 'br', 'gzip', 'identity']) {
      const { headers, text: page } = await streamed('/page-streamed', accept, 'part one');
      expect(releasedInTime, accept).toBe(true);
      expect(headers['content-encoding'], accept).toBe(accept === 'identity' ? undefined : accept);
      expect(page, accept).toMatch(/^<!DOCTYPE html>.*<p>part two<\/p><\/html>$/);
    }
  });

  it('a page whose first part is small is not held back until it ends', async () => {
    const { headers, text: page } = await streamed('/page-small-first', 'br', '<title>Not found</title>');
    expect(releasedInTime).toBe(true);
    expect(headers['content-encoding']).toBe('br');
    expect(page).toMatch(/^<!DOCTYPE html><title>Not found<\/title>(<p>more<\/p>)+<\/html>$/);
  });

  it('a later part of a streamed page arrives before the page ends, not held until it does', async () => {
    for (const accept of ['zstd', 'br']) {
      const started = performance.now();
      const { headers, text: page } = await streamed('/page-three-parts', accept, '<p>part one</p>');
      expect(releasedInTime, accept).toBe(true);
      expect(headers['content-encoding'], accept).toBe(accept);
      expect(page, accept).toMatch(/^<!DOCTYPE html><title>Orders<\/title>(<p>part one<\/p>)+(<p>part two<\/p>)+<\/html>$/);
      // Flushed within a few tens of milliseconds (FLUSH_EVERY_MS), far from the 3 s the handler would wait.
      expect(performance.now() - started, accept).toBeLessThan(1500);
    }
  });

  it('Server-Sent Events are never compressed, and each event arrives as it is sent', async () => {
    const { headers, text: events } = await streamed('/events', 'br, gzip', 'data: x');
    expect(releasedInTime).toBe(true);
    expect(headers['content-encoding']).toBeUndefined();
    expect(events).toMatch(/data: bye\n\n$/);
  });

  it('a client that leaves half-way through a streamed page costs nothing but the page', async () => {
    let closed: () => void = () => {};
    const gone = new Promise<void>((resolve) => {
      closed = resolve;
    });
    http
      .get({ host: '127.0.0.1', port, path: '/page-streamed', headers: { 'accept-encoding': 'br' } }, (res) => {
        res.once('data', () => {
          res.destroy();
          // The handler writes the rest into an answer whose client has gone.
          setTimeout(() => {
            release();
            closed();
          }, 50);
        });
      })
      .on('error', () => {});
    await gone;
    await sleep(100);
    // Still answering.
    expect((await request('/json-large', { 'accept-encoding': 'br' })).status).toBe(200);
  });

  it('calls back a write once it is sent (how Astro ends an answer that failed half-way)', async () => {
    const answer = await request('/write-callback', { 'accept-encoding': 'br' });
    expect(answer.status).toBe(500);
    expect(text(answer)).toBe('Internal server error');
  });
});

describe('an answer sent again is compressed once', () => {
  it('reuses the compressed bytes of the very same body and encoding, and compresses any other body', () => {
    const recent = recentlyCompressed();
    let compressions = 0;
    const compress = (body: Buffer) => () => {
      compressions++;
      return Buffer.concat([Buffer.from('z:'), body]);
    };
    const page = Buffer.from('<p>Page Not Found</p>'.repeat(100));
    const other = Buffer.from('<p>Page Not Fount</p>'.repeat(100));
    expect(recent.compressed(page, 'br', compress(page)).toString()).toBe(`z:${page}`);
    expect(recent.compressed(Buffer.from(page), 'br', compress(page)).toString()).toBe(`z:${page}`);
    expect(compressions).toBe(1);
    // Same length, other bytes: compressed, and its own bytes come back.
    expect(recent.compressed(other, 'br', compress(other)).toString()).toBe(`z:${other}`);
    // The same bytes in another encoding are another answer.
    recent.compressed(page, 'gzip', compress(page));
    expect(compressions).toBe(3);
  });

  it('keeps a bounded number of bodies, and none larger than its limit', () => {
    const recent = recentlyCompressed({ lengths: 2, perLength: 1, maxBytes: 100 });
    let compressions = 0;
    const compress = () => {
      compressions++;
      return Buffer.from('z');
    };
    const body = (n: number) => Buffer.alloc(n, 'a');
    for (const n of [10, 20, 30, 10]) recent.compressed(body(n), 'br', compress);
    // 10 was pushed out by 20 and 30.
    expect(compressions).toBe(4);
    recent.compressed(body(30), 'br', compress);
    expect(compressions).toBe(4);
    recent.compressed(body(200), 'br', compress);
    recent.compressed(body(200), 'br', compress);
    expect(compressions).toBe(6);
  });
});

describe('negotiation remembers the answer for a header it has seen', () => {
  const asked = (header: string | undefined) => ({ headers: header === undefined ? {} : { 'accept-encoding': header } });
  const negotiate = (header: string | undefined, available?: string[]) =>
    negotiateEncoding(asked(header) as http.IncomingMessage, available);

  it('gives the same answer the second time, and another for other encodings on offer', () => {
    for (let i = 0; i < 2; i++) {
      expect(negotiate('gzip, deflate, br, zstd')).toBe('zstd');
      expect(negotiate('gzip, deflate, br, zstd', ['br', 'gzip'])).toBe('br');
      expect(negotiate('gzip, deflate, br, zstd', ['gzip'])).toBe('gzip');
      expect(negotiate('*')).toBe('br');
      expect(negotiate('gzip, deflate, br, zstd', [])).toBe('identity');
      expect(negotiate('br;q=0, gzip')).toBe('gzip');
      expect(negotiate(undefined)).toBe('identity');
    }
  });

  it('still negotiates every header right past the number it keeps, and for headers too long to keep', () => {
    for (let i = 0; i < 200; i++) {
      expect(negotiate(`gzip;q=0.${(i % 9) + 1}, x-made-up-${i}`)).toBe('gzip');
      expect(negotiate(`br;q=0, gzip;q=0, x-${i}`)).toBe('identity');
    }
    const long = `${Array.from({ length: 60 }, (_, i) => `x-${i}`).join(', ')}, gzip`;
    expect(long.length).toBeGreaterThan(256);
    expect(negotiate(long)).toBe('gzip');
    expect(negotiate('gzip, deflate, br, zstd')).toBe('zstd');
  });
});

describe('bodies compressed whole in zstd go through one kept compressor', () => {
  const page = (i: number) => Buffer.from(`<li class="order">Order ${i}: Rose Face Oil, $42.00</li>`.repeat(40 + i * 7));

  it('gives each body a frame of its own that decodes to it, as small as zstdCompressSync makes it', () => {
    const zstd = keptZstd(3);
    for (const body of [page(0), page(30), Buffer.alloc(0), Buffer.from('hi'), randomBytes(20_000), page(5)]) {
      const frame = zstd(body);
      expect(zstdDecompressSync(frame).equals(body)).toBe(true);
      expect(frame.length).toBe(zstdCompressSync(body, { pledgedSrcSize: body.length }).length);
    }
  });

  it('with smaller match tables, still a frame that decodes to its body, a little larger', () => {
    const small = keptZstd(3, { tableLog: 12 });
    for (const body of [page(30), randomBytes(5_000), page(2)]) expect(zstdDecompressSync(small(body)).equals(body)).toBe(true);
    const body = page(60);
    expect(small(body).length).toBeGreaterThanOrEqual(keptZstd(3)(body).length);
  });

  it('never overwrites a frame already given out, however many follow it (a socket may still be sending it), and each decodes alone', () => {
    const zstd = keptZstd(3, { slabBytes: 8 * 1024 });
    const bodies = Array.from({ length: 60 }, (_, i) => page(i % 9));
    const frames = bodies.map((body) => zstd(body));
    // The frames are views of a few slabs, and were not copied out of them.
    expect(new Set(frames.map((frame) => frame.buffer)).size).toBeLessThan(frames.length);
    expect(frames.map((frame) => zstdDecompressSync(frame).toString())).toEqual(bodies.map(String));
  });

  it('compresses a body too large for a slab all the same', () => {
    const zstd = keptZstd(3, { slabBytes: 4 * 1024 });
    const body = page(60);
    expect(body.length).toBeGreaterThan(4 * 1024);
    expect(zstdDecompressSync(zstd(body)).equals(body)).toBe(true);
    expect(zstdDecompressSync(zstd(page(1).subarray(0, 100))).equals(page(1).subarray(0, 100))).toBe(true);
  });
});
