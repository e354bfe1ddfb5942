// The shop's HTTP edge: the server in front of the app (decision 005). It
// - checks the configuration and starts the app's services before it listens (the readiness check on a private
//   listener): a bad configuration, an unreachable database or a second server on the same data directory exits
//   non-zero with the message instead of answering 500s;
// - serves the built files from memory (static-files.ts, file-table.ts) and hands the app the rest;
// - adds the security headers (security-headers.ts), compresses what the app answers (compression.ts), gives every
//   request an id and logs what the app does not (log.ts), reports the app's slow answers (slow-answers.ts), answers requests
//   Node cannot read as JSON (client-errors.ts), and limits slow clients (headers 10 s, whole request 30 s);
// - serves the release of the catalogue the app's publisher renders and hands over, and renders it for the app on a
//   private listener (release.ts, switch.ts);
// - gives the heap a burst grew back to the machine once no request has come for a while (memory-at-rest.ts);
// - stops gracefully (graceful-stop.ts): on SIGTERM it drains, then answers every connection it took, then stops the
//   app's services; on SIGINT the same without the drain; a second signal, a second or more after the first, exits.
import http from 'node:http';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { answeringClientErrors } from './client-errors.ts';
import type { EdgeConfig } from './config.ts';
import { gracefulShutdown } from './graceful-stop.ts';
import type { serverLogger } from './log.ts';
import { flushLogs, requestIdOf, withRequestIds } from './log.ts';
import { type Gc, type MemoryAtRest, memoryAtRest } from './memory-at-rest.ts';
import { loadBuild, readiness, releaseSwitch } from './release.ts';
import { offerReleaseSwitch, stopServices } from './switch.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** What readiness answers while the server stops: a proxy's health check takes it out of the pool. */
const STOPPING = JSON.stringify({ error: { code: 'stopping', message: 'This server is stopping.' } });

/** Starts the shop: its services first, then listening on HOST:PORT. Resolves to the server once it listens. */
export async function serve(config: EdgeConfig, log: ReturnType<typeof serverLogger>): Promise<http.Server> {
  const { host, port, https, stripe } = config;
  // The app reads these from the environment too (src/server/config.server.ts): the same values.
  process.env.HOST = host;
  process.env.PORT = String(port);
  // Slow answers are the app's: a built file is answered from memory.
  const options = { https, stripe, slow: (line: string) => log.warn(line) };
  const served = await releaseSwitch(await loadBuild(join(root, 'dist')), options);
  offerReleaseSwitch(served);

  let stopping = () => false;
  let rest: MemoryAtRest | undefined;
  const current: http.RequestListener = (req, res) => {
    rest?.seen();
    if (stopping() && (req.url === '/api/health' || req.url?.startsWith('/api/health?'))) {
      res.writeHead(503, {
        'content-type': 'application/json; charset=utf-8',
        'cache-control': 'no-store',
        'x-content-type-options': 'nosniff',
        'x-request-id': requestIdOf(req),
      });
      res.end(STOPPING);
      return;
    }
    served.current().handle(req, res);
  };
  const handler = withRequestIds(current, log, { enabled: () => log.isLevelEnabled('debug'), sendsId: true });
  const server = answeringClientErrors(http.createServer(handler));
  server.headersTimeout = 10_000;
  server.requestTimeout = 30_000;
  // An idle kept-alive connection is closed by the client, not by us: with Node's 5 s default, a client reusing a
  // connection at the moment the server drops it gets ECONNRESET (seen in the e2e suite). 65 s outlasts the 60 s idle
  // timeout of common load balancers, so a proxy never sends a request down a connection we are closing.
  server.keepAliveTimeout = 65_000;
  const stop = gracefulShutdown(server, {
    drainMs: config.drainMs,
    graceMs: config.graceMs,
    log: (line) => log.info(line),
    stop: stopServices,
  });
  stopping = stop.stopping;

  // The first readiness check opens the database and migrates it: slow by nature, so not reported.
  const ready = await readiness((req, res) => served.current().handle(req, res));
  if (ready.status !== 200) {
    // The reason was printed by the app as it failed to start ("[aurelia] cannot start: …").
    console.error(`Aurelia could not start (readiness answered ${ready.status}).`);
    process.exit(1);
  }
  // The catalogue last published is served from the first request on: the app's publisher fetches its release, or
  // makes it, before this listens. Should that fail, the app said why, and it tries again as it checks for publishes.
  await served.caughtUp;
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(port, host, resolve));
  const origin = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  flushLogs();
  console.log(`Aurelia is being served at ${origin}/`);
  // Start-up (the database opened and migrated, the catalogue's pages rendered) grew the heap: given back at the first rest.
  rest = memoryAtRest({ gc: (globalThis as { gc?: Gc }).gc, log: (fields) => log.info(fields, 'memory given back at rest') });
  // A second signal stops at once, unless it comes within a second of the first: Ctrl-C reaches npm start and this
  // process both, and npm start passes its own on (and systemd's default kill mode signals every process of the unit).
  let first = 0;
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      if (first === 0) {
        first = Date.now();
        // SIGTERM comes from a service manager or an orchestrator, with a proxy to tell; SIGINT from a person at a terminal.
        stop.shutdown(signal, { drain: signal === 'SIGTERM' }).then((code) => process.exit(code));
      } else if (Date.now() - first > 1000) {
        log.warn(`${signal} again: stopping now`);
        process.exit(1);
      }
    });
  }
  return server;
}
