import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { requestIdFrom as appRequestIdFrom } from '@/server/log.server';
import { markingApp, requestIdFrom, withRequestIds } from '../../src/edge/log.ts';

let server: http.Server | undefined;
afterEach(async () => {
  const running = server;
  server = undefined;
  if (!running) return;
  running.closeAllConnections();
  await new Promise((resolve) => running.close(resolve));
});

/** The server in front, with a `/api` app that echoes the id it was handed, and files answered by itself. */
async function serving(lines: Record<string, unknown>[]): Promise<string> {
  const app = markingApp((req: IncomingMessage, res: ServerResponse) => res.end(String(req.headers['x-request-id'])));
  const handler = (req: IncomingMessage, res: ServerResponse) =>
    req.url?.startsWith('/api/') ? app(req, res) : res.writeHead(200).end('a file');
  const log = { debug: (line: Record<string, unknown>) => void lines.push(line) };
  server = http.createServer(withRequestIds(handler, log));
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe('request ids at the server in front', () => {
  it('follows the app’s rule for an incoming id', () => {
    for (const id of ['0f3c9a2b7d4e4f1a', 'req-2026.11.29:0001', 'short', 'has space', '-dash-first-id', 'x'.repeat(65)]) {
      const valid = appRequestIdFrom(id) === id;
      expect(requestIdFrom(id) === id, id).toBe(valid);
    }
  });

  it('hands the app a sane id and sends it back; logs the answers the app does not give, without their query', async () => {
    const lines: Record<string, unknown>[] = [];
    const origin = await serving(lines);
    const fromApp = await fetch(`${origin}/api/x`, { headers: { 'x-request-id': 'proxy-id-000001' } });
    expect(fromApp.headers.get('x-request-id')).toBe('proxy-id-000001');
    expect(await fromApp.text()).toBe('proxy-id-000001');
    const replaced = await fetch(`${origin}/api/x`, { headers: { 'x-request-id': 'bad id' } });
    const id = replaced.headers.get('x-request-id');
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(await replaced.text()).toBe(id);
    const file = await fetch(`${origin}/about?token=secret-token`);
    await file.text();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(lines).toEqual([
      expect.objectContaining({
        method: 'GET',
        route: 'static file',
        path: '/about',
        status: 200,
        requestId: file.headers.get('x-request-id'),
      }),
    ]);
  });
});
