/**
 * The sales overview's day totals (app_private.sales_days, sales_day_items, sales_customers), kept by triggers as
 * orders, items, refunds and cancellations are written: after every kind of write they equal the same figures added up
 * from the orders themselves, a rebuild from scratch gives the same rows, and the overview answers the same numbers
 * from them as from the orders. On PGlite, and on PostgreSQL with TEST_DATABASE_URL (where orders also commit side by
 * side).
 */
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { keepSalesTotalsIn } from '@/features/admin/sales/rollup.server';
import { SALES_PERIODS, salesPeriod } from '@/features/admin/sales/sales';
import { type SalesOverview, salesOverview } from '@/features/admin/sales/sales.server';
import type { Sql } from '@/server/db/database.server';
import { asService, asShopper } from '@/server/db/roles.server';
import { suiteDatabase, TEST_DATABASE_KIND } from './test-database';

const db = suiteDatabase();
const NY = 'America/New_York';
/** Tuesday 10 March 2026, 9 am in New York (summer time began on the 8th). */
const NOW = new Date('2026-03-10T13:00:00Z');

interface Item {
  productId: number;
  name: string;
  quantity: number;
  priceCents: number;
  color?: string;
  size?: string;
}
const scrubs = (quantity: number, color: string, size: string, name = 'Clinical Scrubs'): Item => ({
  productId: 3,
  name,
  quantity,
  priceCents: 4500,
  color,
  size,
});
const soap = (quantity: number): Item => ({ productId: 7, name: 'Kojic Acid Soap', quantity, priceCents: 1200 });

async function insertOrder(
  tx: Sql,
  at: string,
  email: string,
  items: Item[],
  { shipping = 500, tax = 100, status = 'processing', discount = 0, waived = 0 } = {},
): Promise<string> {
  const subtotal = items.reduce((n, i) => n + i.quantity * i.priceCents, 0);
  // A discount or waived shipping is a code's (named TEST10): the order's checks want a code for either.
  const code = discount > 0 || waived > 0 ? 'TEST10' : null;
  const [order] = await tx.query<{ id: string }>(
    `insert into public.orders (customer_email, customer_name, subtotal_cents, shipping_cents, tax_cents, total_cents,
       payment_intent_id, shipping_address, shipping_method, status, created_at, discount_code, discount_cents,
       shipping_discount_cents)
     values ($1, 'Ann Lee', $2, $3, $4, $5, $6, '{}'::jsonb, '{}'::jsonb, $7, $8::text::timestamptz, $9, $10, $11)
     returning id::text`,
    [
      email,
      subtotal,
      shipping,
      tax,
      subtotal - discount + shipping + tax,
      `pi_${randomUUID()}`,
      status,
      at,
      code,
      discount,
      waived,
    ],
  );
  if (!order) throw new Error('no order');
  for (const i of items)
    await tx.query(
      `insert into public.order_items (order_id, product_id, product_name, product_category, price_cents, quantity,
         selected_color, selected_size, product_sku, image)
       values ($1, $2, $3, 'Test', $4, $5, $6, $7, 'AUR-TEST', '/x.svg')`,
      [order.id, i.productId, i.name, i.priceCents, i.quantity, i.color ?? null, i.size ?? null],
    );
  return order.id;
}

/** Writes an order as the checkout records one: the order and its items in one transaction. */
const place = (at: string, email: string, items: Item[], options: Parameters<typeof insertOrder>[4] = {}) =>
  asService(db, (tx) => insertOrder(tx, at, email, items, options));

async function refund(orderId: string, cents: number, status: 'pending' | 'succeeded' | 'failed' | 'canceled') {
  const id = `re_${randomUUID()}`;
  await asService(db, (tx) =>
    tx.query(`insert into public.order_refunds (refund_id, order_id, amount_cents, status) values ($1, $2, $3, $4)`, [
      id,
      orderId,
      cents,
      status,
    ]),
  );
  return id;
}

const setRefund = (refundId: string, status: string) =>
  asService(db, (tx) => tx.query(`update public.order_refunds set status = $2 where refund_id = $1`, [refundId, status]));
const setStatus = (orderId: string, status: string) =>
  asService(db, (tx) => tx.query(`update public.orders set status = $2 where id = $1`, [orderId, status]));

/** The totals as kept, and as added up from the orders in the same zone; rows whose every figure is 0 left out. */
async function keptAndCounted(zone: string) {
  return asService(db, async (tx) => {
    const kept = await tx.query(
      `select day::text, sum(orders)::int as orders, sum(revenue_cents)::bigint::text as revenue,
              sum(tax_cents)::text as tax, sum(shipping_cents)::text as shipping, sum(units)::text as units,
              sum(cancelled)::int as cancelled, sum(refunds)::int as refunds, sum(refunded_cents)::text as refunded,
              sum(gross_cents)::text as gross, sum(discount_cents)::text as discount,
              sum(shipping_discount_cents)::text as shipping_discount
         from app_private.sales_days
        group by day
       having (sum(orders), sum(revenue_cents), sum(tax_cents), sum(shipping_cents), sum(units), sum(cancelled),
               sum(refunds), sum(refunded_cents), sum(gross_cents), sum(discount_cents), sum(shipping_discount_cents))
              <> (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        order by day`,
    );
    const counted = await tx.query(
      `select (o.created_at at time zone $1)::date::text as day,
              (count(*) filter (where o.status not in ('cancelled', 'canceled')))::int as orders,
              (coalesce(sum(o.total_cents - (select coalesce(sum(r.amount_cents), 0) from public.order_refunds r
                                             where r.order_id = o.id and r.status in ('pending', 'succeeded')))
                        filter (where o.status not in ('cancelled', 'canceled')), 0))::bigint::text as revenue,
              (coalesce(sum(o.tax_cents) filter (where o.status not in ('cancelled', 'canceled')), 0))::text as tax,
              (coalesce(sum(o.shipping_cents) filter (where o.status not in ('cancelled', 'canceled')), 0))::text as shipping,
              (coalesce(sum((select sum(i.quantity) from public.order_items i where i.order_id = o.id))
                        filter (where o.status not in ('cancelled', 'canceled')), 0))::text as units,
              (count(*) filter (where o.status in ('cancelled', 'canceled')))::int as cancelled,
              (coalesce(sum((select count(*) from public.order_refunds r
                              where r.order_id = o.id and r.status in ('pending', 'succeeded'))), 0))::int as refunds,
              (coalesce(sum((select sum(r.amount_cents) from public.order_refunds r
                              where r.order_id = o.id and r.status in ('pending', 'succeeded'))), 0))::text as refunded,
              (coalesce(sum(o.subtotal_cents) filter (where o.status not in ('cancelled', 'canceled')), 0))::text as gross,
              (coalesce(sum(o.discount_cents) filter (where o.status not in ('cancelled', 'canceled')), 0))::text as discount,
              (coalesce(sum(o.shipping_discount_cents) filter (where o.status not in ('cancelled', 'canceled')), 0))::text
                as shipping_discount
         from public.orders o group by 1 order by 1`,
      [zone],
    );
    const keptItems = await tx.query(
      `select day::text, product_id, color, size, sum(units)::text as units, sum(sales_cents)::text as sales,
              (array_agg(name order by last_item_id desc nulls last))[1] as name
         from app_private.sales_day_items
        group by day, product_id, color, size
       having sum(units) <> 0 or sum(sales_cents) <> 0
        order by day, product_id, color nulls first, size nulls first`,
    );
    const countedItems = await tx.query(
      `select (o.created_at at time zone $1)::date::text as day, i.product_id, i.selected_color as color,
              i.selected_size as size, sum(i.quantity)::text as units, sum(i.quantity * i.price_cents)::text as sales,
              (array_agg(i.product_name order by i.id desc))[1] as name
         from public.orders o join public.order_items i on i.order_id = o.id
        where o.status not in ('cancelled', 'canceled')
        group by 1, 2, 3, 4 order by 1, 2, 3 nulls first, 4 nulls first`,
      [zone],
    );
    const keptCustomers = await tx.query(
      `select email, first_at::text from app_private.sales_customers where first_at is not null order by email`,
    );
    const countedCustomers = await tx.query(
      `select lower(customer_email) as email, min(created_at)::text as first_at from public.orders
        where status not in ('cancelled', 'canceled') group by 1 order by 1`,
    );
    const keptWho = await tx.query(
      `select day::text, email, sum(orders)::int as orders from app_private.sales_day_customers
        group by day, email having sum(orders) <> 0 order by day, email`,
    );
    const countedWho = await tx.query(
      `select (created_at at time zone $1)::date::text as day, lower(customer_email) as email, count(*)::int as orders
         from public.orders where status not in ('cancelled', 'canceled') group by 1, 2 order by 1, 2`,
      [zone],
    );
    const [zoneRow] = await tx.query<{ time_zone: string }>('select time_zone from app_private.sales_zone');
    return {
      zone: zoneRow?.time_zone,
      kept: { days: kept, items: keptItems, customers: keptCustomers, who: keptWho },
      counted: {
        days: counted.filter((d) => JSON.stringify(d) !== JSON.stringify(zeroDay(d.day))),
        items: countedItems,
        customers: countedCustomers,
        who: countedWho,
      },
    };
  });
}
const zeroDay = (day: unknown) => ({
  day,
  orders: 0,
  revenue: '0',
  tax: '0',
  shipping: '0',
  units: '0',
  cancelled: 0,
  refunds: 0,
  refunded: '0',
  gross: '0',
  discount: '0',
  shipping_discount: '0',
});

async function expectTotalsMatchOrders(zone = NY) {
  const { zone: kept, kept: rows, counted } = await keptAndCounted(zone);
  expect(kept).toBe(zone);
  expect(rows.days).toEqual(counted.days);
  expect(rows.items).toEqual(counted.items);
  expect(rows.customers).toEqual(counted.customers);
  expect(rows.who).toEqual(counted.who);
  return rows;
}

const overviews = (timeZone = NY) =>
  Promise.all(
    SALES_PERIODS.flatMap((key) =>
      (['units', 'revenue'] as const).map((by) =>
        salesOverview((fn) => asService(db, fn), salesPeriod(key, NOW, timeZone), timeZone, by),
      ),
    ),
  );

/** The overview of every period, from the totals (they are in NY), then from the orders alone (totals moved to UTC). */
async function expectOverviewSameFromOrders(): Promise<SalesOverview[]> {
  const fromTotals = await overviews();
  expect(await keepSalesTotalsIn(db, 'UTC')).toBe(true);
  const fromOrders = await overviews();
  expect(await keepSalesTotalsIn(db, NY)).toBe(true);
  expect(fromTotals).toEqual(fromOrders);
  return fromTotals;
}

const o: Record<string, string> = {};
const r: Record<string, string> = {};

beforeAll(async () => {
  // Before the periods, the period before, and this one; either side of midnight in New York and of the change to
  // summer time; guests in two spellings; scrubs in variants and soap.
  o.old = await place('2025-12-01T15:00:00Z', 'frank@example.com', [soap(1)]);
  o.p1 = await place('2026-02-25T05:00:00Z', 'ann@example.com', [soap(1), scrubs(1, 'blue', 'M')]);
  o.p2 = await place('2026-03-03T13:59:59Z', 'eve@example.com', [soap(2)]);
  o.b = await place('2026-03-04T04:59:59Z', 'gus@example.com', [scrubs(2, 'navy', 'S')]);
  o.a = await place('2026-03-04T05:00:00Z', 'ANN@example.com', [scrubs(2, 'blue', 'M'), soap(1)], { tax: 612 });
  o.c = await place('2026-03-08T06:30:00Z', 'bob@example.com', [scrubs(1, 'navy', 'S')]);
  o.d = await place('2026-03-08T07:30:00Z', 'ann@example.com', [soap(3)]);
  o.e = await place('2026-03-10T05:30:00Z', 'cara@example.com', [soap(4), scrubs(1, 'blue', 'M')]);
  // Discounted by a code: an amount off, and free shipping.
  o.dc = await place('2026-03-07T15:00:00Z', 'lee@example.com', [soap(2), scrubs(1, 'navy', 'S')], { discount: 1150 });
  o.fs = await place('2026-03-09T15:00:00Z', 'mo@example.com', [soap(1)], { shipping: 0, waived: 800 });
}, 60_000);

describe(`the sales day totals on ${TEST_DATABASE_KIND}`, { timeout: 60_000 }, () => {
  it('equal the orders’ figures as orders are placed, and the overview reads the same numbers from them', async () => {
    await expectTotalsMatchOrders();
    const [sevenDays] = await expectOverviewSameFromOrders();
    // The totals are not all zero: the 7 days hold A, C, D and E, and the two discounted ones.
    expect(sevenDays?.current.orders).toBe(6);
  });

  it('after partial refunds, a refund that failed and one pending that then succeeded or failed', async () => {
    r.a1 = await refund(o.a ?? '', 2000, 'succeeded');
    r.a2 = await refund(o.a ?? '', 500, 'failed');
    r.a3 = await refund(o.a ?? '', 300, 'pending');
    r.c1 = await refund(o.c ?? '', 1000, 'pending');
    r.p2 = await refund(o.p2 ?? '', 400, 'succeeded');
    await expectTotalsMatchOrders();
    await setRefund(r.a3 ?? '', 'succeeded');
    await setRefund(r.c1 ?? '', 'failed');
    await expectTotalsMatchOrders();
    const [sevenDays] = await expectOverviewSameFromOrders();
    expect(sevenDays?.current.refundedCents).toBe(2000 + 300);
  });

  it('after a full refund, and cancellations before and after refunds (and one undone)', async () => {
    const { rows } = await asService(db, async (tx) => ({
      rows: await tx.query<{ total_cents: number }>('select total_cents from public.orders where id = $1', [o.d]),
    }));
    await refund(o.d ?? '', rows[0]?.total_cents ?? 0, 'succeeded');
    await expectTotalsMatchOrders();
    // Cancelled after a partial refund: its revenue goes, its refunds stay counted.
    await setStatus(o.a ?? '', 'cancelled');
    await expectTotalsMatchOrders();
    // Cancelled, then refunded in full, as the admin's cancellation does.
    await setStatus(o.e ?? '', 'canceled');
    await refund(o.e ?? '', 5000, 'succeeded');
    await expectTotalsMatchOrders();
    // A cancellation undone counts the order again, with the refunds it had.
    await setStatus(o.a ?? '', 'processing');
    await expectTotalsMatchOrders();
    await setStatus(o.a ?? '', 'cancelled');
    // An order recorded cancelled from the start (its payment came after its items sold out).
    o.f = await place('2026-03-09T18:00:00Z', 'dan@example.com', [soap(2)], { status: 'cancelled' });
    await expectTotalsMatchOrders();
    const [sevenDays] = await expectOverviewSameFromOrders();
    expect(sevenDays?.current.cancelled).toBe(3);
  });

  it('keeps the gross, the discount and the shipping waived, as orders are placed, changed and cancelled', async () => {
    let kept = await expectTotalsMatchOrders();
    expect(kept.days.find((d) => d.day === '2026-03-07')).toMatchObject({ gross: String(2 * 1200 + 4500), discount: '1150' });
    expect(kept.days.find((d) => d.day === '2026-03-09')).toMatchObject({ shipping_discount: '800' });
    // A discount changed on the order (no path of the shop does it; the totals follow whatever is written).
    await asService(db, (tx) =>
      tx.query(`update public.orders set discount_cents = 900, total_cents = total_cents + 250 where id = $1`, [o.dc]),
    );
    await expectTotalsMatchOrders();
    await setStatus(o.fs ?? '', 'cancelled');
    kept = await expectTotalsMatchOrders();
    expect(kept.days.find((d) => d.day === '2026-03-09')?.shipping_discount ?? '0').toBe('0');
    await setStatus(o.fs ?? '', 'processing');
    const [sevenDays] = await expectOverviewSameFromOrders();
    expect(sevenDays?.current).toMatchObject({ discountCents: 900, shippingDiscountCents: 800 });
    expect(sevenDays?.current.netSalesCents).toBe((sevenDays?.current.grossCents ?? 0) - 900);
  });

  it('keeps each product and variant named as its latest piece sold, when that order is cancelled too', async () => {
    o.g = await place('2026-03-09T15:00:00Z', 'hal@example.com', [scrubs(1, 'blue', 'M', 'Clinical Scrubs (new cut)')]);
    o.h = await place('2026-03-09T16:00:00Z', 'ivy@example.com', [scrubs(1, 'blue', 'M', 'Clinical Scrubs 2.0')]);
    let kept = await expectTotalsMatchOrders();
    expect(kept.items.find((i) => i.day === '2026-03-09')).toMatchObject({ name: 'Clinical Scrubs 2.0' });
    await setStatus(o.h ?? '', 'cancelled');
    kept = await expectTotalsMatchOrders();
    expect(kept.items.find((i) => i.day === '2026-03-09')).toMatchObject({ name: 'Clinical Scrubs (new cut)' });
    const [sevenDays] = await expectOverviewSameFromOrders();
    expect(sevenDays?.variants.find((v) => v.variant === 'blue, M')?.name).toBe('Clinical Scrubs (new cut)');
  });

  it('moves a customer’s first order when it is cancelled, and counts them new again when it is restored', async () => {
    o.j = await place('2026-03-05T15:00:00Z', 'june@example.com', [soap(1)]);
    o.k = await place('2026-03-09T15:00:00Z', 'June@Example.com', [soap(1)]);
    await expectTotalsMatchOrders();
    await setStatus(o.j ?? '', 'cancelled');
    await expectTotalsMatchOrders();
    await setStatus(o.k ?? '', 'cancelled');
    await expectTotalsMatchOrders();
    await setStatus(o.j ?? '', 'shipped');
    await expectTotalsMatchOrders();
    await expectOverviewSameFromOrders();
  });

  it('after an item is changed or removed, and an order deleted with its items and refunds', async () => {
    await asService(db, (tx) => tx.query(`update public.order_items set quantity = quantity + 2 where order_id = $1`, [o.b]));
    await asService(db, (tx) => tx.query(`delete from public.order_items where order_id = $1 and product_id = 7`, [o.p1]));
    await expectTotalsMatchOrders();
    await asService(db, (tx) => tx.query(`delete from public.orders where id = $1`, [o.c]));
    await expectTotalsMatchOrders();
    await expectOverviewSameFromOrders();
  });

  it('orders committed side by side, with the same items in either order, all count (no deadlock)', async () => {
    const carts = [
      [soap(1), scrubs(1, 'blue', 'M')],
      [scrubs(1, 'blue', 'M'), soap(2)],
    ];
    const placed = await Promise.all(
      Array.from({ length: 12 }, (_, n) => place('2026-03-10T12:00:00Z', `rush${n % 5}@example.com`, carts[n % 2] ?? [])),
    );
    expect(new Set(placed).size).toBe(12);
    const kept = await expectTotalsMatchOrders();
    expect(kept.days.find((d) => d.day === '2026-03-10')).toMatchObject({ orders: 12 });
    await expectOverviewSameFromOrders();
  });

  it('a rebuild gives the rows the triggers kept, and a change of zone rebuilds them on that zone’s days', async () => {
    const before = await expectTotalsMatchOrders();
    expect(await keepSalesTotalsIn(db, NY)).toBe(false);
    // As the migration runs it (the server's role may not: it runs only sales_use_zone).
    await db.query(`select app_private.sales_rebuild($1)`, [NY]);
    expect(await expectTotalsMatchOrders()).toEqual(before);
    expect(await keepSalesTotalsIn(db, 'Asia/Kolkata')).toBe(true);
    await expectTotalsMatchOrders('Asia/Kolkata');
    // Written while in that zone, counted on its day: 11 pm in New York on the 10th is the 11th in India.
    o.l = await place('2026-03-11T03:00:00Z', 'kim@example.com', [soap(1)]);
    await expectTotalsMatchOrders('Asia/Kolkata');
    expect(await keepSalesTotalsIn(db, NY)).toBe(true);
    await expectTotalsMatchOrders();
  });

  it('no guest or shopper can read or write the totals, or run their functions', async () => {
    for (const table of [
      'sales_days',
      'sales_day_items',
      'sales_day_customers',
      'sales_customers',
      'sales_zone',
      'sales_pending',
    ]) {
      await expect(
        asShopper(db, null, (tx) => tx.query(`select * from app_private.${table}`)),
        table,
      ).rejects.toThrow(/permission denied/);
    }
    await expect(asShopper(db, null, (tx) => tx.query(`select app_private.sales_rebuild('UTC')`))).rejects.toThrow(
      /permission denied/,
    );
  });
});
