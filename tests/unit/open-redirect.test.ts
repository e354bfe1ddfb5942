import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { type AddressInfo, connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withSecurityHeaders } from '../../src/edge/security-headers.ts';
import { withBuiltFiles } from '../../src/edge/static-files.ts';

// No request path may produce a Location that leaves the shop. A path such as //evil.com/%2e%2e/ names the build's
// root directory once decoded and normalised, and the trailing-slash redirect used to answer it with
// `Location: //evil.com/%2e%2e`: a protocol-relative address a browser follows to evil.com.

let server: http.Server;
let client: string;
/** What the stand-in for Astro's handler answers with: its own redirect to the path it was asked for, minus the slash. */
const appRedirects = (req: http.IncomingMessage, res: http.ServerResponse) => {
  const path = (req.url ?? '/').split('?')[0] ?? '/';
  if (path.length > 1 && path.endsWith('/')) res.writeHead(301, { location: path.slice(0, -1) });
  else res.writeHead(404);
  res.end();
};

beforeAll(async () => {
  client = mkdtempSync(join(tmpdir(), 'aurelia-client-'));
  mkdirSync(join(client, 'product'));
  writeFileSync(join(client, 'about.html'), '<!DOCTYPE html><title>About</title>');
  writeFileSync(join(client, 'product', '3.html'), '<!DOCTYPE html><title>3</title>');
  server = http.createServer(
    withSecurityHeaders(withBuiltFiles(appRedirects, client), { policy: "default-src 'self'", https: false }),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  rmSync(client, { recursive: true, force: true });
});

/** Sends a GET with `path` exactly as written (no client normalises it) and returns the status and Location. */
async function get(path: string): Promise<{ status: number; location: string | undefined }> {
  const socket = connect((server.address() as AddressInfo).port, '127.0.0.1');
  socket.write(`GET ${path} HTTP/1.1\r\nHost: shop.test\r\nConnection: close\r\n\r\n`);
  let answer = '';
  for await (const chunk of socket) answer += chunk;
  const [statusLine = '', ...lines] = (answer.split('\r\n\r\n')[0] ?? '').split('\r\n');
  const location = lines.find((l) => l.toLowerCase().startsWith('location:'));
  return { status: Number(statusLine.split(' ')[1]), location: location?.slice(location.indexOf(':') + 1).trim() };
}

describe('redirects stay on the shop', () => {
  it.each([
    '//evil.com/%2e%2e/',
    '//evil.com/',
    '///evil.com/%2e%2e/',
    '/\\evil.com/%2e%2e/',
    '/%5cevil.com/%2e%2e/',
    '//evil.com/%2e%2e/?next=1',
    '//evil.com/product/',
    '//evil.com/x/',
  ])('GET %s', async (path) => {
    const { status, location } = await get(path);
    if (location === undefined) return;
    expect(status).toBe(301);
    // Resolved as a browser would against the shop's own address, the target is still the shop.
    expect(new URL(location, 'http://shop.test/about').host, location).toBe('shop.test');
    expect(location).toMatch(/^\/(?![/\\])/);
  });

  it('the trailing-slash redirect still takes a page to its one URL, keeping the query', async () => {
    expect(await get('/product/')).toEqual({ status: 301, location: '/product' });
    expect(await get('/product/?utm=x')).toEqual({ status: 301, location: '/product?utm=x' });
    expect((await get('/about')).status).toBe(200);
  });
});
