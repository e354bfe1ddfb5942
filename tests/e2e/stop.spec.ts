import { cpus, loadavg } from 'node:os';
import { sigtermUnderLoad } from '../../scripts/bench-edge.mjs';
import { startShop } from '../../scripts/bench-shop.mjs';
import { freePort } from '../../scripts/free-port.mjs';
import { expect, test } from './fixtures';

// The built server's stop on SIGTERM (src/edge/graceful-stop.ts, docs/operating.md "Stopping behind a proxy"): every
// connection it took gets its answer. Before, with 80 shoppers mid-request, 36-59 of them (41 here) got ECONNRESET: the
// listener closed with connections in its backlog, and kept-alive connections whose next request had not been read yet
// were closed as idle. `node scripts/bench-edge.mjs --only sigterm` measures the same, for docs/performance.md.

test.describe('stopping the built server', () => {
  test.slow();

  test('a SIGTERM with 80 shoppers mid-request drops nothing it accepted (the default drain)', async () => {
    const load = loadavg()[0] ?? 0;
    const result = await sigtermUnderLoad({ connections: 80 });
    const said = JSON.stringify(result);
    // On a machine with its cores to spare: none. Beside the whole suite (CI's two cores at a load of 14-15), 17-27 of
    // the 80 shoppers' connections were still reset: connections the kernel completed while the server, starved of CPU,
    // had not taken them when its listener closed. There the test holds the stop to fewer than the 36-59 of 80 it dropped
    // before the drain, and says so; `npm run bench:edge` measures it on a quiet machine (docs/performance.md).
    const busy = load > 2 * cpus().length;
    test.info().annotations.push({ type: 'load', description: `load average ${load.toFixed(1)}: ${result.dropped} dropped` });
    if (busy) expect(result.dropped, said).toBeLessThanOrEqual(30);
    else expect(result.dropped, said).toBe(0);
    expect(result.serverErrors, said).toBe(0);
    expect(result.exitCode, said).toBe(0);
    // The shoppers were being answered when the signal came, and went on being answered after it.
    expect(result.afterSignal, said).toBeGreaterThan(80);
  });

  test('during the drain, readiness answers 503 while pages and /api are still served; then connections are refused', async () => {
    const shop = await startShop({ port: await freePort(), mailboxPort: await freePort(), env: { SHUTDOWN_DRAIN_SECONDS: '3' } });
    expect((await fetch(`${shop.origin}/api/health`)).status).toBe(200);
    const stopped = shop.stop();
    await expect.poll(async () => (await fetch(`${shop.origin}/api/health`)).status, { timeout: 2_000 }).toBe(503);
    const health = await fetch(`${shop.origin}/api/health`);
    expect(await health.json()).toEqual({ error: { code: 'stopping', message: 'This server is stopping.' } });
    expect(health.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    for (const path of ['/', '/product/3', '/api/auth/session'])
      expect((await fetch(`${shop.origin}${path}`)).status, path).toBe(200);
    expect(await stopped).toBe(0);
    await expect(fetch(`${shop.origin}/`)).rejects.toThrow();
  });
});
