/**
 * The server's stop on SIGTERM (gracefulShutdown in scripts/serve.mjs): no new connection is taken, the requests under
 * way are answered (with Connection: close), idle kept-alive connections are closed, then the app's services stop, in
 * that order; a request that outlasts the grace is cut and the exit code says so.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { gracefulShutdown, shutdownGraceMs } from '../../scripts/serve.mjs';

/** A server whose answers take `delayMs`, with gracefulShutdown installed; `events` records what happened in order. */
async function slowServer(delayMs: number, graceMs: number) {
  const events: string[] = [];
  const server = http.createServer((_req, res) => {
    setTimeout(() => {
      events.push('answered');
      res.end('done');
    }, delayMs);
  });
  server.keepAliveTimeout = 65_000;
  const shutdown = gracefulShutdown(server, {
    graceMs,
    stop: async () => {
      events.push('services stopped');
    },
    log: () => {},
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { server, port, shutdown, events };
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

  it('reads SHUTDOWN_GRACE_SECONDS, 1 to 300, default 10', () => {
    expect(shutdownGraceMs(undefined)).toBe(10_000);
    expect(shutdownGraceMs('30')).toBe(30_000);
    for (const bad of ['0', '301', '1.5', 'ten']) {
      expect(() => shutdownGraceMs(bad)).toThrow(/SHUTDOWN_GRACE_SECONDS must be a whole number of seconds from 1 to 300/);
    }
  });
});
