import type { Database } from './database.server';

// The SQL files are bundled at build time, so the built server needs no files beside it.
const bootstrapFiles = import.meta.glob<string>('/supabase/bootstrap/*.sql', { query: '?raw', import: 'default', eager: true });
const migrationFiles = import.meta.glob<string>('/supabase/migrations/*.sql', { query: '?raw', import: 'default', eager: true });

function sorted(files: Record<string, string>): { name: string; sql: string }[] {
  return Object.entries(files)
    .map(([path, sql]) => ({ name: path.split('/').pop() ?? path, sql }))
    .sort((a, b) => a.name.localeCompare(b.name));
}

/**
 * Brings the schema up to date: on plain PostgreSQL and PGlite, first creates what Supabase provides (roles, auth
 * schema) unless it is there already; then applies every migration not yet recorded. All of it runs in one
 * transaction under an advisory lock: two starting processes do not race, and a failing migration leaves the schema
 * (and the record of applied migrations) as it was, so the next start tries again from the same place. Returns the
 * names of the migrations applied.
 */
export async function migrate(db: Database): Promise<string[]> {
  return db.transaction(async (tx) => {
    await tx.query('select pg_advisory_xact_lock(727431)');
    const [probe] = await tx.query<{ has_auth: boolean }>(`select to_regprocedure('auth.uid()') is not null as has_auth`);
    if (!probe?.has_auth) for (const file of sorted(bootstrapFiles)) await tx.exec(file.sql);

    await tx.exec(`
      create schema if not exists supabase_migrations;
      create table if not exists supabase_migrations.schema_migrations (version text primary key, name text);
    `);
    const done = new Set(
      (await tx.query<{ version: string }>('select version from supabase_migrations.schema_migrations')).map((r) => r.version),
    );
    const applied: string[] = [];
    for (const file of sorted(migrationFiles)) {
      const [version = file.name, ...rest] = file.name.replace(/\.sql$/, '').split('_');
      if (done.has(version)) continue;
      await tx.exec(file.sql);
      await tx.query('insert into supabase_migrations.schema_migrations (version, name) values ($1, $2)', [
        version,
        rest.join('_'),
      ]);
      applied.push(file.name);
    }
    return applied;
  });
}

/**
 * The migrations this build ships that the database has not recorded as applied (readiness: a server whose schema is
 * behind its code answers wrongly). Empty when the schema is current.
 */
export async function pendingMigrations(db: Database): Promise<string[]> {
  const rows = await db.query<{ version: string }>('select version from supabase_migrations.schema_migrations');
  const done = new Set(rows.map((r) => r.version));
  return sorted(migrationFiles)
    .map((file) => file.name)
    .filter((name) => !done.has(name.replace(/\.sql$/, '').split('_')[0] ?? name));
}
