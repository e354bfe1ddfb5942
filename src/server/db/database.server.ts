/** A row as the driver returns it. */
export type Row = Record<string, unknown>;

/** Parameterised SQL: values travel as $1, $2, … parameters, never spliced into the text. */
export interface Sql {
  query<T extends object = Row>(text: string, params?: readonly unknown[]): Promise<T[]>;
  /** Several statements without parameters: migrations only. */
  exec(text: string): Promise<void>;
}

/** The one query interface the app uses, whether PGlite (embedded default) or PostgreSQL answers. */
export interface Database extends Sql {
  readonly kind: 'pglite' | 'postgres';
  transaction<T>(fn: (tx: Sql) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}
