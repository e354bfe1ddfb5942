import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { precompress } from '../../scripts/precompress.mjs';
import { PICTURE_POLICY } from '../../src/edge/csp.ts';
import { fileTable, releaseFilesIn } from '../../src/edge/file-table.ts';
import { releaseFile } from '../../src/edge/release.ts';
import { answerHeaders, withSecurityHeaders } from '../../src/edge/security-headers.ts';
import { servingFiles } from '../../src/edge/static-files.ts';
import { rawRequest } from './raw-http';

// The attack of issue 40: an SVG that an editor published, opened on its own at its address, is a document on the
// shop's origin. Whatever its bytes, it is served so that nothing in it runs or loads: a release's pictures, anything
// the build holds, and pictures the app answers itself.

let server: http.Server;
let port: number;
const dirs: string[] = [];
const PAGE_POLICY = "default-src 'self'; script-src 'self'";
const evil = `<svg xmlns="http://www.w3.org/2000/svg" xmlns:a.b="http://www.w3.org/2000/svg"><a.b:script>alert(1)</a.b:script>${'<circle r="4"/>'.repeat(200)}</svg>`;

beforeAll(async () => {
  const client = mkdtempSync(join(tmpdir(), 'aurelia-client-'));
  dirs.push(client);
  mkdirSync(join(client, '_astro'));
  writeFileSync(join(client, '_astro', 'scrubs.New2.svg'), evil);
  writeFileSync(join(client, '_astro', 'jar.Png3.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
  writeFileSync(join(client, '_astro', 'jar.Jpg4.jpg'), Buffer.from([0xff, 0xd8, 0xff, 0xe0]));
  writeFileSync(join(client, '_astro', 'jar.Web5.webp'), Buffer.from('RIFF\x24\x00\x00\x00WEBPVP8 '));
  writeFileSync(join(client, '_astro', 'app.Js6.js'), 'export const a = 1;');
  writeFileSync(join(client, 'favicon.svg'), evil);
  writeFileSync(join(client, 'sitemap-0.xml'), '<?xml version="1.0"?><urlset/>');
  writeFileSync(join(client, 'about.html'), '<!DOCTYPE html><html><body>About</body></html>');
  await precompress(client);
  // A release's picture (an editor's upload, served from memory at an address named by its bytes), beside the build's.
  const files = new Map(releaseFilesIn(client));
  const picture = { path: '/pictures/scrubs.0123456789ab.svg', status: 200, headers: {}, body: Buffer.from(evil) };
  files.set(picture.path, await releaseFile(picture, Date.now()));
  const app = (req: http.IncomingMessage, res: http.ServerResponse) => {
    // The app answering with a picture of its own (no policy given): the policy is added all the same.
    if (req.url === '/api/picture.svg') res.writeHead(200, { 'content-type': 'image/svg+xml' });
    else res.writeHead(404, { 'content-type': 'text/html; charset=utf-8' });
    res.end(req.url === '/api/picture.svg' ? evil : 'Not found');
  };
  const security = answerHeaders({ policy: PAGE_POLICY, https: false });
  const table = fileTable(files, security);
  server = http.createServer(servingFiles(withSecurityHeaders(app, security), () => table, security));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe('every picture, wherever it is served from', () => {
  it.each([
    ['a built SVG under /_astro/', '/_astro/scrubs.New2.svg', 'image/svg+xml'],
    ['an SVG a release of the catalogue holds', '/pictures/scrubs.0123456789ab.svg', 'image/svg+xml'],
    ['an SVG elsewhere in the build', '/favicon.svg', 'image/svg+xml'],
    ['a PNG', '/_astro/jar.Png3.png', 'image/png'],
    ['a JPEG', '/_astro/jar.Jpg4.jpg', 'image/jpeg'],
    ['a WebP', '/_astro/jar.Web5.webp', 'image/webp'],
    ['XML', '/sitemap-0.xml', 'application/xml'],
    ['an SVG the app answers', '/api/picture.svg', 'image/svg+xml'],
  ])('%s carries nosniff and the policy under which nothing runs or loads', async (_, path, type) => {
    for (const headers of [{}, { 'accept-encoding': 'br' }, { 'accept-encoding': 'gzip' }, { range: 'bytes=0-3' }]) {
      for (const method of ['GET', 'HEAD']) {
        const answer = await rawRequest(port, path, headers, method);
        expect(answer.status, `${method} ${path} ${JSON.stringify(headers)}`).toBeLessThan(300);
        expect(answer.headers['content-type']).toMatch(new RegExp(`^${type.replace('+', '\\+')}`));
        expect(answer.headers['content-security-policy'], `${method} ${path}`).toBe(PICTURE_POLICY);
        expect(answer.headers['x-content-type-options']).toBe('nosniff');
        expect(answer.headers['x-frame-options']).toBeUndefined();
      }
    }
  });

  it('the SVG is sent compressed when asked, with the policy on the compressed answer too', async () => {
    const answer = await rawRequest(port, '/_astro/scrubs.New2.svg', { 'accept-encoding': 'br' });
    expect(answer.headers['content-encoding']).toBe('br');
    expect(answer.headers['content-security-policy']).toBe(PICTURE_POLICY);
  });

  it('pages keep their own policy, and scripts carry none', async () => {
    const page = await rawRequest(port, '/about');
    expect(page.headers['content-security-policy']).toBe(PAGE_POLICY);
    expect(page.headers['x-frame-options']).toBe('DENY');
    const script = await rawRequest(port, '/_astro/app.Js6.js');
    expect(script.headers['content-security-policy']).toBeUndefined();
    expect(script.headers['x-content-type-options']).toBe('nosniff');
  });
});
