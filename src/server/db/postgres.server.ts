import postgres from 'postgres';
import type { Database, Row, Sql } from './database.server';

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
    transaction: (fn) => sql.begin((tx) => fn(wrap(tx))) as Promise<never>,
    close: () => sql.end({ timeout: 5 }),
  };
}
