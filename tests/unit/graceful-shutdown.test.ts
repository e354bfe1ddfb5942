/**
 * The server's stop on SIGTERM (src/edge/graceful-stop.ts): first a drain, during which everything is still served and
 * readiness says it is stopping; then no new connection is taken, the requests under way are answered (with
 * Connection: close), a request that arrives on a kept-alive connection is answered too (not cut as idle), idle
 * connections are closed, then the app's services stop, in that order; a request that outlasts the grace is cut and
 * the exit code says so.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { shutdownDrainMs, shutdownGraceMs } from '../../src/edge/config.ts';
import { gracefulShutdown } from '../../src/edge/graceful-stop.ts';

/** A server whose answers take `delayMs`, with gracefulShutdown installed; `events` records what happened in order. */
async function slowServer(delayMs: number, graceMs: number, drainMs = 0) {
  const events: string[] = [];
  const server = http.createServer((_req, res) => {
    setTimeout(() => {
      events.push('answered');
      res.end('done');
    }, delayMs);
  });
  server.keepAliveTimeout = 65_000;
  const { shutdown, stopping } = gracefulShutdown(server, {
    drainMs,
    graceMs,
    idleCloseMs: 100,
    stop: async () => {
      events.push('services stopped');
    },
    log: () => {},
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { server, port, shutdown, stopping, events };
}

/** A GET on its own kept-alive connection: its status, Connection header and body, or the error. */
function get(port: number, agent: http.Agent): Promise<{ status?: number; connection?: string; body?: string; error?: string }> {
  return new Promise((resolve) => {
    http
      .get({ host: '127.0.0.1', port, path: '/', agent }, (res) => {
        let body = '';
        res.on('data', (chunk) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, connection: String(res.headers.connection), body }));
      })
      .on('error', (error: NodeJS.ErrnoException) => resolve({ error: error.code ?? error.message }));
  });
}

describe('the server stopping on SIGTERM', () => {
  it('answers the requests under way, closes idle connections, refuses new ones, then stops the services', async () => {
    const { server, port, shutdown, events } = await slowServer(300, 5_000);
    const idleAgent = new http.Agent({ keepAlive: true });
    expect((await get(port, idleAgent)).status).toBe(200);
    const idleSocketClosed = new Promise((resolve) => {
      const [socket] = Object.values(idleAgent.freeSockets).flat();
      socket?.once('close', resolve);
    });
    const busy = get(port, new http.Agent({ keepAlive: true }));
    await new Promise((resolve) => setTimeout(resolve, 50));
    const stopped = shutdown('SIGTERM');
    await idleSocketClosed;
    expect(await get(port, new http.Agent())).toEqual({ error: 'ECONNREFUSED' });
    expect(await busy).toEqual({ status: 200, connection: 'close', body: 'done' });
    expect(await stopped).toBe(0);
    expect(events).toEqual(['answered', 'answered', 'services stopped']);
    expect(server.listening).toBe(false);
  });

  it('cuts a request that outlasts the grace, still stops the services, and says so in its exit code', async () => {
    const { port, shutdown, events } = await slowServer(5_000, 300);
    const hanging = get(port, new http.Agent());
    await new Promise((resolve) => setTimeout(resolve, 50));
    const started = Date.now();
    expect(await shutdown('SIGTERM')).toBe(1);
    expect(Date.now() - started).toBeLessThan(2_000);
    expect((await hanging).error).toBe('ECONNRESET');
    expect(events).toEqual(['services stopped']);
  });

  it('answers a request that arrives on a kept-alive connection as the listener closes, instead of cutting it as idle', async () => {
    const { port, shutdown, events } = await slowServer(50, 5_000);
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    expect((await get(port, agent)).status).toBe(200);
    // The connection is idle when the stop begins; its next request is on its way at the same moment.
    const stopped = shutdown('SIGTERM');
    const next = await get(port, agent);
    expect(next).toEqual({ status: 200, connection: 'close', body: 'done' });
    expect(await stopped).toBe(0);
    expect(events).toEqual(['answered', 'answered', 'services stopped']);
  });

  it('drains first: still takes connections and answers them while it says it is stopping, then refuses them', async () => {
    const { port, shutdown, stopping, events } = await slowServer(20, 5_000, 400);
    expect(stopping()).toBe(false);
    const stopped = shutdown('SIGTERM');
    expect(stopping()).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await get(port, new http.Agent({ keepAlive: true }))).toEqual({ status: 200, connection: 'keep-alive', body: 'done' });
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await get(port, new http.Agent())).toEqual({ error: 'ECONNREFUSED' });
    expect(await stopped).toBe(0);
    expect(events).toEqual(['answered', 'services stopped']);
  });

  it('skips the drain when asked (SIGINT, from a person at a terminal)', async () => {
    const { port, shutdown } = await slowServer(20, 5_000, 10_000);
    const started = Date.now();
    expect(await shutdown('SIGINT', { drain: false })).toBe(0);
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(await get(port, new http.Agent())).toEqual({ error: 'ECONNREFUSED' });
  });

  it('reads SHUTDOWN_DRAIN_SECONDS, 0 to 120, default 5', () => {
    expect(shutdownDrainMs(undefined)).toBe(5_000);
    expect(shutdownDrainMs('0')).toBe(0);
    expect(shutdownDrainMs('30')).toBe(30_000);
    for (const bad of ['-1', '121', '0.5', 'five']) {
      expect(() => shutdownDrainMs(bad)).toThrow(/SHUTDOWN_DRAIN_SECONDS must be a whole number of seconds from 0 to 120/);
    }
  });

  it('reads SHUTDOWN_GRACE_SECONDS, 1 to 300, default 10', () => {
    expect(shutdownGraceMs(undefined)).toBe(10_000);
    expect(shutdownGraceMs('30')).toBe(30_000);
    for (const bad of ['0', '301', '1.5', 'ten']) {
      expect(() => shutdownGraceMs(bad)).toThrow(/SHUTDOWN_GRACE_SECONDS must be a whole number of seconds from 1 to 300/);
    }
  });
});
