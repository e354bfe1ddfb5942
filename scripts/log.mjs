// The server in front's own log lines (scripts/serve.mjs: the built files it answers, slow answers, start-up), in the
// shop's format: JSON lines on stdout through pino, or lines for a person when stdout is a terminal or
// LOG_FORMAT=pretty (LOG_FORMAT=json forces JSON), at LOG_LEVEL (default info). The app's lines come from
// src/server/log.server.ts, which chooses the same way; these lines carry no shopper data (a built file's path).
import { randomUUID } from 'node:crypto';
import pino from 'pino';
import pretty from 'pino-pretty';

const LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

/** The server's logger, as src/server/log.server.ts makes the app's. */
export function serverLogger(env = process.env, tty = Boolean(process.stdout.isTTY)) {
  const isPretty = env.LOG_FORMAT === 'pretty' || (env.LOG_FORMAT !== 'json' && tty);
  const destination = isPretty
    ? pretty({ sync: true, colorize: tty, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname' })
    : pino.destination({ fd: 1, sync: true });
  return pino(
    {
      level: LEVELS.includes(env.LOG_LEVEL ?? '') ? env.LOG_LEVEL : 'info',
      base: { pid: process.pid, component: 'server' },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
    },
    destination,
  );
}

/** The same rule as the app's (requestIdFrom in src/server/log.server.ts): a sane incoming id, else a new one. */
const REQUEST_ID = /^[A-Za-z0-9][A-Za-z0-9._:-]{7,63}$/;
export const requestIdFrom = (incoming) => (typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID());

/** Marks a request as handed to the app, whose middleware logs it (with its route pattern). */
const FOR_THE_APP = Symbol('for the app');
export const markingApp = (app) => (req, res) => {
  req[FOR_THE_APP] = true;
  return app(req, res);
};

/**
 * Wraps a Node request handler so every request has an id (X-Request-Id: the incoming one when well-formed, else a
 * new one, handed on to the app and sent back on every answer), and every answer the app did not give (a built file,
 * a redirect, a refusal) a log line: method, `static file` as the route, the path without its query, status, time.
 */
export function withRequestIds(handler, log) {
  return (req, res) => {
    const requestId = requestIdFrom(req.headers['x-request-id']);
    req.headers['x-request-id'] = requestId;
    res.setHeader('x-request-id', requestId);
    const started = performance.now();
    res.once('finish', () => {
      if (req[FOR_THE_APP]) return;
      const path = (req.url ?? '').split(/[?#]/)[0];
      const ms = Math.round(performance.now() - started);
      log.info({ method: req.method, route: 'static file', path, status: res.statusCode, ms, requestId }, 'request answered');
    });
    handler(req, res);
  };
}
