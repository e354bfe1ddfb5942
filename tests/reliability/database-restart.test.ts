/**
 * PostgreSQL going away under load (a restart, a failover): the shop answers clear JSON 503s while it is gone, recovers
 * by itself once it is back, and records no partial order. The database is reached through a TCP proxy that this test
 * cuts (every connection dropped, new ones refused) and restores, so the shared PostgreSQL server itself is never
 * restarted. Runs when TEST_DATABASE_URL is set (CI); PGlite lives in the server's own process and cannot go away alone.
 */
import { randomBytes } from 'node:crypto';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { syncCatalogue } from '@/features/catalogue/catalogue-sync.server';
import type { Database } from '@/server/db/database.server';
import { migrate } from '@/server/db/migrate.server';
import { openPostgres } from '@/server/db/postgres.server';
import { loadCatalogue } from '../unit/load-catalogue';
import { ADDRESS, apiRequest, browser, call, SOAP, startShop, stopShop, type TestShop } from './harness';

const url = process.env.TEST_DATABASE_URL;

/**
 * A TCP proxy to `target` that can be cut and restored, as PostgreSQL restarting looks to a client: every connection
 * dropped, then nobody listening on the port (connections refused) until it is back.
 */
async function cuttableProxy(target: URL) {
  const open = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(target.port || 5432), target.hostname);
    for (const socket of [client, upstream]) {
      open.add(socket);
      socket.on('close', () => open.delete(socket));
      socket.on('error', () => {});
    }
    client.pipe(upstream).pipe(client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  const dropAll = () => {
    for (const socket of open) socket.destroy();
  };
  return {
    port,
    cut() {
      server.close();
      dropAll();
    },
    restore() {
      server.listen(port, '127.0.0.1');
    },
    stop: () => {
      dropAll();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describe.skipIf(!url)('PostgreSQL going away under load', () => {
  let shop: TestShop;
  let proxy: Awaited<ReturnType<typeof cuttableProxy>>;
  let admin: Database;
  const name = `aurelia_restart_${randomBytes(6).toString('hex')}`;

  beforeAll(async () => {
    const server = new URL(url ?? '');
    admin = openPostgres(server.href, { max: 1 });
    await admin.exec(`create database ${name}`);
    proxy = await cuttableProxy(server);
    const through = new URL(server.href);
    through.hostname = '127.0.0.1';
    through.port = String(proxy.port);
    through.pathname = `/${name}`;
    shop = await startShop(
      { ADDRESS_LIMIT_FACTOR: '1000' },
      () => ({}),
      async () => {
        const db = openPostgres(through.href, { max: 4 });
        await migrate(db);
        await syncCatalogue(
          db,
          loadCatalogue().map(({ product }) => product),
        );
        return db;
      },
    );
  }, 120_000);
  afterAll(async () => {
    await stopShop();
    await proxy?.stop();
    await admin?.exec(`drop database if exists ${name} with (force)`);
    await admin?.close();
  });

  it('answers JSON 503s while the database is gone, recovers once it is back, and records no partial order', async () => {
    const answers: { at: number; path: string; status: number; body: string; retryAfter: string | null }[] = [];
    const started = Date.now();
    const send = async (method: string, path: string, body?: unknown) => {
      const at = Date.now() - started;
      // A request that has not been answered in 8 s counts as hung (status 0): a shop must not wait forever.
      const res = await Promise.race([
        call(apiRequest(method, path, body), { jar: browser() }),
        new Promise<null>((resolve) => setTimeout(() => resolve(null), 8_000)),
      ]);
      const text = res ? await res.text() : 'no answer within 8 s';
      answers.push({ at, path, status: res?.status ?? 0, body: text, retryAfter: res?.headers.get('retry-after') ?? null });
      return res?.ok ? (JSON.parse(text) as Record<string, unknown>) : null;
    };
    const paidIntents: string[] = [];
    const shopperLoop = async (n: number) => {
      while (Date.now() - started < 9_000) {
        await send('GET', '/api/reviews?productId=3');
        const quoted = (await send('POST', '/api/shippo-rates', { toAddress: ADDRESS, lines: [SOAP] })) as {
          rates?: { object_id: string }[];
        } | null;
        const rateId = quoted?.rates?.[0]?.object_id;
        if (!rateId) continue;
        const intent = (await send('POST', '/api/create-payment-intent', { lines: [SOAP], address: ADDRESS, rateId })) as {
          client_secret: string;
          paymentIntentId: string;
        } | null;
        if (!intent) continue;
        const card = { clientSecret: intent.client_secret, number: '4242424242424242', expMonth: 12, expYear: 40, cvc: '123' };
        if (!(await send('POST', '/api/test-payments/confirm', card))) continue;
        paidIntents.push(intent.paymentIntentId);
        await send('POST', '/api/orders/confirm', { paymentIntentId: intent.paymentIntentId });
        void n;
      }
    };
    const cut = setTimeout(() => proxy.cut(), 2_000);
    const restore = setTimeout(() => proxy.restore(), 5_000);
    await Promise.all(Array.from({ length: 6 }, (_, n) => shopperLoop(n)));
    clearTimeout(cut);
    clearTimeout(restore);

    const during = answers.filter((a) => a.at >= 2_100 && a.at < 5_000);
    const after = answers.filter((a) => a.at >= 7_000);
    const errors = answers.filter((a) => a.status >= 500 || a.status === 0);
    // While it was gone: 503s, each clear JSON with a Retry-After; never another 5xx.
    expect(during.filter((a) => a.status === 503).length).toBeGreaterThan(0);
    for (const a of errors) {
      expect(a.status, `${a.path}: ${a.body.slice(0, 300)}`).toBe(503);
      expect(JSON.parse(a.body), a.path).toEqual({ error: { code: 'unavailable', message: expect.any(String) } });
      expect(a.retryAfter, a.path).toMatch(/^\d+$/);
    }
    // Back: answers come again without a restart of the shop.
    expect(after.length).toBeGreaterThan(0);
    expect(after.filter((a) => a.status >= 400)).toEqual([]);

    // Every paid payment, confirmed again now, has exactly one whole order: items, and its label and e-mail jobs.
    for (const id of paidIntents) {
      const res = await call(apiRequest('POST', '/api/orders/confirm', { paymentIntentId: id }));
      expect([200, 201], id).toContain(res.status);
    }
    const [{ orders, intents } = { orders: -1, intents: -2 }] = await shop.db.query<{ orders: number; intents: number }>(
      `select (select count(*)::int from public.orders) as orders,
              (select count(*)::int from public.test_payment_intents where status = 'succeeded') as intents`,
    );
    expect(orders).toBe(intents);
    expect(orders).toBeGreaterThan(0);
    const partial = await shop.db.query(
      `select o.id from public.orders o
        where not exists (select 1 from public.order_items i where i.order_id = o.id)
           or (select count(*) from public.outbox j where j.payload ->> 'orderId' = o.id::text) <> 3`,
    );
    expect(partial).toEqual([]);
  }, 60_000);
});
