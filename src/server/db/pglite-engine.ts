/**
 * The embedded database's engine side: what runs beside the PGlite instance itself, in the worker thread that owns it
 * (pglite-worker.ts), or in a test's thread for a PGlite the test opened (tests/db/local-pglite.ts). It speaks in plain
 * data only, since its answers cross threads: rows, command tags, and errors as their message and PostgreSQL's fields.
 *
 * Loaded by Node itself in the worker (type stripping): erasable TypeScript only, relative imports with their `.ts`.
 */
import { type PGlite, parse, protocol } from '@electric-sql/pglite';
import type { Row } from './database.server.ts';

/** What one statement answered: its rows and its command tag (COMMIT answers ROLLBACK after a failure). */
export interface Outcome {
  rows: Row[];
  command: string | undefined;
}

/** A statement for the engine: its text and the values of its parameters. */
export interface EngineStatement {
  text: string;
  params: readonly unknown[];
}

/** A database error as data: its message and PostgreSQL's fields (code, detail, constraint, ...). */
export interface EngineError {
  message: string;
  fields: Record<string, unknown>;
}

/** What a batch answered: the outcomes of the statements that ran, in order, and the error that stopped the rest. */
export interface BatchAnswer {
  outcomes: Outcome[];
  error?: EngineError;
}

/** The engine's calls. Each runs alone on the engine, in the order the calls were made. */
export interface Engine {
  /**
   * Statements as named prepared statements, then one Sync: should one fail, the rest are skipped. With `whole`, the
   * batch is a whole transaction (BEGIN to COMMIT): should it fail, it is rolled back at once.
   */
  batch(statements: readonly EngineStatement[], whole?: boolean): Promise<BatchAnswer>;
  /** One statement, unnamed, as PGlite's own query sends it; without parameters, through the simple protocol. */
  query(text: string, params: readonly unknown[]): Promise<{ rows: Row[] } | { error: EngineError }>;
  /** Statements without parameters through the simple protocol (migrations). */
  exec(text: string): Promise<{ error?: EngineError }>;
  /**
   * A consistent copy of the whole database: its data directory as an uncompressed tar, taken between two calls (PGlite
   * dumps under its query lock, so no statement runs meanwhile). A CHECKPOINT first writes every change into the data
   * files, so the copy opens without replaying the write-ahead log.
   */
  snapshot(): Promise<Uint8Array>;
  close(): Promise<void>;
}

/** By default at most this many texts are kept prepared (the app's are a few hundred constants). */
export const MAX_PREPARED = 1000;

/** A statement PostgreSQL has parsed and planned once, under its own name, and the types of its parameters. */
interface Prepared {
  name: string;
  types: number[];
}

/** An error as data: PGlite's DatabaseError carries PostgreSQL's fields as its own properties. */
export function errorData(error: unknown): EngineError {
  if (!(error instanceof Error)) {
    // Emscripten's ExitStatus (PostgreSQL exited while starting) is a plain object with a message and a status.
    const thrown = error as { message?: unknown; status?: unknown } | null;
    if (thrown && typeof thrown === 'object' && typeof thrown.message === 'string')
      return { message: thrown.message, fields: typeof thrown.status === 'number' ? { status: thrown.status } : {} };
    return { message: typeof error === 'object' ? JSON.stringify(error) : String(error), fields: {} };
  }
  const fields: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(error)) {
    if (value !== undefined && typeof value !== 'function' && typeof value !== 'object') fields[key] = value;
  }
  return { message: error.message, fields };
}

function messagesOf(parts: Uint8Array[]): Uint8Array {
  const all = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    all.set(p, at);
    at += p.length;
  }
  return all;
}

/** The engine for `pg`, keeping at most `maxPrepared` statement texts prepared at a time. */
export function engineOf(pg: PGlite, maxPrepared = MAX_PREPARED): Engine {
  // Least recently used first; names are never reused.
  const byText = new Map<string, Prepared>();
  let named = 0;

  /** A parameter's value as the text PostgreSQL reads for its type. */
  function serialized(value: unknown, type: number | undefined): string | null {
    if (value === null || value === undefined) return null;
    const serialize = pg.serializers[type ?? 0];
    return serialize ? serialize(value) : String(value);
  }

  /**
   * `text` as a named prepared statement, parsed and described on its first use. Beyond the limit, the statement used
   * least recently is closed first (the app's texts are constants, so this only bounds a mistake).
   */
  async function prepared(text: string): Promise<Prepared> {
    const known = byText.get(text);
    if (known) {
      // Most recently used last, so the first entry is the one to close should the limit be reached.
      byText.delete(text);
      byText.set(text, known);
      return known;
    }
    const messages: Uint8Array[] = [];
    if (byText.size >= maxPrepared) {
      const [oldText, oldest] = byText.entries().next().value as [string, Prepared];
      byText.delete(oldText);
      messages.push(protocol.serialize.close({ type: 'S', name: oldest.name }));
    }
    // Should the close above fail (in a failed transaction), no new text takes its name.
    const name = `aurelia_${++named}`;
    messages.push(
      protocol.serialize.parse({ name, text }),
      protocol.serialize.describe({ type: 'S', name }),
      protocol.serialize.sync(),
    );
    const answer = await pg.execProtocol(messagesOf(messages), { syncToFs: false });
    const statement = { name, types: parse.parseDescribeStatementResults(answer.messages) };
    byText.set(text, statement);
    return statement;
  }

  /** The protocol messages that bind and run `s` as its prepared statement (parsing it first if new). */
  async function runMessages(s: EngineStatement): Promise<Uint8Array[]> {
    const { name, types } = await prepared(s.text);
    const values = s.params.map((value, i) => serialized(value, types[i]));
    return [
      protocol.serialize.bind({ statement: name, values }),
      protocol.serialize.describe({ type: 'P' }),
      protocol.serialize.execute({}),
    ];
  }

  return {
    // Under PGlite's query lock, like its own queries. Values travel as parameters, never in the text.
    batch: (statements, whole = false) =>
      pg.runExclusive(async () => {
        const outcomes: Outcome[] = [];
        try {
          const parts: Uint8Array[] = [];
          for (const s of statements) parts.push(...(await runMessages(s)));
          parts.push(protocol.serialize.sync());
          const { messages } = await pg.execProtocol(messagesOf(parts), { syncToFs: false, throwOnError: false });
          // One CommandComplete per statement that ran (parseResults adds an empty result when there is none at all).
          const ran = messages.filter((m) => m.name === 'commandComplete').length;
          const results = parse.parseResults(messages, pg.parsers);
          for (let i = 0; i < ran; i++) {
            const result = results[i];
            outcomes.push({ rows: (result?.rows ?? []) as Row[], command: result?.command });
          }
          const error = messages.find((m) => m.name === 'error');
          if (error && whole && pg.isInTransaction()) {
            await pg.execProtocol(protocol.serialize.query('rollback'), { syncToFs: false });
          }
          if (outcomes.length < statements.length) {
            return {
              outcomes,
              error: errorData(error ?? new Error(`The database did not answer: ${statements[outcomes.length]?.text}`)),
            };
          }
          return { outcomes };
        } catch (error) {
          return { outcomes, error: errorData(error) };
        }
      }),
    // Every call takes PGlite's lock before its first await, so calls run in exactly the order they were made.
    query: (text, params) =>
      pg.runExclusive(async () => {
        try {
          // Without parameters, the simple protocol (the texts here are always the code's own constants); with them,
          // an unnamed statement described first for its parameters' types, as PGlite's own query does.
          if (params.length === 0) {
            const { messages } = await pg.execProtocol(protocol.serialize.query(text), { syncToFs: false });
            return { rows: (parse.parseResults(messages, pg.parsers).at(-1)?.rows ?? []) as Row[] };
          }
          const described = await pg.execProtocol(
            messagesOf([
              protocol.serialize.parse({ text }),
              protocol.serialize.describe({ type: 'S' }),
              protocol.serialize.sync(),
            ]),
            { syncToFs: false },
          );
          const types = parse.parseDescribeStatementResults(described.messages);
          const values = params.map((value, i) => serialized(value, types[i]));
          const { messages } = await pg.execProtocol(
            messagesOf([
              protocol.serialize.bind({ values }),
              protocol.serialize.describe({ type: 'P' }),
              protocol.serialize.execute({}),
              protocol.serialize.sync(),
            ]),
            { syncToFs: false },
          );
          return { rows: (parse.parseResults(messages, pg.parsers)[0]?.rows ?? []) as Row[] };
        } catch (error) {
          return { error: errorData(error) };
        }
      }),
    exec: (text) =>
      pg.runExclusive(async () => {
        try {
          await pg.execProtocol(protocol.serialize.query(text), { syncToFs: false });
          return {};
        } catch (error) {
          return { error: errorData(error) };
        }
      }),
    async snapshot() {
      await pg.runExclusive(() => pg.execProtocol(protocol.serialize.query('checkpoint'), { syncToFs: false }));
      // dumpDataDir takes the query lock itself (inside runExclusive it would wait for itself). Compressing is left to
      // the caller: PGlite would do it under the lock, holding up every statement for it.
      const tar = await pg.dumpDataDir('none');
      return new Uint8Array(await tar.arrayBuffer());
    },
    close: () => pg.close(),
  };
}
