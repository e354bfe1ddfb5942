import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { reportingSlowAnswers } from '../../src/edge/slow-answers.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
let server: http.Server | undefined;

afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  server = undefined;
});

/** A server whose answers take as long as the `ms` query parameter says (or never come, for `never`). */
async function serving(reports: string[]): Promise<string> {
  const handler = (req: IncomingMessage, res: ServerResponse) => {
    const wait = new URL(req.url ?? '/', 'http://x').searchParams.get('ms');
    if (wait === 'never') return;
    setTimeout(() => res.writeHead(201).end('ok'), Number(wait));
  };
  server = http.createServer(reportingSlowAnswers(handler, { slowMs: 100, report: (line: string) => reports.push(line) }));
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe('slow answers are reported', () => {
  it('says nothing of a quick answer, and names method, path (without its query), status and time of a slow one', async () => {
    const reports: string[] = [];
    const origin = await serving(reports);
    await fetch(`${origin}/api/quick?ms=0`);
    await fetch(`${origin}/api/slow?ms=150&secret=x`, { method: 'POST' });
    await sleep(20);
    expect(reports).toHaveLength(1);
    expect(reports[0]).toMatch(/^\[aurelia\] slow answer: POST \/api\/slow 201 after 1\d\d ms$/);
  });

  it('reports an answer that never came once the client gives up', async () => {
    const reports: string[] = [];
    const origin = await serving(reports);
    await fetch(`${origin}/api/stuck?ms=never`, { signal: AbortSignal.timeout(150) }).catch(() => undefined);
    await expect.poll(() => reports).toHaveLength(1);
    expect(reports[0]).toMatch(/^\[aurelia\] slow answer: GET \/api\/stuck closed before answering after \d+ ms$/);
  });
});
