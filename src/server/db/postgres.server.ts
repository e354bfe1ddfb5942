import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import postgres from 'postgres';
import { logger } from '../log.server';
import { timedWait } from '../metrics.server';
import {
  type Database,
  isDatabaseUnavailable,
  type Row,
  type Setup,
  type Sql,
  type Statement,
  type WatchHandlers,
} from './database.server';

type Client = postgres.Sql | postgres.TransactionSql | postgres.ReservedSql;

/** What postgres.js hands a query's `onexecute` option: the connection, whose `onclose` it calls once when it closes. */
interface ConnectionHandle {
  onclose?: ((error: Error) => void) | undefined;
}

/**
 * How statements are sent: as named prepared statements, each parsed and planned once per connection. postgres.js's
 * `unsafe` would otherwise parse and plan every statement anew and, for one with parameters, wait for the server to
 * describe it before binding them: a round trip more, which also holds up the rest of a pipeline. (A transaction's
 * BEGIN, COMMIT and ROLLBACK go as simple queries.) `?prepare=false` in DATABASE_URL turns preparing off, for a
 * pooler in transaction mode that does not keep prepared statements; the driver then sends each statement unnamed.
 */
const log = logger('database');

const PREPARED = { prepare: true, simple: false } as postgres.UnsafeQueryOptions;

function wrap(sql: Client): Sql {
  return {
    async query<T extends object = Row>(text: string, params: readonly unknown[] = []) {
      return (await sql.unsafe(text, params as postgres.ParameterOrJSON<never>[], PREPARED)) as unknown as T[];
    },
    async exec(text: string) {
      await sql.unsafe(text).simple();
    },
  };
}

/**
 * How long a transaction waits for a connection. While PostgreSQL restarts, the driver queues a transaction until a
 * connection is back, however long that takes; past this, it is answered as unavailable (503) instead.
 */
const RESERVE_TIMEOUT_MS = 5_000;

/** A reserved connection, or an error coded CONNECT_TIMEOUT after `ms` (the connection, should it come, is released). */
async function reserveWithin(sql: postgres.Sql, ms: number): Promise<postgres.ReservedSql> {
  const pending = sql.reserve();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(Object.assign(new Error(`no database connection within ${ms} ms`), { code: 'CONNECT_TIMEOUT' })),
      ms,
    );
  });
  try {
    return await Promise.race([pending, timeout]);
  } catch (error) {
    pending.then(
      (connection) => connection.release(),
      () => {},
    );
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

/** What a transaction sends around its statements, as simple queries. */
const CONTROL = new Set(['begin', 'commit', 'rollback']);

/** A reserved connection as a transaction uses it: statements sent on it, and whether it has closed meanwhile. */
interface OwnConnection {
  sql: Sql;
  send(text: string, params?: readonly unknown[]): Promise<unknown>;
  gone(): boolean;
  /** Rejects with the driver's error once the connection has closed (what was queued on it may never be answered). */
  closed: Promise<never>;
}

/**
 * Runs `fn` on a connection of its own. postgres.js 3.4.9 crashes the process when a query is sent on a reserved
 * connection whose socket has closed (the write is scheduled for later and then finds no socket: porsager/postgres#1208).
 * So the connection is watched, as the driver's own sql.begin does, and once it has closed nothing more is sent on it:
 * every later statement, and the rollback, fail at once with the driver's error instead, and it is not released.
 */
async function onOwnConnection<T>(sql: postgres.Sql, fn: (connection: OwnConnection) => Promise<T>): Promise<T> {
  const connection = await timedWait(reserveWithin(sql, RESERVE_TIMEOUT_MS));
  let watched: ConnectionHandle | undefined;
  let gone: Error | undefined;
  let closing: (error: Error) => void = () => {};
  const closed = new Promise<never>((_, reject) => {
    closing = reject;
  });
  closed.catch(() => {});
  const watch = {
    onexecute(handle: ConnectionHandle) {
      watched = handle;
      handle.onclose = (error) => {
        gone = error;
        closing(error);
      };
      return true;
    },
  };
  let first = true;
  const send = (text: string, params: readonly unknown[] = []): Promise<unknown> => {
    if (gone) return Promise.reject(gone);
    // The first statement sent carries the watch (postgres.js hands it the connection when it goes out).
    const options = { ...(CONTROL.has(text) ? {} : PREPARED), ...(first ? watch : {}) };
    first = false;
    return connection.unsafe(text, params as postgres.ParameterOrJSON<never>[], options).execute();
  };
  const own = wrap(connection);
  try {
    return await fn({
      sql: {
        query: (text, params) => (gone ? Promise.reject(gone) : own.query(text, params)),
        exec: (text) => (gone ? Promise.reject(gone) : own.exec(text)),
      },
      send,
      gone: () => gone !== undefined,
      closed,
    });
  } finally {
    if (watched?.onclose) watched.onclose = undefined;
    // A closed connection is already back in the driver's hands (it reconnects it for whoever waits); releasing it
    // too would give the dead connection to the next transaction waiting for one.
    if (!gone) connection.release();
  }
}

/**
 * Seconds to wait before connecting again after `retries` failed connections in a row (postgres.js counts them across
 * the pool). The driver's own wait grows to 20 s, so a shop whose database was gone a few seconds would go on
 * answering 503 for as long again once it is back; this one grows as fast but stops at one second (with jitter, so the
 * pool's connections do not all knock at once).
 */
export const reconnectBackoff = (retries: number): number => (0.5 + Math.random() / 2) * Math.min(3 ** retries / 100, 1);

/** How long a watch waits before listening again after its connection was lost or its probe did not come back. */
const WATCH_RETRY_MS = 2_000;
/** How long a watch waits for its probe: a notification it sends itself, through the pool, once it listens. */
const PROBE_TIMEOUT_MS = 2_000;

/**
 * Listens on `channel` on a connection of its own (see Database.watch). A notification sent while that connection is
 * down is lost, so `live(false)` is reported as soon as it closes, and `live(true)` only once it listens again and a
 * probe sent through the pool has come back: through a transaction-mode pooler, which does not carry LISTEN, it never
 * does, and the watch stays not live.
 */
function watchChannel(pool: postgres.Sql, url: string, channel: string, handlers: WatchHandlers) {
  if (!/^[a-z_][a-z0-9_]*$/.test(channel)) throw new Error(`Not a channel name: ${channel}`);
  let stopped = false;
  let retry: NodeJS.Timeout | undefined;
  let probe: { payload: string; arrived: () => void } | undefined;
  let warned = false;
  // The driver's types leave out `onnotify` (what its own listen uses), so the options are typed by hand.
  const options: postgres.Options<Record<string, never>> & { onnotify(channel: string, payload: string): void } = {
    max: 1,
    backoff: reconnectBackoff,
    idle_timeout: 0,
    max_lifetime: null,
    fetch_types: false,
    onnotice: () => {},
    connection: { application_name: 'aurelia-shop-watch' },
    onnotify(_, payload) {
      if (payload === probe?.payload) probe?.arrived();
      handlers.changed();
    },
    onclose() {
      handlers.live(false);
      again();
    },
  };
  const listener = postgres(url, options);
  const again = () => {
    if (stopped) return;
    clearTimeout(retry);
    retry = setTimeout(() => void start(), WATCH_RETRY_MS);
    retry.unref();
  };
  async function start(): Promise<void> {
    try {
      await listener.unsafe(`listen ${channel}`);
      const payload = `probe:${randomUUID()}`;
      const arrived = new Promise<boolean>((resolve) => {
        probe = { payload, arrived: () => resolve(true) };
      });
      await pool`select pg_notify(${channel}, ${payload})`;
      const came = await Promise.race([arrived, sleep(PROBE_TIMEOUT_MS, false, { ref: false })]);
      probe = undefined;
      if (stopped) return;
      if (came) {
        warned = false;
        handlers.live(true);
        return;
      }
      if (!warned) log.warn({ channel }, 'notifications do not come back (a transaction-mode pooler?)');
      warned = true;
    } catch {
      // The database is down or restarting: try again shortly (onclose may already have).
    }
    again();
  }
  return {
    started: start(),
    async stop() {
      stopped = true;
      clearTimeout(retry);
      handlers.live(false);
      await listener.end({ timeout: 1 });
    },
  };
}

/** Connects to PostgreSQL (production, or the CI server in tests). */
export function openPostgres(url: string, options: { max?: number } = {}): Database {
  const sql = postgres(url, {
    max: options.max ?? 10,
    backoff: reconnectBackoff,
    onnotice: () => {},
    connection: { application_name: 'aurelia-shop' },
  });
  const watches: (() => Promise<void>)[] = [];

  /** BEGIN, the setup, the statements and COMMIT leave together: one round trip (see Database.batch). */
  function batch(statements: readonly Statement[], setup?: Setup): Promise<Row[][]> {
    return onOwnConnection(sql, async (connection) => {
      // After a failed statement the server still runs the rest, which fail too, and COMMIT, which then rolls back.
      // Should the connection close meanwhile, what was queued on it is not answered: its closing is the answer.
      const outcomes = await Promise.race([
        Promise.allSettled([
          connection.send('begin'),
          setup ? connection.send(setup.text, setup.params) : null,
          ...statements.map((s) => connection.send(s.text, s.params)),
          connection.send('commit'),
        ]),
        connection.closed,
      ]);
      for (const outcome of outcomes) if (outcome.status === 'rejected') throw outcome.reason;
      return outcomes.slice(2, 2 + statements.length).map((o) => (o as PromiseFulfilledResult<Row[]>).value);
    });
  }

  return {
    kind: 'postgres',
    ...wrap(sql),
    // A transaction costs two round trips, not three as with sql.begin (which waits for BEGIN before running fn): on a
    // connection of its own, BEGIN, the setup and fn's first statements leave together (postgres.js pipelines what
    // is sent without waiting), then COMMIT once fn is done. Should anything fail, the rest of the pipeline fails
    // with it ("current transaction is aborted"), the first error is thrown, and the transaction is rolled back.
    // A single statement needs one round trip: its COMMIT leaves with it.
    async transaction<T>(fn: (tx: Sql) => Promise<T>, setup?: Setup): Promise<T> {
      return onOwnConnection(sql, async (connection) => {
        try {
          const begun = connection.send('begin');
          const ready = setup ? connection.send(setup.text, setup.params) : null;
          // fn runs now, up to its first await, so its first statements join the pipeline; a throw becomes a rejection.
          const work = (async () => fn(connection.sql))();
          const [, , result] = await Promise.race([Promise.all([begun, ready, work]), connection.closed]);
          await connection.send('commit');
          return result;
        } catch (error) {
          // A connection that is gone takes its transaction with it.
          if (!connection.gone() && !isDatabaseUnavailable(error)) await connection.send('rollback').catch(() => {});
          throw error;
        }
      });
    },
    statement: async <T extends object = Row>(text: string, params: readonly unknown[] = [], setup?: Setup) =>
      setup
        ? ((await batch([{ text, params }], setup))[0] as T[])
        : // Alone, it is its own transaction; on a connection of its own, so a restart gets the same wait limit.
          onOwnConnection(sql, (connection) => Promise.race([connection.send(text, params) as Promise<T[]>, connection.closed])),
    batch,
    async watch(channel, handlers) {
      const watch = watchChannel(sql, url, channel, handlers);
      watches.push(watch.stop);
      await watch.started;
    },
    async close() {
      await Promise.all(watches.splice(0).map((stop) => stop()));
      await sql.end({ timeout: 5 });
    },
  };
}
