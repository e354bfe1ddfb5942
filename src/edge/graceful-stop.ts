// The stop on SIGTERM that drops no connection the server took (decision 005, docs/operating.md "Stopping"):
// 1. drain (SHUTDOWN_DRAIN_SECONDS): everything is still served and connections still taken, but readiness answers
//    503, so a proxy's health check takes the server out of its pool and sends the next shoppers elsewhere;
// 2. once no connection has come for a moment (those in the listener's backlog are taken), the listener closes, and
//    only it: Node's server.close() would also close every kept-alive connection with no
//    request being answered, including those whose next request has arrived but not yet been read (the client then
//    gets ECONNRESET for a request it sent on a connection the server had accepted). Each connection instead gets the
//    answer to what it asked, with `Connection: close`, and one that stays idle for IDLE_CLOSE_MS is closed;
// 3. once every connection has ended, or SHUTDOWN_GRACE_SECONDS after the listener closed (the connections still
//    open are then cut), the app's services stop, and the exit code says whether anything had to be cut.
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { Server as NetServer, type Socket } from 'node:net';

/**
 * After the listener closes, a connection with no request under way for this long is closed: long enough that a request
 * sent on it is read first, on a busy machine too (at 500 ms, 21 of 80 shoppers were reset under CI's load).
 */
export const IDLE_CLOSE_MS = 2000;

/** The listener closes once no connection has come for this long, or after SETTLE_AT_MOST_MS (see shutdown). */
const SETTLED_AFTER_MS = 50;
const SETTLE_AT_MOST_MS = 1000;

export interface StopOptions {
  /** How long to keep serving with readiness failing, before the listener closes (0: none, as on SIGINT). */
  drainMs: number;
  /** How long the connections get once the listener closed. */
  graceMs: number;
  /** Stops the app's services (the outbox's job finished or handed back, the database closed). */
  stop: () => Promise<void> | void;
  log?: (line: string) => void;
  idleCloseMs?: number;
}

export interface GracefulStop {
  /** Stops as above; resolves to the exit code: 0 when everything finished, 1 when something had to be cut. */
  shutdown(signal: string, options?: { drain?: boolean }): Promise<number>;
  /** Whether the server is stopping: readiness answers 503 from the signal on. */
  stopping(): boolean;
}

/**
 * Resolves after `ms`, once the event loop has also looked for what arrived meanwhile (its poll phase, which takes
 * connections and reads requests, runs after timers and before setImmediate). A timer alone can fire first after the
 * process was held up (a busy machine): what arrived during the wait would not have been seen yet, and a connection
 * would look idle, or the backlog empty, when it is not.
 */
const afterPoll = (ms: number) => new Promise<void>((resolve) => setTimeout(() => setImmediate(resolve), ms));

/** Resolves to whether `promise` settled well within `ms`. */
const within = (promise: Promise<unknown>, ms: number) =>
  new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    promise.then(
      () => resolve(true),
      () => resolve(false),
    );
    promise.finally(() => clearTimeout(timer)).catch(() => {});
  });

/** Installs the stop on `server`; install it before the server takes connections, it counts them from their start. */
export function gracefulShutdown(
  server: Server,
  { drainMs, graceMs, stop, log = () => {}, idleCloseMs = IDLE_CLOSE_MS }: StopOptions,
): GracefulStop {
  /** Every open connection: how many of its requests are being answered, and since when it has had none. */
  const connections = new Map<Socket, { busy: number; idleSince: number }>();
  /** When the last connection was taken (performance.now()). */
  let lastTaken = 0;
  let phase: 'serving' | 'draining' | 'closing' = 'serving';
  let allClosed = () => {};
  const closed = () => {
    if (phase === 'closing' && connections.size === 0) allClosed();
  };
  /** Connections taken, and closed, since the signal (what the log says of the drain). */
  let takenSince = 0;
  let closedSince = 0;
  server.prependListener('connection', (socket: Socket) => {
    lastTaken = performance.now();
    if (phase !== 'serving') takenSince++;
    connections.set(socket, { busy: 0, idleSince: lastTaken });
    socket.once('close', () => {
      if (phase !== 'serving') closedSince++;
      connections.delete(socket);
      closed();
    });
  });
  server.prependListener('request', (req: IncomingMessage, res: ServerResponse) => {
    const connection = connections.get(req.socket);
    if (connection) connection.busy++;
    // After the listener closed, a kept-alive connection would wait for a request that must go to another server.
    if (phase === 'closing') res.setHeader('connection', 'close');
    res.once('close', () => {
      if (!connection) return;
      connection.busy--;
      connection.idleSince = performance.now();
    });
  });

  /** Closes the connections idle for idleCloseMs, until none is left; run after a poll phase (see afterPoll). */
  const closeIdle = () => {
    const now = performance.now();
    for (const [socket, { busy, idleSince }] of connections) if (busy === 0 && now - idleSince >= idleCloseMs) socket.destroy();
  };

  async function shutdown(signal: string, { drain = true } = {}): Promise<number> {
    const started = Date.now();
    const drainFor = drain ? drainMs : 0;
    if (drainFor > 0) {
      phase = 'draining';
      log(
        `${signal}: readiness answers 503; still serving for ${drainFor / 1000} s so that a proxy in front stops sending requests here`,
      );
      await new Promise((resolve) => setTimeout(resolve, drainFor));
    }
    // Connections the system has completed but the server not yet taken would be reset as the listener closes: it
    // closes once none has come for a moment (at most a second), so those waiting in its backlog are taken first.
    for (const until = performance.now() + SETTLE_AT_MOST_MS; performance.now() < until; ) {
      await afterPoll(10);
      if (performance.now() - lastTaken >= SETTLED_AFTER_MS) break;
    }
    phase = 'closing';
    const busy = [...connections.values()].filter((c) => c.busy > 0).length;
    log(
      `${signal}: taking no new connections; answering ${connections.size} connection(s), ${busy} with a request under way (at most ${graceMs / 1000} s); ${takenSince} taken and ${closedSince} closed since the signal`,
    );
    // The listener alone (see the top of this file); its callback would wait for every connection to end.
    NetServer.prototype.close.call(server);
    for (const socket of connections.keys()) {
      const res = (socket as Socket & { _httpMessage?: ServerResponse })._httpMessage;
      if (res && !res.headersSent) res.setHeader('connection', 'close');
    }
    const sweeping = setInterval(() => setImmediate(closeIdle), Math.min(100, idleCloseMs));
    setImmediate(closeIdle);
    const answered = connections.size === 0 || (await within(new Promise<void>((resolve) => (allClosed = resolve)), graceMs));
    clearInterval(sweeping);
    if (!answered) {
      log(`${connections.size} connection(s) still open after ${graceMs / 1000} s: they are closed`);
      server.closeAllConnections();
      for (const socket of connections.keys()) socket.destroy();
    }
    const stopped = await within(Promise.resolve().then(stop), Math.max(2_000, drainFor + graceMs - (Date.now() - started)));
    if (!stopped) log('the services did not stop in time (an outbox job under way runs again when its lease ends)');
    log(`stopped after ${Date.now() - started} ms`);
    return answered && stopped ? 0 : 1;
  }

  return { shutdown, stopping: () => phase !== 'serving' };
}
