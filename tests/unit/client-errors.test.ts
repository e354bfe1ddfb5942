import http from 'node:http';
import { type AddressInfo, connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { answeringClientErrors } from '../../src/edge/client-errors.ts';

// A request Node's parser refuses (an unknown method, a malformed line, headers too large) never reaches the shop's
// code: Node answers it itself, with a bare 400 and no body. The shop's server answers it as every /api error is
// answered: JSON in the one error shape, with the status that says what was wrong.

let server: http.Server | undefined;

afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  server = undefined;
});

/** Sends `raw` bytes to a server that answers every request it can read with 200, and returns the raw answer. */
async function send(raw: string): Promise<string> {
  const listening = answeringClientErrors(http.createServer((_req, res) => res.end('ok')));
  server = listening;
  await new Promise<void>((resolve) => listening.listen(0, '127.0.0.1', resolve));
  const socket = connect((listening.address() as AddressInfo).port, '127.0.0.1');
  socket.write(raw);
  let answer = '';
  for await (const chunk of socket) answer += chunk;
  return answer;
}

function parse(answer: string) {
  const [head = '', body = ''] = answer.split('\r\n\r\n');
  const [statusLine = '', ...lines] = head.split('\r\n');
  const headers = Object.fromEntries(
    lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]),
  );
  return { status: Number(statusLine.split(' ')[1]), headers, body: JSON.parse(body) };
}

describe('requests Node cannot read', () => {
  it('an unknown method is a JSON 405', async () => {
    const answer = parse(await send('BREW /api/cart HTTP/1.1\r\nHost: shop.test\r\n\r\n'));
    expect(answer.status).toBe(405);
    expect(answer.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(answer.headers['x-content-type-options']).toBe('nosniff');
    expect(answer.headers.connection).toBe('close');
    expect(answer.body).toEqual({ error: { code: 'method_not_allowed', message: expect.stringContaining('method') } });
  });

  it('a malformed request is a JSON 400', async () => {
    const answer = parse(await send('GET /api/cart HTTP/1.1\r\nHost shop.test\r\n\r\n'));
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({ error: { code: 'bad_request', message: expect.any(String) } });
  });

  it('headers over the limit are a JSON 431', async () => {
    const answer = parse(await send(`GET / HTTP/1.1\r\nHost: shop.test\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`));
    expect(answer.status).toBe(431);
    expect(answer.body.error.code).toBe('headers_too_large');
  });

  it('a request it can read still reaches the handler', async () => {
    expect(await send('GET / HTTP/1.1\r\nHost: shop.test\r\nConnection: close\r\n\r\n')).toMatch(/^HTTP\/1.1 200 OK[\s\S]*ok$/);
  });
});
