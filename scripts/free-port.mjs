// Loopback ports for a server a test or benchmark starts.
import { createServer } from 'node:net';

/**
 * Where ports are chosen: below Linux's default range for ports the system hands out itself (32768-60999: a listen on
 * port 0, an outgoing connection). A port found free in that range could be handed to the next process that asks for
 * any port before the server it was chosen for listens; seen in CI: the server's own page renderer (listening on port
 * 0) was given the port chosen for the server, which then could not start (EADDRINUSE).
 */
const FIRST = 20_000;
const LAST = 32_767;

/**
 * `count` loopback ports nobody listens on right now, held open together while they are chosen (so no two are the
 * same), from below the system's own range.
 * @param {number} count
 * @returns {Promise<number[]>}
 */
export async function freePorts(count) {
  const servers = [];
  try {
    for (let tries = 0; servers.length < count; tries++) {
      if (tries === 200) throw new Error(`no free port between ${FIRST} and ${LAST} after 200 tries`);
      const port = FIRST + Math.floor(Math.random() * (LAST - FIRST + 1));
      const server = createServer();
      const listening = await new Promise((resolve) => {
        server.once('error', () => resolve(false));
        server.listen(port, '127.0.0.1', () => resolve(true));
      });
      if (listening) servers.push(server);
    }
    return servers.map((server) => /** @type {import('node:net').AddressInfo} */ (server.address()).port);
  } finally {
    await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  }
}

/**
 * A loopback port nobody listens on right now (see freePorts).
 * @returns {Promise<number>}
 */
export async function freePort() {
  const [port] = await freePorts(1);
  if (port === undefined) throw new Error('no free port');
  return port;
}
