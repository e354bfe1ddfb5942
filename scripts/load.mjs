// A load generator for the benchmarks that compare compressed answers with uncompressed ones (scripts/bench-pages.mjs):
// `connections` keep-alive connections, each asking for `url` again as soon as its answer has arrived, for `duration`
// seconds, with Node's own HTTP client.
//
// Not autocannon (which the other benchmarks use) here: its HTTP parser is JavaScript (http-parser-js) and turns what a
// read brought in into a string for each line of the head, the body included. On a compressed body that costs it far
// more CPU than on the same answer as text (measured on React's script over 50 connections: 2.9 s of CPU in 3 s for
// brotli against 1.0 s for identity, almost all in Buffer#toString). On a machine whose cores the shop and the client
// share, that CPU was taken from the shop only when it compressed, and the compressed rows read low for a reason that is
// the client's. Node's parser (llhttp, in C) costs the same whatever the body holds, as a browser's does.
import http from 'node:http';

/**
 * @param {{ url: string, connections?: number, duration?: number, status?: number, headersFor?: (connection: number) => Record<string, string> }} options
 *   `headersFor(i)`: the headers connection `i` sends (its shopper's cookie, say); `status`: the one every answer should
 *   have (by default any 2xx).
 * @returns {Promise<{ requests: number, rps: number, bytes: number, failures: number }>} `bytes`: every byte read, heads
 *   included; `failures`: answers with another status, and requests that failed.
 */
export async function load({ url, connections = 50, duration = 3, status, headersFor = () => ({}) }) {
  const expected = (code = 0) => (status === undefined ? code >= 200 && code <= 299 : code === status);
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
  /** @type {Set<import('node:net').Socket>} */
  const sockets = new Set();
  let requests = 0;
  let failures = 0;
  const once = (headers) =>
    new Promise((resolve) => {
      const failed = () => {
        failures++;
        resolve(undefined);
      };
      http
        .get(url, { agent, headers }, (res) => {
          sockets.add(res.socket);
          if (!expected(res.statusCode)) failures++;
          res.on('end', () => {
            requests++;
            resolve(undefined);
          });
          res.on('error', failed);
          res.resume();
        })
        .on('error', failed);
    });
  const started = performance.now();
  const until = started + duration * 1000;
  await Promise.all(
    Array.from({ length: connections }, async (_, i) => {
      const headers = headersFor(i);
      while (performance.now() < until) await once(headers);
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const bytes = [...sockets].reduce((sum, socket) => sum + socket.bytesRead, 0);
  agent.destroy();
  return { requests, rps: requests / seconds, bytes, failures };
}
