// Requests Node's parser refuses (an unknown method, a malformed line, headers too large, one too slow to arrive)
// never reach a handler: Node answers them itself, with a bare 400. The edge answers them as every /api error is
// answered: JSON in the one error shape, with the status that says what was wrong.
import type { Server } from 'node:http';
import type { Socket } from 'node:net';

/** What a request Node's parser refuses is answered with, by the parser's error code. */
const UNREADABLE: Record<string, [number, string, string, string]> = {
  HPE_INVALID_METHOD: [405, 'Method Not Allowed', 'method_not_allowed', 'The request uses a method this shop does not know.'],
  HPE_HEADER_OVERFLOW: [431, 'Request Header Fields Too Large', 'headers_too_large', "The request's headers are too large."],
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'Request Timeout', 'request_timeout', 'The request took too long to arrive.'],
  other: [400, 'Bad Request', 'bad_request', 'The request could not be read.'],
};

/** Answers a request Node cannot read as JSON instead of Node's bare 400. Returns the server. */
export function answeringClientErrors<S extends Server>(server: S): S {
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket & { _httpMessage?: { _headerSent?: boolean } }) => {
    // As Node itself does: nothing is written into an answer already under way on this connection.
    if (error.code === 'ECONNRESET' || !socket.writable || socket._httpMessage?._headerSent) {
      socket.destroy();
      return;
    }
    const [status, reason, code, message] =
      UNREADABLE[error.code ?? ''] ?? (UNREADABLE.other as [number, string, string, string]);
    const body = JSON.stringify({ error: { code, message } });
    const head = [
      `HTTP/1.1 ${status} ${reason}`,
      'Content-Type: application/json; charset=utf-8',
      `Content-Length: ${Buffer.byteLength(body)}`,
      'Cache-Control: no-store',
      'X-Content-Type-Options: nosniff',
      'Connection: close',
    ];
    socket.end(`${head.join('\r\n')}\r\n\r\n${body}`);
  });
  return server;
}
