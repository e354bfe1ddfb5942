/**
 * On PostgreSQL the shop's data is copied with PostgreSQL's own tools, as docs/operating.md tells the owner: pg_dump of the
 * shop's database while it serves, pg_restore into a fresh database, and the shop started on that one finds every
 * order, payment, refund, account and review (and its shoppers' sessions). Runs when TEST_DATABASE_URL is set (CI);
 * the embedded database's backups are tested in backup-restore.test.ts. Needs pg_dump and pg_restore (postgresql-client,
 * which .ci/run installs when missing).
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { migrate } from '@/server/db/migrate.server';
import { openPostgres } from '@/server/db/postgres.server';
import { databaseUrl } from '../db/test-database';
import { ADMIN_EMAIL, apiRequest, call, expectJson, purchase, signedIn, startShop, stopShop } from './harness';

const url = process.env.TEST_DATABASE_URL;
const dir = mkdtempSync(join(tmpdir(), 'aurelia-pg-dump-'));
const cleanup: (() => Promise<void>)[] = [];

afterAll(async () => {
  await stopShop();
  for (const step of cleanup.reverse()) await step();
  rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(!url)('a pg_dump of the shop restored into a fresh database', () => {
  it('is served by a shop started on it, with everything the dump began after', async () => {
    const shop = await startShop({ ADDRESS_LIMIT_FACTOR: '1000' });
    const [admin, ann] = await Promise.all([signedIn(shop, ADMIN_EMAIL), signedIn(shop, 'ann@example.com')]);
    const { orderId } = await purchase(ann);
    await expectJson(call(apiRequest('POST', '/api/reviews', { productId: 3, rating: 5, comment: 'Lovely' }), { jar: ann }), 201);
    await expectJson(call(apiRequest('POST', `/api/admin/orders/${orderId}/refund`, { amountCents: 100 }), { jar: admin }), 200);
    const source = databaseUrl(shop.db);
    if (!source) throw new Error('the test shop is not on PostgreSQL');

    // Dumped while the shop goes on taking orders (pg_dump reads one consistent snapshot).
    const file = join(dir, 'shop.dump');
    const dumping = purchase(ann);
    execFileSync('pg_dump', ['--format=custom', `--file=${file}`, source], { stdio: 'pipe' });
    await dumping;

    const name = `${new URL(url ?? '').pathname.slice(1) || 'aurelia'}_restore_${randomBytes(4).toString('hex')}`;
    const admin2 = openPostgres(url ?? '', { max: 1 });
    await admin2.exec(`create database ${name}`);
    cleanup.push(async () => {
      await admin2.exec(`drop database if exists ${name} with (force)`);
      await admin2.close();
    });
    const target = new URL(url ?? '');
    target.pathname = `/${name}`;
    execFileSync('pg_restore', ['--no-owner', '--exit-on-error', `--dbname=${target.href}`, file], { stdio: 'pipe' });

    await stopShop();
    const restored = await startShop(
      { ADDRESS_LIMIT_FACTOR: '1000' },
      () => ({}),
      async () => {
        const db = openPostgres(target.href, { max: 4 });
        // As the server does on start: nothing left to apply.
        expect(await migrate(db)).toEqual([]);
        return db;
      },
    );
    const { orders } = await expectJson<{ orders: { id: string; refundedCents?: number }[] }>(
      call(apiRequest('GET', '/api/orders'), { jar: ann }),
      200,
    );
    expect(orders.map((o) => o.id)).toContain(orderId);
    const [counts] = await restored.db.query<{ refunds: number; reviews: number; payments: number }>(
      `select (select count(*)::int from public.order_refunds) as refunds,
              (select count(*)::int from public.product_reviews) as reviews,
              (select count(*)::int from public.test_payment_intents) as payments`,
    );
    expect(counts).toMatchObject({ refunds: 1, reviews: 1 });
    expect(counts?.payments).toBeGreaterThanOrEqual(1);
    await purchase(ann);
  }, 120_000);
});
