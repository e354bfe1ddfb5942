import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { precompress } from '../../scripts/precompress.mjs';
import { withSecurityHeaders } from '../../src/edge/security-headers.ts';
import { withBuiltFiles } from '../../src/edge/static-files.ts';
import { decoded, rawRequest } from './raw-http';

// The built files in the encoding a client accepts (src/edge/static-files.ts, from memory), from the brotli and gzip files
// the build wrote beside them (scripts/precompress.mjs). Pinned so that no later change quietly sends raw bytes again,
// nor bytes a client did not ask for.

let server: http.Server;
let client: string;
let port: number;
const page = `<!DOCTYPE html><html><body>${'<p>Turmeric face soap, 100 g, cold-process.</p>\n'.repeat(200)}</body></html>`;
const script = `export const names = ${JSON.stringify(Array.from({ length: 400 }, (_, i) => `product-${i}`))};`;

beforeAll(async () => {
  client = mkdtempSync(join(tmpdir(), 'aurelia-client-'));
  mkdirSync(join(client, '_astro'));
  mkdirSync(join(client, 'product'));
  writeFileSync(join(client, 'about.html'), page);
  writeFileSync(join(client, 'index.html'), page.replace('Turmeric', 'Home'));
  writeFileSync(join(client, 'product', '3.html'), page.replace('Turmeric', 'Kojic'));
  writeFileSync(join(client, 'gone.html'), page.replace('Turmeric', 'Gone'));
  writeFileSync(join(client, '.hidden.html'), page);
  writeFileSync(join(client, '_astro', 'app.Ab12.js'), script);
  writeFileSync(join(client, 'robots.txt'), 'User-agent: *\n');
  await precompress(client);
  const app = (_req: http.IncomingMessage, res: http.ServerResponse) => {
    res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' });
    res.end('from the app');
  };
  server = http.createServer(withSecurityHeaders(withBuiltFiles(app, client), { policy: "default-src 'self'", https: false }));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  rmSync(client, { recursive: true, force: true });
});

const request = (path: string, headers: Record<string, string> = {}, method = 'GET') => rawRequest(port, path, headers, method);

const file = (name: string) => readFileSync(join(client, name));

describe('built files by content negotiation', () => {
  it.each([
    ['br, gzip', 'br'],
    ['gzip, deflate, br, zstd', 'br'],
    ['gzip', 'gzip'],
    ['br;q=0, gzip', 'gzip'],
    ['gzip;q=0.8, br;q=0.5', 'gzip'],
    ['*', 'br'],
    ['BR', 'br'],
    ['identity', undefined],
    ['deflate', undefined],
    ['gzip;q=0, br;q=0', undefined],
    ['identity;q=0', undefined],
    ['', undefined],
  ])('Accept-Encoding: "%s" gets %s', async (accept, encoding) => {
    const answer = await request('/about', { 'accept-encoding': accept });
    expect(answer.status).toBe(200);
    expect(answer.headers['content-encoding']).toBe(encoding);
    expect(answer.headers['content-type']).toBe('text/html; charset=utf-8');
    // Every answer for a file that has encodings says it depends on Accept-Encoding, the raw one too.
    expect(answer.headers.vary).toBe('Accept-Encoding');
    const sent = encoding === 'br' ? 'about.html.br' : encoding === 'gzip' ? 'about.html.gz' : 'about.html';
    expect(answer.headers['content-length']).toBe(String(statSync(join(client, sent)).size));
    expect(decoded(answer).equals(file('about.html'))).toBe(true);
  });

  it('the home page (a directory’s index.html) and an .html name are negotiated too', async () => {
    for (const [path, name] of [
      ['/', 'index.html'],
      ['/index.html', 'index.html'],
      ['/product/3.html', 'product/3.html'],
    ]) {
      const answer = await request(path ?? '', { 'accept-encoding': 'br' });
      expect(answer.headers['content-encoding'], path).toBe('br');
      expect(decoded(answer).equals(file(name ?? '')), path).toBe(true);
    }
  });

  it('a client that sends no Accept-Encoding gets the file as it is', async () => {
    const answer = await request('/product/3');
    expect(answer.headers['content-encoding']).toBeUndefined();
    expect(answer.body.equals(file('product/3.html'))).toBe(true);
    expect(answer.headers.vary).toBe('Accept-Encoding');
  });

  it('HEAD says what GET would send (the encoded length), without a body', async () => {
    const answer = await request('/about', { 'accept-encoding': 'br' }, 'HEAD');
    expect(answer.status).toBe(200);
    expect(answer.headers['content-encoding']).toBe('br');
    expect(answer.headers['content-length']).toBe(String(statSync(join(client, 'about.html.br')).size));
    expect(answer.headers.vary).toBe('Accept-Encoding');
    expect(answer.body.length).toBe(0);
  });

  it('each encoding has its own ETag, and a 304 answers for the encoding the client holds', async () => {
    const [br, gzip, raw] = await Promise.all(
      ['br', 'gzip', 'identity'].map((accept) => request('/about', { 'accept-encoding': accept })),
    );
    const tags = [br, gzip, raw].map((a) => a?.headers.etag);
    expect(new Set(tags).size).toBe(3);
    const again = await request('/about', { 'accept-encoding': 'br', 'if-none-match': br?.headers.etag ?? '' });
    expect(again.status).toBe(304);
    expect(again.headers.etag).toBe(br?.headers.etag);
    expect(again.headers.vary).toBe('Accept-Encoding');
    expect(again.body.length).toBe(0);
    // The brotli file's tag, from a client that now takes only gzip: it gets gzip, in full.
    const other = await request('/about', { 'accept-encoding': 'gzip', 'if-none-match': br?.headers.etag ?? '' });
    expect(other.status).toBe(200);
    expect(other.headers['content-encoding']).toBe('gzip');
    expect(other.headers.etag).toBe(gzip?.headers.etag);
    const plain = await request('/about', { 'if-none-match': raw?.headers.etag ?? '' });
    expect(plain.status).toBe(304);
  });

  it('a Range request is answered from the file itself, whatever the client accepts', async () => {
    const whole = file('about.html');
    const part = await request('/about', { 'accept-encoding': 'br, gzip', range: 'bytes=0-14' });
    expect(part.status).toBe(206);
    expect(part.headers['content-encoding']).toBeUndefined();
    expect(part.headers['content-range']).toBe(`bytes 0-14/${whole.length}`);
    expect(part.headers['content-length']).toBe('15');
    expect(part.body.toString()).toBe('<!DOCTYPE html>');
    expect(part.headers.vary).toBe('Accept-Encoding');
    const tail = await request('/about', { 'accept-encoding': 'br', range: 'bytes=-100' });
    expect(tail.status).toBe(206);
    expect(tail.body.equals(whole.subarray(whole.length - 100))).toBe(true);
    const beyond = await request('/about', { 'accept-encoding': 'br', range: `bytes=${whole.length + 10}-` });
    expect(beyond.status).toBe(416);
    // Ranges of the encoded bytes are not offered.
    const encoded = await request('/about', { 'accept-encoding': 'br' });
    expect(encoded.headers['accept-ranges']).toBeUndefined();
  });

  it('fingerprinted assets are cached for a year in every encoding, on a HEAD and a 304 too', async () => {
    const path = '/_astro/app.Ab12.js';
    const br = await request(path, { 'accept-encoding': 'br' });
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(decoded(br).equals(file('_astro/app.Ab12.js'))).toBe(true);
    const head = await request(path, { 'accept-encoding': 'gzip' }, 'HEAD');
    const fresh = await request(path, { 'accept-encoding': 'br', 'if-none-match': br.headers.etag ?? '' });
    expect(fresh.status).toBe(304);
    for (const answer of [br, head, fresh]) expect(answer.headers['cache-control']).toBe('public, max-age=31536000, immutable');
  });

  it('a file too small to compress is sent as it is, with no Vary', async () => {
    const answer = await request('/robots.txt', { 'accept-encoding': 'br, gzip' });
    expect(answer.status).toBe(200);
    expect(answer.headers['content-encoding']).toBeUndefined();
    expect(answer.headers.vary).toBeUndefined();
    expect(answer.body.toString()).toBe('User-agent: *\n');
  });

  it('sends the files as they were read at start-up, whatever happens on disk since', async () => {
    // Served from memory (src/edge/file-table.ts): a file removed or changed under a running server changes nothing.
    const before = readFileSync(join(client, 'gone.html.br'));
    unlinkSync(join(client, 'gone.html.br'));
    writeFileSync(join(client, 'gone.html'), 'changed');
    const answer = await request('/gone', { 'accept-encoding': 'br' });
    expect(answer.status).toBe(200);
    expect(answer.headers['content-encoding']).toBe('br');
    expect(answer.body.equals(before)).toBe(true);
    expect(decoded(answer).toString()).toBe(page.replace('Turmeric', 'Gone'));
  });

  it('a precompressed file is not a file of its own: only its encoding is sent, by negotiation', async () => {
    const answer = await request('/about.html.br', { 'accept-encoding': 'br' });
    expect(answer.status).toBe(404);
    expect(answer.body.toString()).toBe('from the app');
  });

  it('If-Modified-Since answers 304 for a file not changed since; an If-Range that no longer matches gets the whole file', async () => {
    const whole = await request('/about');
    const since = whole.headers['last-modified'] ?? '';
    expect((await request('/about', { 'if-modified-since': since })).status).toBe(304);
    const stale = await request('/about', { range: 'bytes=0-14', 'if-range': '"not-this-one"' });
    expect(stale.status).toBe(200);
    expect(stale.body.equals(file('about.html'))).toBe(true);
    const several = await request('/about', { range: 'bytes=0-1,5-6' });
    expect(several.status).toBe(200);
  });

  it('dot files stay unserved in every encoding, and the encoded files are no way around it', async () => {
    for (const path of ['/.hidden', '/.hidden.html', '/.hidden.html.br']) {
      const answer = await request(path, { 'accept-encoding': 'br, gzip' });
      expect(answer.status, path).toBe(404);
      expect(answer.body.toString(), path).toBe('from the app');
    }
  });
});
