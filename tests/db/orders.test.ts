import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { orderOfShopper } from '@/features/orders/order-page.server';
import { listOrders, withRefunds } from '@/features/orders/orders.server';
import type { Sql } from '@/server/db/database.server';
import { asShopper, type ShopperClaims } from '@/server/db/roles.server';
import { loadCatalogueIndex } from '../unit/load-catalogue';
import { newShopper } from './shopper-fixtures';
import { suiteDatabase, TEST_DATABASE_KIND } from './test-database';

const db = suiteDatabase();

const catalogue = loadCatalogueIndex();
const history = (claims: ShopperClaims | null) => asShopper(db, claims, (tx) => listOrders(tx, catalogue));

interface Line {
  productId: number;
  quantity: number;
  color?: string;
  size?: string;
}

/** Records an order as the payment confirmation will (orders are written by the server's privileged role only). */
async function placeOrder(claims: ShopperClaims | null, at: string, lines: Line[], status = 'processing') {
  const subtotal = lines.reduce((n, l) => n + (catalogue.get(l.productId)?.priceCents ?? 500) * l.quantity, 0);
  const [row] = await db.query<{ id: string }>(
    `insert into public.orders (user_id, customer_email, customer_name, subtotal_cents, shipping_cents, tax_cents,
       total_cents, payment_intent_id, shipping_address, shipping_method, status, created_at, tracking_number)
     values ($1, $2, 'Ann Lee', $3, 1000, 0, $3 + 1000, $4, '{}', '{}', $5, $6, $7) returning id::text`,
    [claims?.sub ?? null, claims?.email ?? 'guest@example.com', subtotal, `pi_${randomUUID()}`, status, at, 'TRACK1'],
  );
  if (!row) throw new Error('no order');
  for (const l of lines) {
    const p = catalogue.get(l.productId);
    await db.query(
      `insert into public.order_items (order_id, product_id, product_name, product_category, price_cents, quantity,
         selected_color, selected_size, product_sku, image)
       values ($1, $2, $3, 'Soap', $4, $5, $6, $7, 'SKU', '/old-picture.svg')`,
      [row.id, l.productId, p?.name ?? 'Discontinued Balm', p?.priceCents ?? 500, l.quantity, l.color ?? null, l.size ?? null],
    );
  }
  return row.id;
}

describe(`order history on ${TEST_DATABASE_KIND}`, () => {
  it('lists the shopper’s own orders newest first, with their lines in order', async () => {
    const ann = await newShopper(db, 'ann');
    const older = await placeOrder(ann, '2026-10-01T10:00:00Z', [{ productId: 8, quantity: 2 }]);
    const newer = await placeOrder(
      ann,
      '2026-11-20T10:00:00Z',
      [
        { productId: 3, quantity: 1, color: 'blue', size: 'M' },
        { productId: 9, quantity: 3 },
      ],
      'shipped',
    );
    const orders = await history(ann);
    expect(orders.map((o) => o.id)).toEqual([newer, older]);
    const soap = catalogue.get(8);
    expect(orders[1]).toEqual({
      id: older,
      createdAt: '2026-10-01T10:00:00.000Z',
      status: 'processing',
      totalCents: 2 * (soap?.priceCents ?? 0) + 1000,
      discount: { code: null, discountCents: 0, offerCents: 0, freeShipping: false },
      trackingNumber: 'TRACK1',
      trackingUrl: null,
      estimatedDelivery: null,
      items: [
        {
          productId: 8,
          name: soap?.name,
          image: soap?.image,
          priceCents: soap?.priceCents,
          quantity: 2,
          selectedColor: null,
          selectedSize: null,
          available: true,
        },
      ],
    });
    expect(orders[0]?.status).toBe('shipped');
    expect(orders[0]?.items.map((i) => [i.productId, i.selectedColor, i.selectedSize, i.quantity])).toEqual([
      [3, 'blue', 'M', 1],
      [9, null, null, 3],
    ]);
  });

  it('shows nobody else’s orders, and guests none (guest orders are the shop’s alone)', async () => {
    const ann = await newShopper(db, 'ann');
    const ben = await newShopper(db, 'ben');
    await placeOrder(ann, '2026-11-01T10:00:00Z', [{ productId: 8, quantity: 1 }]);
    await placeOrder(null, '2026-11-01T11:00:00Z', [{ productId: 8, quantity: 1 }]);
    expect(await history(ben)).toEqual([]);
    // Guests cannot read orders at all (the endpoint answers them 401 before asking).
    await expect(history(null)).rejects.toThrow(/permission denied/);
    expect(await history(ann)).toHaveLength(1);
  });

  it('opens a shopper’s own order in full, refunds included, and nobody else’s', async () => {
    const ann = await newShopper(db, 'ann');
    const ben = await newShopper(db, 'ben');
    const id = await placeOrder(ann, '2026-11-02T10:00:00Z', [{ productId: 8, quantity: 2 }]);
    await db.query(
      `insert into public.order_refunds (refund_id, order_id, amount_cents, status) values ($1, $2, 500, 'succeeded'),
         ($3, $2, 700, 'failed')`,
      [`re_${randomUUID()}`, id, `re_${randomUUID()}`],
    );
    const as =
      (claims: ShopperClaims) =>
      <T>(fn: (tx: Sql) => Promise<T>) =>
        asShopper(db, claims, fn);
    const page = await orderOfShopper(db, as(ann), id);
    expect(page).toMatchObject({ id, customerName: 'Ann Lee', refundedCents: 500, trackingNumber: 'TRACK1' });
    expect(page?.items).toEqual([expect.objectContaining({ name: catalogue.get(8)?.name, quantity: 2 })]);
    expect(await orderOfShopper(db, as(ben), id)).toBeNull();
    expect(await orderOfShopper(db, as(ann), 'not-a-uuid')).toBeNull();
    expect(await orderOfShopper(db, as(ann), randomUUID())).toBeNull();
  });

  it('says what was refunded of each of the shopper’s orders, and asks about no one else’s', async () => {
    const ann = await newShopper(db, 'ann');
    const ben = await newShopper(db, 'ben');
    const annsOrder = await placeOrder(ann, '2026-11-03T10:00:00Z', [{ productId: 8, quantity: 1 }]);
    const bensOrder = await placeOrder(ben, '2026-11-03T11:00:00Z', [{ productId: 8, quantity: 1 }]);
    await db.query(
      `insert into public.order_refunds (refund_id, order_id, amount_cents, status) values ($1, $2, 300, 'succeeded'),
         ($3, $2, 200, 'pending'), ($4, $2, 999, 'failed'), ($5, $6, 400, 'succeeded')`,
      [`re_${randomUUID()}`, annsOrder, `re_${randomUUID()}`, `re_${randomUUID()}`, `re_${randomUUID()}`, bensOrder],
    );
    const anns = await withRefunds(db, await history(ann));
    expect(anns.find((o) => o.id === annsOrder)?.refundedCents).toBe(500);
    expect(anns.some((o) => o.id === bensOrder)).toBe(false);
    expect(await withRefunds(db, [])).toEqual([]);
  });

  it('marks lines the catalogue no longer sells so a reorder skips them, and keeps their stored name and picture', async () => {
    const ann = await newShopper(db, 'ann');
    await placeOrder(ann, '2026-11-01T10:00:00Z', [
      { productId: 99, quantity: 1 },
      { productId: 3, quantity: 1, color: 'mauve', size: 'M' },
      { productId: 3, quantity: 1, color: 'blue', size: 'M' },
    ]);
    const [order] = await history(ann);
    expect(order?.items.map((i) => [i.productId, i.name, i.image, i.available])).toEqual([
      [99, 'Discontinued Balm', '/old-picture.svg', false],
      [3, catalogue.get(3)?.name, catalogue.get(3)?.image, false],
      [3, catalogue.get(3)?.name, catalogue.get(3)?.image, true],
    ]);
  });

  it('passes on only web links for tracking', async () => {
    const ann = await newShopper(db, 'ann');
    const id = await placeOrder(ann, '2026-11-01T10:00:00Z', [{ productId: 8, quantity: 1 }]);
    const track = async (url: string) => {
      await db.query('update public.orders set tracking_url = $2 where id = $1', [id, url]);
      return (await history(ann))[0]?.trackingUrl;
    };
    expect(await track('https://tools.usps.com/go/TrackConfirmAction?tLabels=TRACK1')).toBe(
      'https://tools.usps.com/go/TrackConfirmAction?tLabels=TRACK1',
    );
    expect(await track('javascript:alert(1)')).toBeNull();
    expect(await track('not a url')).toBeNull();
  });

  it('answers an order without lines with an empty list, not null', async () => {
    const ann = await newShopper(db, 'ann');
    await placeOrder(ann, '2026-11-01T10:00:00Z', []);
    expect((await history(ann))[0]?.items).toEqual([]);
  });
});
