import { closeSync, mkdirSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { PGlite, parse, protocol } from '@electric-sql/pglite';
import type { Database, Row, Setup, Sql, Statement } from './database.server';

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

/** By default at most this many texts are kept prepared per database (the app's are a few hundred constants). */
const MAX_PREPARED = 1000;

/** A database's prepared statements, by text, least recently used first, and how many names it has given out. */
interface Statements {
  byText: Map<string, Prepared>;
  named: number;
  limit: number;
}

/** Each open database's prepared statements (statements live in its one session). */
const preparedOf = new WeakMap<PGlite, Statements>();

function statementsOf(pg: PGlite): Statements {
  const known = preparedOf.get(pg);
  if (!known) throw new Error('This PGlite instance was not opened through fromPglite');
  return known;
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

/**
 * `text` as a named prepared statement, parsed and described on its first use. Beyond the limit, the statement used
 * least recently is closed first (the app's texts are constants, so this only bounds a mistake).
 */
async function prepared(pg: PGlite, text: string): Promise<Prepared> {
  const statements = statementsOf(pg);
  const known = statements.byText.get(text);
  if (known) {
    // Most recently used last, so the first entry is the one to close should the limit be reached.
    statements.byText.delete(text);
    statements.byText.set(text, known);
    return known;
  }
  const messages: Uint8Array[] = [];
  if (statements.byText.size >= statements.limit) {
    const [oldText, oldest] = statements.byText.entries().next().value as [string, Prepared];
    statements.byText.delete(oldText);
    messages.push(protocol.serialize.close({ type: 'S', name: oldest.name }));
  }
  // Names are never reused: should the close above fail (in a failed transaction), no new text takes its name.
  const name = `aurelia_${++statements.named}`;
  messages.push(
    protocol.serialize.parse({ name, text }),
    protocol.serialize.describe({ type: 'S', name }),
    protocol.serialize.sync(),
  );
  const answer = await pg.execProtocol(messagesOf(messages), { syncToFs: false });
  const statement = { name, types: parse.parseDescribeStatementResults(answer.messages) };
  statements.byText.set(text, statement);
  return statement;
}

/** What one statement of a batch answered: its rows and its command tag (COMMIT answers ROLLBACK after a failure). */
interface Outcome {
  rows: Row[];
  command: string | undefined;
}

/** A statement waiting in a transaction's pipeline, and how to hand back what it answers. */
interface Queued {
  text: string;
  params: readonly unknown[];
  done(outcome: Outcome): void;
  fail(error: unknown): void;
}

/** The protocol messages that bind and run `q` as its prepared statement (parsing it first if new). */
async function runMessages(pg: PGlite, q: Queued): Promise<Uint8Array[]> {
  const { name, types } = await prepared(pg, q.text);
  const values = q.params.map((value, i) => {
    if (value === null || value === undefined) return null;
    const serialize = pg.serializers[types[i] ?? 0];
    return serialize ? serialize(value) : String(value);
  });
  return [
    protocol.serialize.bind({ statement: name, values }),
    protocol.serialize.describe({ type: 'P' }),
    protocol.serialize.execute({}),
  ];
}

/**
 * Runs a batch of statements as one call into the engine: each as a named prepared statement (parsed and planned once
 * per session, where PGlite's own `query` and `exec` plan the text again on every call), then one Sync. Values travel
 * as parameters, never in the text. Should a statement fail, PostgreSQL skips the rest until the Sync: it is rejected
 * with its error, and so are the ones after it, which never ran. Under PGlite's query lock, like its own queries.
 */
function sendBatch(pg: PGlite, batch: Queued[]): Promise<void> {
  return pg.runExclusive(async () => {
    let settled = 0;
    try {
      const parts: Uint8Array[] = [];
      for (const q of batch) parts.push(...(await runMessages(pg, q)));
      parts.push(protocol.serialize.sync());
      const { messages } = await pg.execProtocol(messagesOf(parts), { syncToFs: false, throwOnError: false });
      // One CommandComplete per statement that ran (parseResults adds an empty result when there is none at all).
      const ran = messages.filter((m) => m.name === 'commandComplete').length;
      const results = parse.parseResults(messages, pg.parsers);
      for (; settled < ran; settled++) {
        const result = results[settled];
        batch[settled]?.done({ rows: (result?.rows ?? []) as Row[], command: result?.command });
      }
      const error = messages.find((m) => m.name === 'error');
      if (settled < batch.length) throw error ?? new Error(`The database did not answer: ${batch[settled]?.text}`);
    } catch (error) {
      for (const q of batch.slice(settled)) q.fail(error);
    }
  });
}

/**
 * A transaction's statements on their way to the engine: what the code sends within one turn of the event loop (BEGIN
 * and the setup with the code's first statements, or the statements of a Promise.all) leaves as one batch, so a
 * transaction costs one call into the engine per round trip of its code, not two or three per statement. Statements
 * run in the order they were sent.
 */
function pipeline(pg: PGlite) {
  let queue: Queued[] = [];
  let closed = false;
  const flush = () => {
    if (queue.length === 0) return;
    const batch = queue;
    queue = [];
    void sendBatch(pg, batch);
  };
  const send = (text: string, params: readonly unknown[] = []): Promise<Outcome> => {
    if (closed) return Promise.reject(new Error('Transaction is closed'));
    return new Promise<Outcome>((done, fail) => {
      if (queue.length === 0) queueMicrotask(flush);
      queue.push({ text, params, done, fail });
    });
  };
  const sql: Sql = {
    async query<T extends object = Row>(text: string, params: readonly unknown[] = []) {
      return (await send(text, params)).rows as T[];
    },
    // Several statements in one text (migrations), through the simple protocol: after what is queued (the query lock
    // takes its callers in turn).
    async exec(text: string) {
      if (closed) throw new Error('Transaction is closed');
      flush();
      await pg.runExclusive(() => pg.execProtocol(protocol.serialize.query(text), { syncToFs: false }));
    },
  };
  return {
    send,
    sql,
    close() {
      closed = true;
    },
  };
}

/** Throws as PGlite does when COMMIT found the transaction failed (an error that was caught and ignored). */
function committed(outcome: Outcome): void {
  if (outcome.command === 'ROLLBACK') throw new Error('The transaction was rolled back: one of its statements failed.');
}

/**
 * Wraps an open PGlite instance (tests pass their own) as a Database; at most `maxPrepared` statement texts are kept
 * prepared at a time.
 */
export function fromPglite(pg: PGlite, release: () => void = () => {}, maxPrepared = MAX_PREPARED): Database {
  preparedOf.set(pg, { byText: new Map(), named: 0, limit: maxPrepared });
  /**
   * Runs `work` in a transaction of its own, alone on the engine: under PGlite's transaction lock (its
   * `_runExclusiveTransaction`, the lock its own `transaction`, `query` and `exec` take), so no other caller's
   * statement lands inside it. BEGIN and the setup leave with work's first statements.
   */
  function transaction<T>(work: (line: ReturnType<typeof pipeline>) => Promise<T>, setup?: Setup): Promise<T> {
    return pg._runExclusiveTransaction(async () => {
      const line = pipeline(pg);
      try {
        const begun = line.send('begin');
        const ready = setup ? line.send(setup.text, setup.params) : null;
        const [, , result] = await Promise.all([begun, ready, work(line)]);
        return result;
      } catch (error) {
        await line.send('rollback').catch(() => {});
        throw error;
      } finally {
        line.close();
      }
    });
  }
  /** BEGIN, the setup, the statements and COMMIT in one call: should a statement fail, the rest are skipped with it. */
  const batch = (statements: readonly Statement[], setup?: Setup) =>
    transaction(async (line) => {
      const answers = await Promise.all([...statements.map((s) => line.send(s.text, s.params)), line.send('commit')]);
      const end = answers.pop();
      if (end) committed(end);
      return answers.map((answer) => answer.rows);
    }, setup);
  return {
    kind: 'pglite',
    async query<T extends object = Row>(text: string, params: readonly unknown[] = []) {
      // Outside a transaction, PGlite's own calls; without parameters its one-step simple protocol gives the same rows
      // (the texts here are always the code's own constants).
      if (params.length === 0) return ((await pg.exec(text)).at(-1)?.rows ?? []) as T[];
      return (await pg.query<T>(text, [...params])).rows;
    },
    async exec(text: string) {
      await pg.exec(text);
    },
    transaction: (fn, setup) =>
      transaction(async (line) => {
        const result = await fn(line.sql);
        committed(await line.send('commit'));
        return result;
      }, setup),
    statement: async <T extends object = Row>(text: string, params: readonly unknown[] = [], setup?: Setup) =>
      (await batch([{ text, params }], setup))[0] as T[],
    batch,
    async close() {
      await pg.close();
      release();
    },
  };
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
