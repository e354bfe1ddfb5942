import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { withSecurityHeaders } from '../../src/edge/security-headers.ts';
import { withBuiltFiles } from '../../src/edge/static-files.ts';
import { expect, test } from './fixtures';

// The attack of issue 40 in Chromium: an SVG whose script the upload check once let through (a namespace prefix with a
// dot), served by the shop's own file server (src/edge/static-files.ts) as a built picture under /_astro/, then opened on its
// own. Beside it, the same file from a server without the shop's headers: there the script runs, which shows the test
// would see it run. Neither build nor shop is needed: the file server runs here, on a folder of its own.

const PAYLOADS = {
  prefixed: `<svg xmlns="http://www.w3.org/2000/svg" xmlns:a.b="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><a.b:script>fetch('/beacon?prefixed')</a.b:script><rect width="10" height="10" style="fill: rgb(0, 128, 0)"/></svg>`,
  xhtml: `<svg xmlns="http://www.w3.org/2000/svg" xmlns:h.t="http://www.w3.org/1999/xhtml"><h.t:script>fetch('/beacon?xhtml')</h.t:script></svg>`,
  handler: `<svg xmlns="http://www.w3.org/2000/svg" onload="fetch('/beacon?handler')"><circle r="4"/></svg>`,
  remote: `<svg xmlns="http://www.w3.org/2000/svg"><style>@import url("/beacon?import");</style><rect width="4" height="4" fill="url(/beacon?fill#g)"/></svg>`,
};

let dir: string;
const servers: http.Server[] = [];
const beacons: string[] = [];

/** The file server over `dir`, wrapped in the shop's headers or not; anything not a file records a beacon. */
async function start(withHeaders: boolean): Promise<string> {
  const app = (req: http.IncomingMessage, res: http.ServerResponse) => {
    beacons.push(req.url ?? '');
    res.writeHead(404, { 'content-type': 'text/plain' });
    res.end();
  };
  const files = withBuiltFiles(app, dir);
  const handler = withHeaders ? withSecurityHeaders(files, { policy: "default-src 'self'", https: false }) : files;
  const server = http.createServer(handler);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

test.beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'aurelia-pictures-'));
  mkdirSync(join(dir, '_astro'));
  for (const [name, svg] of Object.entries(PAYLOADS)) writeFileSync(join(dir, '_astro', `${name}.Ab12.svg`), svg);
});

test.afterAll(async () => {
  for (const server of servers) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
  rmSync(dir, { recursive: true, force: true });
});

test.beforeEach(() => {
  beacons.length = 0;
});

test('without a policy, a picture’s script runs (what the test looks for can be seen)', async ({ page }) => {
  const origin = await start(false);
  await page.goto(`${origin}/_astro/prefixed.Ab12.svg`);
  await expect.poll(() => beacons).toContain('/beacon?prefixed');
});

test('served by the shop, a picture opened on its own runs nothing and loads nothing, and still shows', async ({ page }) => {
  const origin = await start(true);
  for (const name of Object.keys(PAYLOADS)) {
    const answer = await page.goto(`${origin}/_astro/${name}.Ab12.svg`);
    expect(answer?.headers()['content-security-policy'], name).toBe("default-src 'none'; style-src 'unsafe-inline'; sandbox");
    // Sandboxed: an origin of its own, not the shop's, even if something ran.
    expect(await page.evaluate(() => window.origin), name).toBe('null');
  }
  await page.goto(`${origin}/_astro/prefixed.Ab12.svg`);
  // Its inline style applies (style-src 'unsafe-inline').
  expect(await page.locator('rect').evaluate((rect) => getComputedStyle(rect).fill)).toBe('rgb(0, 128, 0)');
  await page.waitForTimeout(500);
  expect(beacons).toEqual([]);
});
