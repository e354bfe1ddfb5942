import { closeSync, mkdirSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { PGlite, type Transaction } from '@electric-sql/pglite';
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

function wrap(pg: PGlite | Transaction): Sql {
  return {
    async query<T extends object = Row>(text: string, params: readonly unknown[] = []) {
      // PGlite runs a query with parameters as five protocol steps (parse, describe, bind, describe, execute), each a
      // call into the WASM engine on this very thread; without parameters the one-step simple protocol gives the same
      // rows, and the texts here are always the code's own constants.
      if (params.length === 0) return ((await pg.exec(text)).at(-1)?.rows ?? []) as T[];
      return (await pg.query<T>(text, [...params])).rows;
    },
    async exec(text: string) {
      await pg.exec(text);
    },
  };
}

/** Wraps an open PGlite instance (tests pass a clone) as a Database. */
export function fromPglite(pg: PGlite, release: () => void = () => {}): Database {
  return {
    kind: 'pglite',
    ...wrap(pg),
    transaction: (fn, setup?: Setup) =>
      pg.transaction(async (tx) => {
        const sql = wrap(tx);
        if (setup) await sql.query(setup.text, setup.params);
        return fn(sql);
      }),
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
