/**
 * A backup of the embedded database taken while shoppers are placing orders, restored into a fresh data directory:
 * the shop starts on it and everything committed before the backup began is there (orders and their items, payments,
 * refunds, accounts with their sessions, reviews), and every order in it is whole. The shop runs on a PGlite in a
 * directory of its own, whatever engine the other suites use: backups of PostgreSQL are pg_dump's (postgres-dump.test.ts).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { syncCatalogue } from '@/features/catalogue/catalogue-sync.server';
import { takeBackup } from '@/server/db/backup.server';
import { migrationsIn, restoreBackup } from '@/server/db/backup-files';
import type { Database } from '@/server/db/database.server';
import { migrate } from '@/server/db/migrate.server';
import { openPglite } from '@/server/db/pglite.server';
import { loadCatalogue } from '../unit/load-catalogue';
import {
  ADMIN_EMAIL,
  apiRequest,
  type Browser,
  call,
  expectJson,
  purchase,
  signedIn,
  startShop,
  stopShop,
  type TestShop,
} from './harness';

const root = mkdtempSync(join(tmpdir(), 'aurelia-backup-'));

/** Opens (and migrates) the embedded database in `dir`, as the server does on start. */
async function shopDatabase(dir: string): Promise<Database> {
  const db = await openPglite(dir);
  await migrate(db);
  await syncCatalogue(
    db,
    loadCatalogue().map(({ product }) => product),
  );
  return db;
}

/** What a backup must keep: every row of these tables, whole. */
const KEPT = {
  orders: 'public.orders',
  items: 'public.order_items',
  payments: 'public.test_payment_intents',
  refunds: 'public.order_refunds',
  accounts: 'auth.users',
  sessions: 'public.auth_sessions',
  reviews: 'public.product_reviews',
} as const;

/** Every row of every kept table, as text. */
async function rows(db: Database): Promise<Record<keyof typeof KEPT, string[]>> {
  const entries = await Promise.all(
    Object.entries(KEPT).map(async ([name, table]) => {
      const found = await db.query<{ row: string }>(`select r::text as row from ${table} r`);
      return [name, found.map((r) => r.row)] as const;
    }),
  );
  return Object.fromEntries(entries) as Record<keyof typeof KEPT, string[]>;
}

let shop: TestShop;
let shoppers: Browser[];
let admin: Browser;

beforeAll(async () => {
  shop = await startShop(
    { ADDRESS_LIMIT_FACTOR: '1000' },
    () => ({}),
    () => shopDatabase(join(root, 'pglite')),
  );
  [admin, ...shoppers] = await Promise.all([
    signedIn(shop, ADMIN_EMAIL),
    ...['ann', 'ben', 'cleo'].map((name) => signedIn(shop, `${name}@example.com`)),
  ]);
}, 60_000);

afterAll(async () => {
  await stopShop();
  rmSync(root, { recursive: true, force: true });
});

describe('a backup of the embedded database taken under load', () => {
  it('restores into a fresh directory, and the shop started on it has everything committed before it began', async () => {
    // Before the backup: orders, a review from each shopper, a partial refund.
    const before: string[] = [];
    for (const jar of shoppers) {
      before.push((await purchase(jar)).orderId, (await purchase(jar)).orderId);
      await expectJson(call(apiRequest('POST', '/api/reviews', { productId: 3, rating: 5, comment: 'Lovely' }), { jar }), 201);
    }
    await expectJson(
      call(apiRequest('POST', `/api/admin/orders/${before[0]}/refund`, { amountCents: 100 }), { jar: admin }),
      200,
    );
    const committed = await rows(shop.db);
    expect(committed.refunds).toHaveLength(1);

    // The backup begins while more orders are being placed, and they go on after it.
    const during = shoppers.flatMap((jar) => [purchase(jar), purchase(jar)]);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const backup = await takeBackup(shop.db, join(root, 'backups'), 'manual');
    const placedDuring = await Promise.all(during);
    expect(placedDuring).toHaveLength(6);

    const restoredDir = join(root, 'restored');
    const { keptAside } = await restoreBackup(backup.path, restoredDir, { knownMigrations: migrationsIn('supabase/migrations') });
    expect(keptAside).toBeNull();

    // The shop starts on the restored directory.
    await stopShop();
    shop = await startShop(
      { ADDRESS_LIMIT_FACTOR: '1000' },
      () => ({}),
      () => shopDatabase(restoredDir),
    );
    const restored = await rows(shop.db);
    for (const [name, kept] of Object.entries(committed) as [keyof typeof KEPT, string[]][]) {
      expect(restored[name], `${name} kept whole`).toEqual(expect.arrayContaining(kept));
    }
    // Orders placed while it ran are in it whole or not at all.
    const [orphans] = await shop.db.query<{ orders: number }>(
      `select count(*)::int as orders from public.orders o where not exists (select 1 from public.order_items i where i.order_id = o.id)`,
    );
    expect(orphans?.orders).toBe(0);
    // The shoppers' sessions came back with it: each sees their orders through the API.
    for (const [i, jar] of shoppers.entries()) {
      const { orders } = await expectJson<{ orders: { id: string }[] }>(call(apiRequest('GET', '/api/orders'), { jar }), 200);
      expect(orders.map((o) => o.id)).toEqual(expect.arrayContaining(before.slice(2 * i, 2 * i + 2)));
    }
    // And it takes new orders.
    await purchase(shoppers[0] as Browser);
  }, 120_000);
});
