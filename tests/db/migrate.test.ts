import { describe, expect, it } from 'vitest';
import { migrate } from '@/server/db/migrate.server';
import { asService, asShopper } from '@/server/db/roles.server';
import { suiteDatabase, TEST_DATABASE_KIND } from './test-database';

const db = suiteDatabase();

describe(`migrations on ${TEST_DATABASE_KIND}`, () => {
  it('are recorded, and a second run applies nothing', async () => {
    const rows = await db.query<{ version: string }>('select version from supabase_migrations.schema_migrations');
    expect(rows.length).toBeGreaterThan(0);
    expect(await migrate(db)).toEqual([]);
  });

  it('enable row-level security on every table in public', async () => {
    const rows = await db.query<{ relname: string; relrowsecurity: boolean }>(
      `select c.relname, c.relrowsecurity from pg_class c join pg_namespace n on n.oid = c.relnamespace
       where n.nspname = 'public' and c.relkind = 'r' order by 1`,
    );
    expect(rows.length).toBeGreaterThanOrEqual(13);
    expect(rows.filter((r) => !r.relrowsecurity).map((r) => r.relname)).toEqual([]);
  });

  it('run queries as the shopper’s role with their claims', async () => {
    const sub = '00000000-0000-4000-8000-000000000001';
    const [row] = await asShopper(db, { sub, email: 'a@example.com', role: 'authenticated' }, (tx) =>
      tx.query<{ who: string; uid: string | null }>('select current_user as who, auth.uid()::text as uid'),
    );
    expect(row).toEqual({ who: 'authenticated', uid: sub });
    const [guest] = await asShopper(db, null, (tx) => tx.query<{ who: string }>('select current_user as who'));
    expect(guest?.who).toBe('anon');
    const [service] = await asService(db, (tx) => tx.query<{ who: string }>('select current_user as who'));
    expect(service?.who).toBe('service_role');
  });

  it('ends the role with the transaction', async () => {
    await asShopper(db, null, async () => undefined);
    const [row] = await db.query<{ who: string }>('select current_user as who');
    expect(row?.who).not.toBe('anon');
  });
});
