/**
 * The owner's side of returns through the admin's return endpoints as their routes run them, on a real database
 * (PGlite, or PostgreSQL with TEST_DATABASE_URL, where concurrent requests really overlap, on two servers): only an
 * admin gets anything but 404; approve buys one return label through the outbox; decline says why; receiving puts
 * resellable units back in stock once; the refund is what was paid for the lines (their discount share and tax in),
 * the shipping only when ticked, never more than is left, and exactly one refund however many clicks on any server.
 */
import { PDFDocument } from 'pdf-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { actionLabel, describeValue } from '@/features/admin/admin';
import { adminOrderRefund } from '@/features/admin/orders/order-routes.server';
import { adminReturnAction, adminReturnLabel } from '@/features/admin/returns/return-routes.server';
import { ordersCsv } from '@/features/admin/sales/orders-csv.server';
import { salesPeriod } from '@/features/admin/sales/sales';
import { salesOverview } from '@/features/admin/sales/sales.server';
import { returnLabelJob } from '@/features/returns/return-jobs.server';
import { postReturn, returnLabel } from '@/features/returns/return-routes.server';
import type { CookieJar } from '@/server/auth/auth.port';
import type { Database, Sql } from '@/server/db/database.server';
import { openPostgres } from '@/server/db/postgres.server';
import { asService } from '@/server/db/roles.server';
import { PaymentsError } from '@/server/payments/payments.port';
import { createRateTableShipping } from '@/server/shipping/rate-table.server';
import { drawnText } from '../unit/pdf-text';
import { browser } from './browser';
import { BUTTER, catalogue, read, returnFixtures, SHOP, SOAP } from './return-fixtures';
import { databaseUrl, suiteDatabase, TEST_DATABASE_KIND } from './test-database';

const db = suiteDatabase();
const { returnDeps, adminDeps, signedIn, admin, buy, ship, post, payments } = returnFixtures(db);
const labelJob = () =>
  returnLabelJob({ db, shipping: createRateTableShipping(), publicOrigin: SHOP, catalogue: async () => catalogue });

/** An order bought, delivered, and a return of `units` of its lines asked for: the return's id and number. */
async function requested(lines = [SOAP, BUTTER], units?: (items: { id: string }[]) => { itemId: string; quantity: number }[]) {
  const shopper = await signedIn();
  const order = await buy(shopper.id, lines);
  await ship(order.id);
  const items = units?.(order.items) ?? order.items.map((i) => ({ itemId: i.id, quantity: i.quantity }));
  const asked = await read(
    postReturn(returnDeps(), post({ orderId: order.id, key: crypto.randomUUID(), reason: 'changed_mind', items }), shopper.jar()),
  );
  if (asked.status !== 201) throw new Error(JSON.stringify(asked.body));
  return { shopper, order, id: asked.body.return.id as string, number: asked.body.return.number as string };
}

const act = async (action: 'approve' | 'decline' | 'receive' | 'refund', id: string, body: unknown = {}, on?: Database) =>
  read(
    adminReturnAction(
      adminDeps(on ? { db: on, payments: payments() } : {}),
      action,
      post(body, `/api/admin/returns/${id}/${action}`),
      (await admin()).jar(),
      id,
    ),
  );

const returnRow = async (id: string) =>
  (
    await db.query<{ status: string; refund_id: string | null; label_url: string | null; items: unknown }>(
      'select status, refund_id, label_url, items from public.order_returns where id = $1',
      [id],
    )
  )[0];
const jobs = (id: string) =>
  db.query<{ kind: string; dedupe_key: string; payload: Record<string, unknown> }>(
    `select kind, dedupe_key, payload from public.outbox where dedupe_key like '%' || $1 || '%' order by id`,
    [id],
  );
const actions = (id: string) =>
  db.query<{ action: string; before: unknown; after: Record<string, unknown> }>(
    `select action, before, after from public.admin_actions
      where target like (select 'RMA-' || number || ' %' from public.order_returns where id = $1) order by id`,
    [id],
  );
const onHand = async (productId: number) =>
  (
    await db.query<{ n: number }>(
      `select on_hand as n from public.stock_levels where product_id = $1 and color = '' and size = ''`,
      [productId],
    )
  )[0]?.n;

describe(`who may act on returns on ${TEST_DATABASE_KIND}`, () => {
  it('a guest and a shopper (even the one who asked) get 404 from every return endpoint, and nothing changes', async () => {
    const r = await requested();
    const before = { row: await returnRow(r.id), jobs: await jobs(r.id) };
    for (const action of ['approve', 'decline', 'receive', 'refund'] as const)
      for (const jar of [browser(), r.shopper.jar()])
        expect(
          await read(
            adminReturnAction(adminDeps(), action, post({ reason: 'x' }, `/api/admin/returns/${r.id}/${action}`), jar, r.id),
          ),
        ).toMatchObject({ status: 404, body: { error: { message: 'Not found.' } } });
    expect(await read(adminReturnLabel(adminDeps(), r.shopper.jar(), r.id))).toMatchObject({ status: 404 });
    expect({ row: await returnRow(r.id), jobs: await jobs(r.id) }).toEqual(before);
    expect(await actions(r.id)).toEqual([]);
  }, 60_000);
});

describe(`approving and declining on ${TEST_DATABASE_KIND}`, () => {
  it('approving under 10 clicks queues one label job; the job buys one TEST return label and e-mails it once', async () => {
    const r = await requested();
    const answers = await Promise.all(Array.from({ length: 10 }, () => act('approve', r.id)));
    expect(answers.filter((a) => a.body.changed)).toHaveLength(1);
    expect(answers.every((a) => a.status === 200 && a.body.status === 'approved')).toBe(true);
    expect(await actions(r.id)).toEqual([
      { action: 'return.approve', before: { returnStatus: 'requested' }, after: { returnStatus: 'approved' } },
    ]);
    const [job] = (await jobs(r.id)).filter((j) => j.kind === 'return-label');
    expect(job?.payload).toEqual({ returnId: r.id, accessToken: r.order.token });
    await labelJob()(job?.payload as { returnId: string });
    await labelJob()(job?.payload as { returnId: string });
    expect((await jobs(r.id)).map((j) => j.dedupe_key)).toEqual([
      `mail:return:${r.id}:requested`,
      `return-label:${r.id}`,
      `mail:return:${r.id}:approved`,
    ]);
    expect((await returnRow(r.id))?.label_url).toBe(`${SHOP}/api/returns/${r.id}/label`);
    const pdf = await adminReturnLabel(adminDeps(), (await admin()).jar(), r.id);
    expect(pdf.headers.get('content-type')).toBe('application/pdf');
    const bytes = new Uint8Array(await pdf.arrayBuffer());
    expect((await PDFDocument.load(bytes)).getTitle()).toBe(`TEST RETURN LABEL ${r.number}`);
    expect(drawnText(bytes)).toContain('Grace Hopper');
    // The shopper's label link: with the order's token, or signed in as its owner; nobody else.
    const shopperLabel = (query: string, jar: CookieJar = browser()) =>
      returnLabel({ db, auth: returnDeps().auth }, new Request(`${SHOP}/api/returns/${r.id}/label${query}`), jar, r.id);
    expect((await shopperLabel(`?token=${r.order.token}`)).status).toBe(200);
    expect((await shopperLabel('', r.shopper.jar())).status).toBe(200);
    expect((await shopperLabel('', (await signedIn()).jar())).status).toBe(404);
  }, 60_000);

  it('declining says why, once; the units are free to ask again; a label job that comes after buys nothing', async () => {
    const r = await requested([SOAP]);
    await act('approve', r.id);
    expect(await act('decline', r.id, { reason: ' ' })).toMatchObject({ status: 400 });
    const declined = await act('decline', r.id, { reason: 'Opened and used.' });
    expect(declined).toMatchObject({ status: 200, body: { changed: true, status: 'declined' } });
    expect(await act('decline', r.id, { reason: 'Again.' })).toMatchObject({ status: 200, body: { changed: false } });
    expect(await act('receive', r.id, { items: [{ itemId: r.order.items[0]?.id, condition: 'damaged' }] })).toMatchObject({
      status: 409,
      body: { error: { message: 'The return was declined: nothing more happens to it.' } },
    });
    await labelJob()({ returnId: r.id });
    const after = await jobs(r.id);
    expect(after.map((j) => j.dedupe_key)).toEqual([
      `mail:return:${r.id}:requested`,
      `return-label:${r.id}`,
      `mail:return:${r.id}:declined`,
    ]);
    expect((await returnRow(r.id))?.label_url).toBeNull();
    const again = await read(
      postReturn(
        returnDeps(),
        post({
          orderId: r.order.id,
          key: crypto.randomUUID(),
          reason: 'damaged',
          items: [{ itemId: r.order.items[0]?.id, quantity: 1 }],
        }),
        r.shopper.jar(),
      ),
    );
    expect(again.status).toBe(201);
  }, 60_000);
});

describe(`receiving on ${TEST_DATABASE_KIND}`, () => {
  it('puts resellable units back in stock once, damaged ones not; the return is received once every line is in', async () => {
    await db.query(`insert into public.stock_levels (product_id, on_hand) values (5, 40), (7, 40)
                    on conflict (product_id, color, size) do update set on_hand = 40`);
    const r = await requested([SOAP, BUTTER]);
    const [soap, butter] = r.order.items;
    expect(await onHand(5)).toBe(38);
    expect(await act('receive', r.id, { items: [{ itemId: butter?.id, condition: 'resellable' }] })).toMatchObject({
      status: 409,
    });
    await act('approve', r.id);
    const first = await Promise.all(
      Array.from({ length: 5 }, () => act('receive', r.id, { items: [{ itemId: butter?.id, condition: 'resellable' }] })),
    );
    expect(first.filter((a) => a.body.changed)).toHaveLength(1);
    expect(first.find((a) => a.body.changed)?.body).toMatchObject({
      status: 'approved',
      message: 'Received: 2 × Vitamin C Body Butter (resellable). 2 × Vitamin C Body Butter back in stock.',
    });
    expect(await onHand(5)).toBe(40);
    expect(await act('receive', r.id, { items: [{ itemId: '999999', condition: 'damaged' }] })).toMatchObject({ status: 400 });
    expect(await act('receive', r.id, { items: [{ itemId: soap?.id, condition: 'damaged' }] })).toMatchObject({
      body: { changed: true, status: 'received' },
    });
    expect(await onHand(7)).toBe(39);
    expect((await jobs(r.id)).map((j) => j.dedupe_key)).toContain(`mail:return:${r.id}:received`);
    expect((await actions(r.id)).map((a) => a.after)).toEqual([
      { returnStatus: 'approved' },
      { returnStatus: 'approved', received: '2 × Vitamin C Body Butter (resellable)', restocked: '2 × Vitamin C Body Butter' },
      { returnStatus: 'received', received: '1 × Kojic Acid Soap (damaged)' },
    ]);
    // Putting the whole order back later puts back only what the return did not: the damaged soap.
    await act('refund', r.id);
    const { restockOrderAction } = await import('@/features/admin/orders/order-actions.server');
    const { asService } = await import('@/server/db/roles.server');
    const me = await admin();
    await restockOrderAction({ admin: { id: me.id, email: me.email }, run: (fn) => asService(db, fn) }, r.order.id);
    expect([await onHand(5), await onHand(7)]).toEqual([40, 40]);
  }, 60_000);
});

/** An order with a 20 % code, its return of everything asked, approved and received: ready to refund. */
async function receivedReturn(code = `RET${Math.floor(Math.random() * 1e9)}`) {
  await db.query(`insert into public.discount_codes (code, kind, percent) values ($1, 'percent', 20)`, [code]);
  const shopper = await signedIn();
  const order = await buy(shopper.id, [SOAP, BUTTER], code);
  await ship(order.id);
  const [soap, butter] = order.items;
  const asked = await read(
    postReturn(
      returnDeps(),
      post({ orderId: order.id, key: crypto.randomUUID(), reason: 'fit', items: [{ itemId: butter?.id, quantity: 2 }] }),
      shopper.jar(),
    ),
  );
  const id = asked.body.return.id as string;
  await act('approve', id);
  await act('receive', id, { items: [{ itemId: butter?.id, condition: 'damaged' }] });
  const [money] = await db.query<{ butter_paid: number; shipping: number; total: number }>(
    `select (select price_cents * quantity - discount_cents from public.order_items where id = $2) as butter_paid,
            shipping_cents as shipping, total_cents as total from public.orders where id = $1`,
    [order.id, butter?.id],
  );
  return {
    id,
    order,
    soap,
    butter,
    shopper,
    paid: money?.butter_paid ?? 0,
    shipping: money?.shipping ?? 0,
    total: money?.total ?? 0,
  };
}

const refundsOf = (orderId: string) =>
  db.query<{ amount_cents: number; items: unknown }>(
    'select amount_cents, items from public.order_refunds where order_id = $1 order by created_at',
    [orderId],
  );

describe(`refunding on ${TEST_DATABASE_KIND}`, () => {
  it('gives back what was paid for the lines, their discount share and tax in; the shipping only when ticked', async () => {
    const r = await receivedReturn();
    const tax = Math.round(r.paid * 0.089);
    expect(r.paid).toBe(2 * 3000 - 1200);
    const refund = await act('refund', r.id);
    expect(refund).toMatchObject({ status: 200, body: { changed: true, status: 'refunded' } });
    expect(refund.body.message).toBe(
      `Refunded $${((r.paid + tax) / 100).toFixed(2)} for ${refund.body.message.split(' for ')[1]}`,
    );
    expect(await refundsOf(r.order.id)).toEqual([
      { amount_cents: r.paid + tax, items: [{ itemId: r.butter?.id, quantity: 2, goodsCents: r.paid }] },
    ]);
    expect((await jobs(r.id)).filter((j) => j.dedupe_key === `mail:return:${r.id}:refunded`)).toHaveLength(1);
    expect((await actions(r.id)).at(-1)).toMatchObject({
      action: 'return.refund',
      before: { refundedCents: 0 },
      after: { refundedCents: r.paid + tax, refundStatus: 'succeeded', shippingCents: 0, returnStatus: 'refunded' },
    });
    expect(await act('refund', r.id)).toMatchObject({ status: 200, body: { changed: false } });

    const withShipping = await receivedReturn();
    expect(withShipping.shipping).toBeGreaterThan(0);
    await act('refund', withShipping.id, { shipping: true });
    expect((await refundsOf(withShipping.order.id))[0]?.amount_cents).toBe(withShipping.paid + tax + withShipping.shipping);
  }, 60_000);

  it('never gives back more than is left: an earlier refund caps it, and a line refunded apart is refused', async () => {
    const r = await receivedReturn();
    const me = await admin();
    const goodwill = r.total - 1000;
    await read(adminOrderRefund(adminDeps(), post({ amountCents: goodwill }, '/x'), me.jar(), r.order.id));
    await act('refund', r.id, { shipping: true });
    expect((await refundsOf(r.order.id)).map((x) => x.amount_cents)).toEqual([goodwill, 1000]);
    expect(await act('refund', r.id)).toMatchObject({ body: { changed: false } });

    const apart = await receivedReturn();
    await read(
      adminOrderRefund(adminDeps(), post({ lines: [{ itemId: apart.butter?.id, quantity: 1 }] }, '/x'), me.jar(), apart.order.id),
    );
    expect(await act('refund', apart.id)).toMatchObject({
      status: 409,
      body: { error: { code: 'cannot_refund', message: 'At most 1 of Vitamin C Body Butter can still be refunded.' } },
    });
    expect(await refundsOf(apart.order.id)).toHaveLength(1);
  }, 60_000);

  it('when the processor refuses, nothing is recorded and the next click asks anew', async () => {
    const r = await receivedReturn();
    const refusing = payments();
    refusing.refund = async () => {
      throw new PaymentsError('charge_disputed', 'The charge is disputed.');
    };
    const refused = await read(
      adminReturnAction(adminDeps({ payments: refusing }), 'refund', post({}, '/x'), (await admin()).jar(), r.id),
    );
    expect(refused).toMatchObject({
      status: 409,
      body: { error: { code: 'charge_disputed', message: 'The payment processor refused the refund: The charge is disputed.' } },
    });
    expect(await refundsOf(r.order.id)).toEqual([]);
    expect((await returnRow(r.id))?.status).toBe('received');
    expect(await act('refund', r.id)).toMatchObject({ status: 200, body: { changed: true } });
    expect(await refundsOf(r.order.id)).toHaveLength(1);
  }, 60_000);
});

describe(`a return in the admin's records on ${TEST_DATABASE_KIND}`, () => {
  it('is a refund in the sales overview (the order not cancelled), a column of the orders CSV, and words in the activity log', async () => {
    const r = await receivedReturn();
    const me = await admin();
    const caller = { admin: { id: me.id, email: me.email }, run: <T>(fn: (tx: Sql) => Promise<T>) => asService(db, fn) };
    const zone = 'America/New_York';
    const period = salesPeriod('7d', new Date(), zone);
    const before = await salesOverview(caller.run, period, zone);
    await act('refund', r.id);
    const after = await salesOverview(caller.run, period, zone);
    const refund = (await refundsOf(r.order.id))[0]?.amount_cents ?? 0;
    expect(after.current.orders).toBe(before.current.orders);
    expect(after.current.cancelled).toBe(before.current.cancelled);
    expect(after.current.units).toBe(before.current.units);
    expect(after.current.refunds).toBe(before.current.refunds + 1);
    expect(after.current.revenueCents).toBe(before.current.revenueCents - refund);
    expect(after.returnRefunds.current).toBe(before.returnRefunds.current + 1);

    const csv = await new Response(await ordersCsv(caller, { from: null, to: null }, zone)).text();
    const row = csv.split('\r\n').find((l) => l.includes(r.order.id)) ?? '';
    const number = (await db.query<{ n: string }>('select number::text as n from public.order_returns where id = $1', [r.id]))[0]
      ?.n;
    expect(row).toContain(`,Delivered,`);
    expect(row.endsWith(`,RMA-${number} refunded (2 units)`)).toBe(true);

    const words = (await actions(r.id)).map((a) => `${actionLabel(a.action)}: ${describeValue(a.after)}`);
    expect(words).toEqual([
      'Return approved: return approved',
      'Return items received: received: 2 × Vitamin C Body Butter (damaged), return received',
      expect.stringMatching(
        /^Return refunded: refund re_test_\w+, refund succeeded, return refunded, \$[\d.,]+ refunded, shipping not included$/,
      ),
    ]);
  }, 60_000);
});

describe(`one refund under concurrent clicks on ${TEST_DATABASE_KIND}`, () => {
  // On PostgreSQL, the clicks reach two servers (each its own pool of connections) on the same database.
  let servers: Database[] = [];
  beforeAll(() => {
    const url = databaseUrl(db);
    servers = url ? [openPostgres(url, { max: 5 }), openPostgres(url, { max: 5 })] : [];
  });
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.close()));
  });

  it('12 clicks at once, half ticking the shipping: one refund at the processor, one recorded, one action, one e-mail', async () => {
    const r = await receivedReturn();
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, i) => act('refund', r.id, { shipping: i % 2 === 0 }, servers[i % 2])),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(12).fill(200));
    expect(answers.filter((a) => a.body.changed)).toHaveLength(1);
    const [processor] = await db.query<{ n: number }>('select count(*)::int as n from public.test_refunds where intent_id = $1', [
      r.order.intentId,
    ]);
    expect(processor?.n).toBe(1);
    expect(await refundsOf(r.order.id)).toHaveLength(1);
    expect((await actions(r.id)).filter((a) => a.action === 'return.refund')).toHaveLength(1);
    expect((await jobs(r.id)).filter((j) => j.dedupe_key === `mail:return:${r.id}:refunded`)).toHaveLength(1);
    expect((await returnRow(r.id))?.status).toBe('refunded');
  }, 60_000);
});
