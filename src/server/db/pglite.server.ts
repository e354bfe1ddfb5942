import { closeSync, mkdirSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { PGlite, parse, protocol, type Transaction } from '@electric-sql/pglite';
import type { Database, Row, Setup, Sql } from './database.server';

/** PGlite opens a directory twice without complaint, so the app takes a lock file beside it first. */
function lock(dataDir: string): () => void {
  const path = `${dataDir}.lock`;
  mkdirSync(dirname(path), { recursive: true });
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(path, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return () => {
        try {
          if (readFileSync(path, 'utf8') === String(process.pid)) unlinkSync(path);
        } catch {
          // Already gone.
        }
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = Number(readFileSync(path, 'utf8'));
      // A live holder (this very process included: a second instance here would corrupt the data too) keeps it.
      if (holder && isAlive(holder)) {
        throw new Error(
          `The embedded database at ${dataDir} is in use by process ${holder}. Stop that process, or set PGLITE_DIR to another directory.`,
        );
      }
      unlinkSync(path); // Left behind by a process that is gone.
    }
  }
  throw new Error(`Could not lock the embedded database at ${dataDir}`);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** A statement PostgreSQL has parsed and planned once, under its own name, and the types of its parameters. */
interface Prepared {
  name: string;
  types: number[];
}

/** At most this many texts are kept prepared per database (the app's are a few hundred constants at most). */
const MAX_PREPARED = 1000;

/** Each open database's prepared statements, by text (statements live in its one session). */
const preparedOf = new WeakMap<PGlite, Map<string, Prepared>>();

function statementsOf(pg: PGlite): Map<string, Prepared> {
  const known = preparedOf.get(pg);
  if (known) return known;
  const statements = new Map<string, Prepared>();
  preparedOf.set(pg, statements);
  return statements;
}

/** Whether `text` is prepared already, or there is room to prepare it (beyond that, PGlite's unnamed statements). */
function canPrepare(pg: PGlite, text: string): boolean {
  const statements = statementsOf(pg);
  return statements.has(text) || statements.size < MAX_PREPARED;
}

function messagesOf(...parts: Uint8Array[]): Uint8Array {
  const all = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    all.set(p, at);
    at += p.length;
  }
  return all;
}

/**
 * A parameterised query inside a transaction, as a named prepared statement: PGlite's own `query` sends an unnamed
 * statement, so PostgreSQL parses and plans the text again on every call (planning the cart's save took longer than
 * running it). Here the text is parsed once per session and each call is one batch of bind, describe, execute and sync.
 * Values still travel as parameters, never in the text. Runs under PGlite's query lock, like its own queries, so the
 * statements of a transaction sent together (Promise.all) do not interleave their protocol messages.
 */
function preparedQuery<T>(pg: PGlite, text: string, params: readonly unknown[]): Promise<T[]> {
  return pg.runExclusive(async () => {
    const statements = statementsOf(pg);
    let statement = statements.get(text);
    if (!statement) {
      const name = `aurelia_${statements.size + 1}`;
      const { messages } = await pg.execProtocol(
        messagesOf(
          protocol.serialize.parse({ name, text }),
          protocol.serialize.describe({ type: 'S', name }),
          protocol.serialize.sync(),
        ),
        { syncToFs: false },
      );
      statement = { name, types: parse.parseDescribeStatementResults(messages) };
      statements.set(text, statement);
    }
    const { types } = statement;
    const values = params.map((value, i) => {
      if (value === null || value === undefined) return null;
      const serialize = pg.serializers[types[i] ?? 0];
      return serialize ? serialize(value) : String(value);
    });
    const { messages } = await pg.execProtocol(
      messagesOf(
        protocol.serialize.bind({ statement: statement.name, values }),
        protocol.serialize.describe({ type: 'P' }),
        protocol.serialize.execute({}),
        protocol.serialize.sync(),
      ),
      { syncToFs: false },
    );
    return (parse.parseResults(messages, pg.parsers)[0]?.rows ?? []) as T[];
  });
}

function wrap(pg: PGlite | Transaction, owner?: PGlite): Sql {
  return {
    async query<T extends object = Row>(text: string, params: readonly unknown[] = []) {
      // PGlite runs a query with parameters as five protocol steps (parse, describe, bind, describe, execute), each a
      // call into the WASM engine on this very thread; without parameters the one-step simple protocol gives the same
      // rows, and the texts here are always the code's own constants.
      if (params.length === 0) return ((await pg.exec(text)).at(-1)?.rows ?? []) as T[];
      if (owner && canPrepare(owner, text)) return preparedQuery<T>(owner, text, params);
      return (await pg.query<T>(text, [...params])).rows;
    },
    async exec(text: string) {
      await pg.exec(text);
    },
  };
}

/** Wraps an open PGlite instance (tests pass a clone) as a Database. */
export function fromPglite(pg: PGlite, release: () => void = () => {}): Database {
  const database: Database = {
    kind: 'pglite',
    ...wrap(pg),
    transaction: (fn, setup?: Setup) =>
      pg.transaction(async (tx) => {
        const sql = wrap(tx, pg);
        if (setup) await sql.query(setup.text, setup.params);
        return fn(sql);
      }),
    statement: (text, params, setup) => database.transaction((tx) => tx.query(text, params), setup),
    async close() {
      await pg.close();
      release();
    },
  };
  return database;
}

/** Opens the embedded database in `dataDir` (locked to this process), or in memory when dataDir is null. */
export async function openPglite(dataDir: string | null): Promise<Database> {
  const release = dataDir ? lock(dataDir) : () => {};
  try {
    const pg = dataDir ? await PGlite.create(dataDir) : await PGlite.create();
    process.once('exit', release);
    return fromPglite(pg, release);
  } catch (error) {
    release();
    throw error;
  }
}
