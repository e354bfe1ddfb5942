import postgres from 'postgres';
import type { Database, Row, Setup, Sql } from './database.server';

type Client = postgres.Sql | postgres.TransactionSql;

function wrap(sql: Client): Sql {
  return {
    async query<T extends object = Row>(text: string, params: readonly unknown[] = []) {
      return (await sql.unsafe(text, params as postgres.ParameterOrJSON<never>[])) as unknown as T[];
    },
    async exec(text: string) {
      await sql.unsafe(text).simple();
    },
  };
}

/** Connects to PostgreSQL (production, or the CI server in tests). */
export function openPostgres(url: string, options: { max?: number } = {}): Database {
  const sql = postgres(url, { max: options.max ?? 10, onnotice: () => {}, connection: { application_name: 'aurelia-shop' } });
  return {
    kind: 'postgres',
    ...wrap(sql),
    // A transaction costs two round trips, not three as with sql.begin (which waits for BEGIN before running fn): on a
    // connection of its own, BEGIN, the setup and fn's first statements leave together (postgres.js pipelines what
    // is sent without waiting), then COMMIT once fn is done. Should anything fail, the rest of the pipeline fails
    // with it ("current transaction is aborted"), the first error is thrown, and the transaction is rolled back.
    async transaction<T>(fn: (tx: Sql) => Promise<T>, setup?: Setup): Promise<T> {
      const connection = await sql.reserve();
      try {
        const begun = connection.unsafe('begin').execute();
        const ready = setup
          ? connection.unsafe(setup.text, (setup.params ?? []) as postgres.ParameterOrJSON<never>[]).execute()
          : null;
        // fn runs now, up to its first await, so its first statements join the pipeline; a throw becomes a rejection.
        const work = (async () => fn(wrap(connection)))();
        const [, , result] = await Promise.all([begun, ready, work]);
        await connection.unsafe('commit');
        return result;
      } catch (error) {
        await connection.unsafe('rollback').catch(() => {});
        throw error;
      } finally {
        connection.release();
      }
    },
    async statement<T extends object = Row>(text: string, params: readonly unknown[] = [], setup?: Setup): Promise<T[]> {
      const connection = await sql.reserve();
      try {
        const run = (t: string, p: readonly unknown[] = []) =>
          connection.unsafe(t, p as postgres.ParameterOrJSON<never>[]).execute();
        // postgres.js sends each without waiting for the one before; after a failed statement the server still runs
        // COMMIT, which then rolls back.
        const [begun, ready, result, committed] = await Promise.allSettled([
          run('begin'),
          setup ? run(setup.text, setup.params) : null,
          run(text, params),
          run('commit'),
        ]);
        for (const outcome of [begun, ready, result, committed]) if (outcome?.status === 'rejected') throw outcome.reason;
        return (result as PromiseFulfilledResult<unknown>).value as T[];
      } finally {
        connection.release();
      }
    },
    close: () => sql.end({ timeout: 5 }),
  };
}
