/**
 * Exchanges on a real database (PGlite, or PostgreSQL with TEST_DATABASE_URL, where clicks really overlap, on two
 * servers): a shopper asks for another colour or size of the same product; once the items are received the owner
 * sends a $0 replacement order through the checkout's own path, holding and selling its stock like any checkout, once
 * however many clicks; when the replacement's items are gone, nothing is sent and the return can still be refunded.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminReturnAction } from '@/features/admin/returns/return-routes.server';
import { reconcilePayments } from '@/features/checkout/payment-events.server';
import { postReturn } from '@/features/returns/return-routes.server';
import type { Database } from '@/server/db/database.server';
import { openPostgres } from '@/server/db/postgres.server';
import { read, returnFixtures, SCRUBS, SOAP } from './return-fixtures';
import { databaseUrl, suiteDatabase, TEST_DATABASE_KIND } from './test-database';

const db = suiteDatabase();
const { returnDeps, adminDeps, signedIn, admin, buy, ship, post, payments } = returnFixtures(db);

const act = async (action: 'approve' | 'receive' | 'refund' | 'exchange', id: string, body: unknown = {}, on?: Database) =>
  read(
    adminReturnAction(
      adminDeps(on ? { db: on, payments: payments() } : {}),
      action,
      post(body, `/api/admin/returns/${id}/${action}`),
      (await admin()).jar(),
      id,
    ),
  );

const setStock = (color: string, size: string, onHand: number) =>
  db.query(
    `insert into public.stock_levels (product_id, color, size, on_hand) values (3, $1, $2, $3)
     on conflict (product_id, color, size) do update set on_hand = excluded.on_hand`,
    [color, size, onHand],
  );
const onHand = async (color: string, size: string) =>
  (
    await db.query<{ n: number }>(
      'select on_hand as n from public.stock_levels where product_id = 3 and color = $1 and size = $2',
      [color, size],
    )
  )[0]?.n;

/** Scrubs (blue, M) and a soap bought and delivered; the shopper's request for `body`'s items. */
async function bought() {
  const shopper = await signedIn();
  const order = await buy(shopper.id, [SCRUBS, SOAP]);
  await ship(order.id);
  const [scrubs, soap] = order.items;
  const ask = (body: Record<string, unknown>) =>
    read(postReturn(returnDeps(), post({ orderId: order.id, key: crypto.randomUUID(), reason: 'fit', ...body }), shopper.jar()));
  return { shopper, order, scrubs, soap, ask };
}

/** An exchange of the scrubs for grey, L, asked, approved and received (resellable). */
async function receivedExchange() {
  const b = await bought();
  const asked = await b.ask({
    kind: 'exchange',
    items: [{ itemId: b.scrubs?.id, quantity: 1, exchangeFor: { color: 'grey', size: 'L' } }],
  });
  if (asked.status !== 201) throw new Error(JSON.stringify(asked.body));
  const id = asked.body.return.id as string;
  await act('approve', id);
  await act('receive', id, { items: [{ itemId: b.scrubs?.id, condition: 'resellable' }] });
  return { ...b, id };
}

const replacementOf = (returnId: string) =>
  db.query<{ id: string; total_cents: number; user_id: string | null; status: string; items: unknown; address: unknown }>(
    `select o.id, o.total_cents, o.user_id, o.status, o.shipping_address as address,
            (select json_agg(json_build_object('product', i.product_id, 'color', i.selected_color, 'size', i.selected_size,
                    'quantity', i.quantity, 'price', i.price_cents)) from public.order_items i where i.order_id = o.id) as items
       from public.orders o where o.payment_intent_id = 'replacement_' || $1`,
    [returnId],
  );

describe(`asking for an exchange on ${TEST_DATABASE_KIND}`, () => {
  it('is another colour or size the product comes in, for lines that come in others; refused in words otherwise', async () => {
    const b = await bought();
    const swap = (exchangeFor: unknown, itemId = b.scrubs?.id) =>
      b.ask({ kind: 'exchange', items: [{ itemId, quantity: 1, exchangeFor }] });
    expect(await swap({ color: 'red', size: 'L' })).toMatchObject({
      status: 400,
      body: { error: { message: 'Choose a colour and size Clinical Scrubs comes in.' } },
    });
    expect(await swap({ color: 'blue', size: 'M' })).toMatchObject({
      status: 400,
      body: { error: { message: 'Choose another colour or size of Clinical Scrubs than yours.' } },
    });
    expect(await swap({ color: '', size: '' }, b.soap?.id)).toMatchObject({
      status: 400,
      body: { error: { message: expect.stringMatching(/^Kojic Acid Soap cannot be exchanged/) } },
    });
    expect(await b.ask({ kind: 'exchange', items: [{ itemId: b.scrubs?.id, quantity: 1 }] })).toMatchObject({
      status: 400,
      body: { error: { message: 'Choose what to exchange Clinical Scrubs for.' } },
    });
    expect(await swap({ color: 'grey', size: 'L' })).toMatchObject({ status: 201 });
    const [row] = await db.query<{ kind: string; items: unknown }>(
      'select kind, items from public.order_returns where order_id = $1',
      [b.order.id],
    );
    expect(row).toEqual({
      kind: 'exchange',
      items: [
        { itemId: b.scrubs?.id, quantity: 1, condition: null, receivedAt: null, exchangeFor: { color: 'grey', size: 'L' } },
      ],
    });
  }, 60_000);
});

describe(`one replacement under concurrent clicks on ${TEST_DATABASE_KIND}`, () => {
  let servers: Database[] = [];
  beforeAll(() => {
    const url = databaseUrl(db);
    servers = url ? [openPostgres(url, { max: 5 }), openPostgres(url, { max: 5 })] : [];
  });
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.close()));
  });

  it('10 clicks at once send one order, take its stock once, record one action and queue one e-mail', async () => {
    await setStock('grey', 'L', 5);
    await setStock('blue', 'M', 5);
    const x = await receivedExchange();
    // The blue M came back resellable: 5 - 1 sold + 1 back.
    expect(await onHand('blue', 'M')).toBe(5);
    const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => act('exchange', x.id, {}, servers[i % 2])));
    expect(answers.map((a) => a.status)).toEqual(Array(10).fill(200));
    expect(answers.filter((a) => a.body.changed)).toHaveLength(1);
    const orders = await replacementOf(x.id);
    expect(orders).toHaveLength(1);
    expect(orders[0]).toMatchObject({
      total_cents: 0,
      user_id: x.shopper.id,
      status: 'processing',
      items: [{ product: 3, color: 'grey', size: 'L', quantity: 1, price: 0 }],
      address: expect.objectContaining({ street1: '12 Bull St', zip: '31401' }),
    });
    expect(await onHand('grey', 'L')).toBe(4);
    const [checkouts] = await db.query<{ n: number; held: number }>(
      `select count(*)::int as n,
              (select count(*)::int from public.stock_holds h join public.checkouts c on c.id = h.checkout_id
                where c.content_hash = 'replacement:' || $1) as held
         from public.checkouts where content_hash = 'replacement:' || $1`,
      [x.id],
    );
    expect(checkouts).toEqual({ n: 1, held: 0 });
    const replacement = orders[0]?.id ?? '';
    const jobs = await db.query<{ dedupe_key: string }>(
      `select dedupe_key from public.outbox where dedupe_key like '%' || $1 || '%' or dedupe_key like '%' || $2 || '%' order by id`,
      [x.id, replacement],
    );
    expect(jobs.map((j) => j.dedupe_key)).toEqual(
      expect.arrayContaining([
        `mail:return:${x.id}:exchanged`,
        `label:${replacement}`,
        `mail:customer:${replacement}`,
        `mail:shop:${replacement}`,
      ]),
    );
    expect(jobs.filter((j) => j.dedupe_key === `mail:return:${x.id}:exchanged`)).toHaveLength(1);
    const actions = await db.query<{ action: string; after: { replacement?: string } }>(
      `select action, after from public.admin_actions where action = 'return.exchange' and target like '%(order ' || $1 || ')'`,
      [x.order.id],
    );
    expect(actions).toHaveLength(1);
    expect(actions[0]?.after.replacement).toMatch(/^ORD-[0-9A-F]{6}$/);
    const [ret] = await db.query<{ status: string; replacement_order_id: string }>(
      'select status, replacement_order_id from public.order_returns where id = $1',
      [x.id],
    );
    expect(ret).toEqual({ status: 'exchanged', replacement_order_id: replacement });
    // Nothing more happens to it: no refund on top of the replacement.
    expect(await act('refund', x.id)).toMatchObject({ status: 409 });
  }, 60_000);

  it('when the new size is gone, nothing is sent, nothing stays held, and the return can be refunded instead', async () => {
    await setStock('grey', 'L', 0);
    const x = await receivedExchange();
    const refused = await act('exchange', x.id);
    expect(refused).toMatchObject({
      status: 409,
      body: {
        error: { code: 'replacement_refused', message: expect.stringContaining('Clinical Scrubs (Grey, L) is out of stock') },
      },
    });
    expect(await replacementOf(x.id)).toEqual([]);
    const [left] = await db.query<{ n: number }>(
      `select count(*)::int as n from public.checkouts where content_hash = 'replacement:' || $1`,
      [x.id],
    );
    expect(left?.n).toBe(0);
    expect(await act('refund', x.id)).toMatchObject({ status: 200, body: { changed: true, status: 'refunded' } });
  }, 60_000);

  it('a plain return is not exchanged, and a replacement waiting for its order is no payment to reconcile', async () => {
    const b = await bought();
    const asked = await b.ask({ items: [{ itemId: b.soap?.id, quantity: 1 }] });
    await act('approve', asked.body.return.id);
    await act('receive', asked.body.return.id, { items: [{ itemId: b.soap?.id, condition: 'damaged' }] });
    expect(await act('exchange', asked.body.return.id)).toMatchObject({
      status: 409,
      body: { error: { code: 'not_an_exchange' } },
    });
    await db.query(
      `insert into public.checkouts (lines, address, rate, parcel_weight_lb, subtotal_cents, shipping_cents, tax_cents,
         total_cents, content_hash, payment_intent_id, updated_at)
       values ('[]', '{}', '{}', 1, 0, 0, 0, 0, 'replacement:stray', 'replacement_stray', now() - interval '30 minutes')`,
    );
    let asked2 = 0;
    const processor = payments();
    processor.retrieveIntent = async (id) => {
      asked2++;
      throw new Error(`asked about ${id}`);
    };
    await reconcilePayments(db, processor);
    expect(asked2).toBe(0);
  }, 60_000);
});
