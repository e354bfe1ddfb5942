/** A row as the driver returns it. */
export type Row = Record<string, unknown>;

/** Parameterised SQL: values travel as $1, $2, … parameters, never spliced into the text. */
export interface Sql {
  query<T extends object = Row>(text: string, params?: readonly unknown[]): Promise<T[]>;
  /** Several statements without parameters: migrations only. */
  exec(text: string): Promise<void>;
}

/** A statement to run first in a transaction (the role and claims it runs with). */
export interface Setup {
  text: string;
  params?: readonly unknown[];
}

/** A statement whose text and values are known before its transaction begins. */
export interface Statement {
  text: string;
  params?: readonly unknown[];
}

/** The one query interface the app uses, whether PGlite (embedded default) or PostgreSQL answers. */
export interface Database extends Sql {
  readonly kind: 'pglite' | 'postgres';
  /**
   * Runs `fn` in a transaction, after `setup`. Every request opens at least one transaction, so the adapter runs the
   * setup as cheaply as its driver allows: PostgreSQL pipelines it with fn's first statement (one round trip, not two).
   */
  transaction<T>(fn: (tx: Sql) => Promise<T>, setup?: Setup): Promise<T>;
  /**
   * One statement in a transaction of its own, after `setup`. PostgreSQL receives BEGIN, the setup, the statement and
   * COMMIT together: one round trip, where `transaction` needs two (should the statement fail, COMMIT rolls back and
   * the statement's error is thrown). Without `setup`, the statement is sent alone and is its own transaction (no
   * BEGIN or COMMIT), as the database's login role: for a function that takes its role itself (app_private).
   */
  statement<T extends object = Row>(text: string, params?: readonly unknown[], setup?: Setup): Promise<T[]>;
  /**
   * Statements known in advance, in one transaction of their own after `setup`, sent together with BEGIN and COMMIT:
   * one round trip on PostgreSQL, one call into the embedded engine. Their rows, in order; should one fail, nothing
   * is committed and its error is thrown.
   */
  batch(statements: readonly Statement[], setup?: Setup): Promise<Row[][]>;
  /**
   * Only where other processes write to the same database (PostgreSQL): tells `handlers` of every NOTIFY on `channel`,
   * and whether such notifications are being received (see WatchHandlers). Resolves once the watch has started,
   * whether or not it is live yet; `close` ends it.
   */
  watch?(channel: string, handlers: WatchHandlers): Promise<void>;
  /**
   * Only the embedded database (PGlite): a consistent copy of its data directory as an uncompressed tar, taken between
   * two transactions (what was committed before it began is in it, nothing after). PostgreSQL is copied with its own
   * tools (pg_dump, the provider's point-in-time recovery).
   */
  snapshot?(): Promise<Uint8Array>;
  /**
   * Only the embedded database: the directory it is kept in (null in memory). Its backups are sealed with the key of
   * the shop kept beside it (shop-key.ts).
   */
  readonly dataDir?: string | null;
  close(): Promise<void>;
}

/** What a `Database.watch` reports. */
export interface WatchHandlers {
  /** A notification arrived (its payload is not used: a notification means "something changed"). */
  changed(): void;
  /**
   * `true` once notifications are known to arrive (a probe sent through the database came back), `false` from the
   * moment the listening connection is lost: whatever was sent in between is missed, so what was learnt from the
   * database before may be stale.
   */
  live(live: boolean): void;
}

/** A json/jsonb column's value: PGlite hands back the parsed value, postgres.js sometimes the text. */
export function jsonColumn<T>(value: T | string): T {
  return typeof value === 'string' ? (JSON.parse(value) as T) : value;
}

/** The driver's and the operating system's codes for a connection that is gone or cannot be made. */
const CONNECTION_CODES = new Set([
  'CONNECTION_CLOSED',
  'CONNECTION_ENDED',
  'CONNECTION_DESTROYED',
  'CONNECT_TIMEOUT',
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
]);

/**
 * Whether `error` says the database cannot be reached right now (a restart, a failover, a network cut) rather than
 * that a statement failed: the driver's connection errors, and PostgreSQL's connection-exception class (08) and
 * shutdown codes (57P01 to 57P03). Such a request may succeed when retried.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  if (!(error instanceof Error) || !('code' in error) || typeof error.code !== 'string') return false;
  return CONNECTION_CODES.has(error.code) || error.code.startsWith('08') || /^57P0[123]$/.test(error.code);
}
