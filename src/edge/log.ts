// The edge's own log lines (the built files it answers, slow answers, start-up and stop), in the shop's format: JSON
// lines on stdout through pino, or lines for a person when stdout is a terminal or LOG_FORMAT=pretty (LOG_FORMAT=json
// forces JSON), at LOG_LEVEL (default info). The app's lines come from src/server/log.server.ts, which chooses the same
// way; these lines carry no shopper data (a built file's path).
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import pino from 'pino';
import pretty from 'pino-pretty';
import type { EdgeConfig } from './config.ts';
import { offerLogDestination } from './switch.ts';

export type Handler = (req: IncomingMessage, res: ServerResponse) => unknown;

/** What the edge logs its answers through: pino's logger, or a stand-in in tests. */
export interface EdgeLog {
  debug(fields: Record<string, unknown>, message?: string): void;
}

/**
 * JSON lines written to stdout in blocks of up to 4 KB rather than one write per line: a line for every built file
 * answered, written by itself, was a tenth of the edge's time per file, and the app's line for each request it
 * answered, written by itself, about 4 % of its thread saving carts under load. What is held is written within 250 ms,
 * and at exit (a process killed outright loses at most those 250 ms of lines).
 */
let held: ReturnType<typeof pino.destination> | undefined;

/** Writes what the buffered destination holds now (before the server says it listens: its start-up lines first). */
export function flushLogs(): void {
  try {
    held?.flushSync();
  } catch {
    // A write under way: it carries what was held.
  }
}

function buffered() {
  const destination = pino.destination({ fd: 1, sync: false, minLength: 4096 });
  held = destination;
  const flush = setInterval(() => destination.flush(), 250);
  flush.unref();
  process.once('exit', () => destination.flushSync());
  return destination;
}

/** The edge's logger, as src/server/log.server.ts makes the app's. */
export function serverLogger(log: EdgeConfig['log'], tty = Boolean(process.stdout.isTTY)): pino.Logger {
  const isPretty = log.format === 'pretty' || (log.format !== 'json' && tty);
  const destination = isPretty
    ? pretty({ sync: true, colorize: tty, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname' })
    : buffered();
  // The app writes its JSON lines here too (src/server/log.server.ts); a person's coloured lines it writes itself.
  if (!isPretty) offerLogDestination(destination);
  return pino(
    {
      level: log.level,
      base: { pid: process.pid, component: 'server' },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
    },
    destination,
  );
}

/** The same rule as the app's (requestIdFrom in src/server/log.server.ts): a sane incoming id, else a new one. */
const REQUEST_ID = /^[A-Za-z0-9][A-Za-z0-9._:-]{7,63}$/;
export const requestIdFrom = (incoming: unknown): string =>
  typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();

/** The requests handed to the app, whose middleware logs them (with their route patterns). */
const forTheApp = new WeakSet<IncomingMessage>();

/** Marks each request as handed to the app. */
export const markingApp =
  (app: Handler): Handler =>
  (req, res) => {
    forTheApp.add(req);
    if (!res.hasHeader('x-request-id') && req.headers['x-request-id'] !== undefined)
      res.setHeader('x-request-id', requestIdOf(req));
    return app(req, res);
  };

/**
 * Wraps a handler so every request has an id (X-Request-Id: the incoming one when well-formed, else a new one, handed
 * on to the app and sent back on every answer), and every answer the app did not give (a built file, a redirect, a
 * refusal) a log line at debug: method, `static file` as the route, the path without its query, status, time. At
 * debug, not info: the app logs its own answers at info, and a line for every built file (most requests, and the
 * cheapest) cost a tenth of the time the edge spends on one; a proxy in front logs them anyway. `enabled` says whether
 * debug is logged: when not, nothing is added to the answer. With `sendsId`, the handler sends the id itself (the
 * edge puts it in the head it writes, src/edge/server.ts): one header set by setHeader makes Node merge every other.
 */
export function withRequestIds(
  handler: Handler,
  log: EdgeLog,
  { enabled = () => true, sendsId = false }: { enabled?: () => boolean; sendsId?: boolean } = {},
): Handler {
  return (req, res) => {
    const requestId = requestIdFrom(req.headers['x-request-id']);
    req.headers['x-request-id'] = requestId;
    if (!sendsId) res.setHeader('x-request-id', requestId);
    if (enabled()) {
      const started = performance.now();
      res.once('finish', () => {
        if (forTheApp.has(req)) return;
        const path = (req.url ?? '').split(/[?#]/)[0];
        const ms = Math.round(performance.now() - started);
        log.debug({ method: req.method, route: 'static file', path, status: res.statusCode, ms, requestId }, 'request answered');
      });
    }
    return handler(req, res);
  };
}

/** The id withRequestIds gave the request. */
export const requestIdOf = (req: IncomingMessage): string => String(req.headers['x-request-id'] ?? '');
