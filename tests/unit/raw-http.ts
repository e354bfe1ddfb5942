// Requests with exactly the headers a test gives (no client adds or decodes anything), for the suites that check what
// the server sends on the wire: compression, negotiation, ranges.
import http from 'node:http';
import { brotliDecompressSync, gunzipSync, zstdDecompressSync } from 'node:zlib';

export interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** The bytes as they came, not decoded. */
  body: Buffer;
}

/** One request to 127.0.0.1:`port`; resolves to the answer as sent. */
export function rawRequest(port: number, path: string, headers: Record<string, string> = {}, method = 'GET'): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path, method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** The answer's body decoded from its Content-Encoding (zstd, brotli, gzip or none). */
export function decoded(answer: Answer): Buffer {
  const encoding = answer.headers['content-encoding'];
  if (encoding === 'zstd') return zstdDecompressSync(answer.body);
  if (encoding === 'br') return brotliDecompressSync(answer.body);
  if (encoding === 'gzip') return gunzipSync(answer.body);
  return answer.body;
}
