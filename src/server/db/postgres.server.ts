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
    transaction: <T>(fn: (tx: Sql) => Promise<T>, setup?: Setup) =>
      sql.begin((tx) => {
        if (!setup) return fn(wrap(tx));
        // Sent now (postgres.js queries are lazy until execute or then) but not awaited before fn starts: fn's first
        // statement follows right behind it on the same connection, and the server runs them in order. Should the
        // setup fail, Promise.all rejects with its error.
        const ready = tx.unsafe(setup.text, (setup.params ?? []) as postgres.ParameterOrJSON<never>[]).execute();
        return Promise.all([ready, fn(wrap(tx))]).then(([, result]) => result);
      }) as Promise<T>,
    close: () => sql.end({ timeout: 5 }),
  };
}
