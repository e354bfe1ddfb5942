import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Worker } from 'node:worker_threads';
import { logger } from '../log.server';
import { dbPoolWait } from '../metrics.server';
import { lockDataDir } from './data-dir-lock';
import type { Database, Row, Setup, Sql, Statement } from './database.server';
// Types only: the engine's code (and PGlite's) is loaded by the worker, not by the server's thread.
import type { Engine, EngineError, Outcome } from './pglite-engine';
import { CLOSED_MESSAGE, keepPrivate, makePrivateDir } from './private-dir';
import { shopKey } from './shop-key';

const log = logger('database');

/**
 * A transaction's statements on their way to the engine: what the code sends within one turn of the event loop (BEGIN
 * and the setup with the code's first statements, or the statements of a Promise.all) leaves as one batch, so a
 * transaction costs one call into the engine per round trip of its code, not two or three per statement. Statements
 * run in the order they were sent. Should a statement fail, the engine skips the rest of its batch: it is rejected
 * with its error, and so are the ones after it, which never ran.
 */
function pipeline(engine: Engine) {
  let queue: Queued[] = [];
  let closed = false;
  /** Sends what is queued; `whole` when it is a whole transaction, which the engine then rolls back should it fail. */
  const flush = (whole = false) => {
    if (queue.length === 0) return;
    const batch = queue;
    queue = [];
    engine
      .batch(
        // Text and values only: the rest stays here (what crosses to the worker must be plain data).
        batch.map(({ text, params }) => ({ text, params })),
        whole,
      )
      .then(
        ({ outcomes, error }) => {
          for (const [i, outcome] of outcomes.entries()) batch[i]?.done(outcome);
          if (outcomes.length === batch.length) return;
          const failure = engineError(error ?? { message: 'The database did not answer', fields: {} });
          for (const q of batch.slice(outcomes.length)) q.fail(failure);
        },
        (error: unknown) => {
          for (const q of batch) q.fail(error);
        },
      );
  };
  const send = (text: string, params: readonly unknown[] = []): Promise<Outcome> => {
    if (closed) return Promise.reject(new Error('Transaction is closed'));
    return new Promise<Outcome>((done, fail) => {
      if (queue.length === 0) queueMicrotask(() => flush());
      queue.push({ text, params, done, fail });
    });
  };
  const sql: Sql = {
    async query<T extends object = Row>(text: string, params: readonly unknown[] = []) {
      return (await send(text, params)).rows as T[];
    },
    // Several statements in one text (migrations), through the simple protocol, after what is queued.
    async exec(text: string) {
      if (closed) throw new Error('Transaction is closed');
      flush();
      const { error } = await engine.exec(text);
      if (error) throw engineError(error);
    },
  };
  return {
    send,
    sql,
    /** Sends what is queued now, rather than at the end of this turn of the event loop. */
    flush,
    close() {
      closed = true;
    },
  };
}

/** A statement waiting in a transaction's pipeline, and how to hand back what it answers. */
interface Queued {
  text: string;
  params: readonly unknown[];
  done(outcome: Outcome): void;
  fail(error: unknown): void;
}

/** The error an engine answered, thrown where the statement was sent: the same message, code and fields. */
function engineError(data: EngineError): Error {
  return Object.assign(new Error(data.message), data.fields);
}

/** Runs its callers one at a time, in the order they came. */
function oneAtATime() {
  let last: Promise<unknown> = Promise.resolve();
  return <T>(fn: () => T | Promise<T>): Promise<T> => {
    // The wait for the engine is this database's pool wait (shop_db_pool_wait_seconds).
    const asked = performance.now();
    const turn = last.then(() => {
      dbPoolWait.observe((performance.now() - asked) / 1000);
      return fn();
    });
    last = turn.catch(() => {});
    return turn;
  };
}

/** Throws as PGlite does when COMMIT found the transaction failed (an error that was caught and ignored). */
function committed(outcome: Outcome): void {
  if (outcome.command === 'ROLLBACK') throw new Error('The transaction was rolled back: one of its statements failed.');
}

/**
 * The embedded database on `engine`: one transaction at a time (PGlite has one session), and statements outside a
 * transaction between them. `close` closes the engine, then runs `release`.
 *
 * The engine runs its calls in the order they are made, so what must be alone on it is the sending, not the answers:
 * a transaction holds the lock from its first statement until its COMMIT (or ROLLBACK) is sent, and waits for that
 * answer after letting the next one send. Held until the answer came, every transaction would also hold the engine
 * idle for a trip between threads.
 */
export function fromEngine(engine: Engine, release: () => void): Database {
  const exclusive = oneAtATime();
  /**
   * Runs `work` in a transaction of its own, alone on the engine, so no other caller's statement lands inside it.
   * BEGIN and the setup leave with work's first statements; `end` is sent with what work sent last (a batch's
   * statements go out with their COMMIT). What work returns is the answer once the end has been answered.
   */
  async function transaction<T>(work: (line: ReturnType<typeof pipeline>) => Promise<T>, setup?: Setup): Promise<T> {
    let answered!: Promise<T>;
    await exclusive(async () => {
      const line = pipeline(engine);
      try {
        const begun = line.send('begin');
        const ready = setup ? line.send(setup.text, setup.params) : null;
        const [, , result] = await Promise.all([begun, ready, work(line)]);
        answered = line.send('commit').then((end) => {
          committed(end);
          return result;
        });
      } catch (error) {
        line.send('rollback').catch(() => {});
        answered = Promise.reject(error);
      } finally {
        line.flush();
        line.close();
      }
    });
    return answered;
  }
  /** Statements sent whole: they go out with BEGIN and COMMIT in one call, and should one fail, the rest are skipped. */
  async function batch(statements: readonly Statement[], setup?: Setup): Promise<Row[][]> {
    let answers!: Promise<Outcome[]>;
    await exclusive(() => {
      const line = pipeline(engine);
      answers = Promise.all([
        line.send('begin'),
        setup ? line.send(setup.text, setup.params) : null,
        ...statements.map((s) => line.send(s.text, s.params)),
        line.send('commit'),
      ]).then((all) => all.slice(2) as Outcome[]);
      line.flush(true);
      line.close();
    });
    const outcomes = await answers;
    const end = outcomes.pop();
    if (end) committed(end);
    return outcomes.map((outcome) => outcome.rows);
  }
  /** An engine call outside any transaction, sent in turn: its answer is awaited after the lock is let go. */
  async function alone<A>(call: () => Promise<A>): Promise<A> {
    let answer!: Promise<A>;
    await exclusive(() => {
      answer = call();
    });
    return answer;
  }
  /** One statement outside any transaction: its own. */
  async function query<T extends object = Row>(text: string, params: readonly unknown[] = []): Promise<T[]> {
    const answer = await alone(() => engine.query(text, params));
    if ('error' in answer) throw engineError(answer.error);
    return answer.rows as T[];
  }
  return {
    kind: 'pglite',
    query,
    async exec(text: string) {
      const { error } = await alone(() => engine.exec(text));
      if (error) throw engineError(error);
    },
    transaction: (fn, setup) => transaction((line) => fn(line.sql), setup),
    statement: async <T extends object = Row>(text: string, params: readonly unknown[] = [], setup?: Setup) =>
      setup ? ((await batch([{ text, params }], setup))[0] as T[]) : query<T>(text, params),
    batch,
    snapshot: () => alone(() => engine.snapshot()),
    async close() {
      await alone(() => engine.close());
      release();
    },
  };
}

/** An error saying the embedded database's thread has stopped: the database is unavailable (503), not the request. */
function engineStopped(reason: string): Error {
  return Object.assign(new Error(`The embedded database stopped: ${reason}`), { code: 'CONNECTION_CLOSED' });
}

/**
 * The engine in a worker thread of its own (pglite-worker.ts), opened on `dataDir` (in memory when null). Resolves once
 * PGlite is open, or rejects with why it could not open.
 */
function workerEngine(dataDir: string | null, copyOf?: Uint8Array): Promise<Engine> {
  const worker = new Worker(createRequire(import.meta.url).resolve('#pglite-worker'), { workerData: { dataDir, copyOf } });
  const pending = new Map<number, { done(answer: unknown): void; fail(error: Error): void }>();
  let next = 0;
  let stopped: Error | undefined;
  const stop = (error: Error) => {
    stopped ??= error;
    for (const call of pending.values()) call.fail(stopped);
    pending.clear();
  };
  const call = <T>(method: keyof Engine, ...args: unknown[]): Promise<T> => {
    if (stopped) return Promise.reject(stopped);
    const id = ++next;
    return new Promise<T>((done, fail) => {
      pending.set(id, { done: done as (answer: unknown) => void, fail });
      worker.postMessage({ id, method, args });
    });
  };
  const engine: Engine = {
    batch: (statements, whole) => call('batch', statements, whole),
    query: (text, params) => call('query', text, params),
    exec: (text) => call('exec', text),
    snapshot: () => call('snapshot'),
    async close() {
      await call('close');
      stop(engineStopped('it was closed'));
      await worker.terminate();
    },
  };
  return new Promise<Engine>((resolve, reject) => {
    worker.on('message', (message: { id?: number; answer?: unknown; failed?: EngineError; ready?: true }) => {
      if (message.ready) return resolve(engine);
      if (message.id === undefined) return reject(engineError(message.failed ?? { message: 'did not open', fields: {} }));
      const waiting = pending.get(message.id);
      pending.delete(message.id);
      if (message.failed) waiting?.fail(engineError(message.failed));
      else waiting?.done(message.answer);
    });
    worker.on('error', (error) => {
      reject(error);
      log.error({ err: error }, 'the embedded database stopped');
      stop(engineStopped(error.message));
    });
    worker.on('exit', (code) => {
      reject(engineStopped(`its thread exited with code ${code} before it opened`));
      stop(engineStopped(`its thread exited with code ${code}`));
    });
  });
}

/**
 * Makes a new database in `dataDir` in a process of its own (pglite-init.ts), so the peak of PGlite's initdb (near a
 * gigabyte) is over before this process opens the database. It runs on Liftoff, V8's baseline WebAssembly compiler, as
 * the server does (scripts/server-flags.mjs).
 */
async function makeDatabase(dataDir: string): Promise<void> {
  const init = createRequire(import.meta.url).resolve('#pglite-init');
  try {
    await promisify(execFile)(process.execPath, ['--liftoff-only', init, dataDir]);
  } catch (error) {
    const { stderr } = error as { stderr?: string };
    throw new Error(`The embedded database could not be made in ${dataDir}: ${stderr?.trim() || String(error)}`);
  }
}

/**
 * Opens the embedded database in `dataDir` (locked to this process), or in memory when dataDir is null: empty, or a
 * copy of `options.copyOf` (a `snapshot()`'s tar, which opens in a fraction of the time an empty database takes to be
 * made and migrated: the test suites open one per file). The engine runs in a worker thread, so its work does not hold
 * up the requests on the server's thread.
 *
 * The directory is the shop's alone (private-dir.ts): a new one is created 0700 before PGlite writes into it, and an
 * existing one that other local accounts could read or write is closed first, with a warning in the log; one holding
 * another user's files is refused. Once PGlite is open, what it wrote with its own modes (a new directory's files) is
 * closed too.
 */
export async function openPglite(dataDir: string | null, options: { copyOf?: Uint8Array } = {}): Promise<Database> {
  const release = dataDir ? lockDataDir(dataDir) : () => {};
  try {
    if (dataDir) {
      if (existsSync(dataDir)) {
        const { opened } = keepPrivate(dataDir);
        if (opened > 0) log.warn({ dir: dataDir, opened }, CLOSED_MESSAGE);
      } else {
        makePrivateDir(dataDir);
      }
      // The shop's key, made at its first start: its backups are sealed with it.
      shopKey(dataDir);
      if (!existsSync(join(dataDir, 'PG_VERSION'))) await makeDatabase(dataDir);
    }
    const engine = await workerEngine(dataDir, dataDir ? undefined : options.copyOf);
    if (dataDir) {
      try {
        keepPrivate(dataDir);
      } catch (error) {
        await engine.close().catch(() => {});
        throw error;
      }
    }
    process.once('exit', release);
    return Object.assign(fromEngine(engine, release), { dataDir });
  } catch (error) {
    release();
    throw error;
  }
}
