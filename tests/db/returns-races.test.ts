/**
 * Races around returns (security review of issue 43): two admins in two tabs or on two servers, a carrier slow to
 * answer; on a real database: PGlite, or PostgreSQL with TEST_DATABASE_URL, where the requests really overlap.
 * Two returns of one order refunded at once must not both give back the order's shipping, nor together more than is
 * left of the order; an exchange must not be both refunded and sent; a return declined while its label is being
 * bought must not be e-mailed an approval with a label.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminOrderRefund } from '@/features/admin/orders/order-routes.server';
import { adminReturnAction } from '@/features/admin/returns/return-routes.server';
import { returnLabelJob } from '@/features/returns/return-jobs.server';
import { postReturn } from '@/features/returns/return-routes.server';
import type { Database } from '@/server/db/database.server';
import { openPostgres } from '@/server/db/postgres.server';
import { createRateTableShipping } from '@/server/shipping/rate-table.server';
import type { ShippingPort } from '@/server/shipping/shipping.port';
import { BUTTER, catalogue, read, returnFixtures, SCRUBS, SHOP, SOAP } from './return-fixtures';
import { databaseUrl, suiteDatabase, TEST_DATABASE_KIND } from './test-database';

const db = suiteDatabase();
const { returnDeps, adminDeps, signedIn, admin, buy, ship, post, payments } = returnFixtures(db);

const act = async (
  action: 'approve' | 'decline' | 'receive' | 'refund' | 'exchange',
  id: string,
  body: unknown = {},
  on?: Database,
) =>
  read(
    adminReturnAction(
      adminDeps(on ? { db: on, payments: payments() } : {}),
      action,
      post(body, `/api/admin/returns/${id}/${action}`),
      (await admin()).jar(),
      id,
    ),
  );

const jobs = (id: string) =>
  db.query<{ dedupe_key: string }>(`select dedupe_key from public.outbox where dedupe_key like '%' || $1 || '%' order by id`, [
    id,
  ]);

describe(`two returns of one order refunded at once on ${TEST_DATABASE_KIND}`, () => {
  // On PostgreSQL, the two clicks reach two servers (each its own pool of connections) on the same database.
  let servers: Database[] = [];
  beforeAll(() => {
    const url = databaseUrl(db);
    servers = url ? [openPostgres(url, { max: 5 }), openPostgres(url, { max: 5 })] : [];
  });
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.close()));
  });

  it('both ticking the shipping: the order’s shipping is given back once, not once per return', async () => {
    const orders = await Promise.all(
      Array.from({ length: 4 }, async () => {
        const shopper = await signedIn();
        // A third line stays with the shopper, so two shippings fit in what is left to refund: only the rule stops it.
        const order = await buy(shopper.id, [SOAP, BUTTER, SCRUBS]);
        await ship(order.id);
        const returns: string[] = [];
        for (const item of order.items.slice(0, 2)) {
          const asked = await read(
            postReturn(
              returnDeps(),
              post({
                orderId: order.id,
                key: crypto.randomUUID(),
                reason: 'fit',
                items: [{ itemId: item.id, quantity: item.quantity }],
              }),
              shopper.jar(),
            ),
          );
          if (asked.status !== 201) throw new Error(JSON.stringify(asked.body));
          const id = asked.body.return.id as string;
          await act('approve', id);
          await act('receive', id, { items: [{ itemId: item.id, condition: 'damaged' }] });
          returns.push(id);
        }
        return { order, returns };
      }),
    );
    await Promise.all(
      orders.flatMap(({ returns }) => returns.map((id, i) => act('refund', id, { shipping: true }, servers[i % 2]))),
    );
    for (const { order, returns } of orders) {
      const [row] = await db.query<{ shipping: number; given: number; refunds: number; refunded: number }>(
        `select o.shipping_cents as shipping,
                (select coalesce(sum(r.refund_shipping_cents), 0)::int from public.order_returns r
                  where r.order_id = o.id and r.refund_id is not null) as given,
                (select count(*)::int from public.order_returns r where r.order_id = o.id and r.status = 'refunded') as refunded,
                (select count(*)::int from public.order_refunds f where f.order_id = o.id) as refunds
           from public.orders o where o.id = $1`,
        [order.id],
      );
      expect(row?.shipping).toBeGreaterThan(0);
      expect(row).toMatchObject({ refunds: 2, refunded: returns.length, given: row?.shipping });
    }
  }, 120_000);
});

describe(`a return declined while its label is being bought on ${TEST_DATABASE_KIND}`, () => {
  it('is not e-mailed an approval with the label after its decline', async () => {
    const shopper = await signedIn();
    const order = await buy(shopper.id, [SOAP]);
    await ship(order.id);
    const asked = await read(
      postReturn(
        returnDeps(),
        post({
          orderId: order.id,
          key: crypto.randomUUID(),
          reason: 'changed_mind',
          items: [{ itemId: order.items[0]?.id, quantity: 1 }],
        }),
        shopper.jar(),
      ),
    );
    const id = asked.body.return.id as string;
    await act('approve', id);
    const carrier = createRateTableShipping();
    // The owner declines the return while the carrier is selling its label.
    const slow: ShippingPort = {
      ...carrier,
      buyReturnLabel: async (request) => {
        expect(await act('decline', id, { reason: 'Opened and used.' })).toMatchObject({ body: { changed: true } });
        return carrier.buyReturnLabel(request);
      },
    };
    const job = returnLabelJob({ db, shipping: slow, publicOrigin: SHOP, catalogue: async () => catalogue });
    await job({ returnId: id });
    // A retried job (its end not recorded) does not send it either.
    await job({ returnId: id });
    expect((await jobs(id)).map((j) => j.dedupe_key)).toEqual([
      `mail:return:${id}:requested`,
      `return-label:${id}`,
      `mail:return:${id}:declined`,
    ]);
    const [row] = await db.query<{ status: string }>('select status from public.order_returns where id = $1', [id]);
    expect(row?.status).toBe('declined');
  });
});

/** A return of `items` of the order asked (an exchange when they name what they want instead), approved and received. */
async function received(
  order: { id: string },
  shopper: { jar: () => import('@/server/auth/auth.port').CookieJar },
  items: { itemId: string; quantity: number; exchangeFor?: { color: string; size: string } }[],
) {
  const asked = await read(
    postReturn(
      returnDeps(),
      post({
        orderId: order.id,
        key: crypto.randomUUID(),
        reason: 'fit',
        ...(items.some((i) => i.exchangeFor) ? { kind: 'exchange' } : {}),
        items,
      }),
      shopper.jar(),
    ),
  );
  if (asked.status !== 201) throw new Error(JSON.stringify(asked.body));
  const id = asked.body.return.id as string;
  await act('approve', id);
  await act('receive', id, { items: items.map((i) => ({ itemId: i.itemId, condition: 'damaged' })) });
  return id;
}

describe(`more races around returns on ${TEST_DATABASE_KIND}`, () => {
  let servers: Database[] = [];
  beforeAll(() => {
    const url = databaseUrl(db);
    servers = url ? [openPostgres(url, { max: 5 }), openPostgres(url, { max: 5 })] : [];
  });
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.close()));
  });

  it('two returns refunded at once never give back more than is left of the order, counting each other’s claim', async () => {
    const shopper = await signedIn();
    const order = await buy(shopper.id, [SOAP, BUTTER]);
    await ship(order.id);
    const [soap, butter] = order.items;
    const a = await received(order, shopper, [{ itemId: soap?.id ?? '', quantity: 1 }]);
    const b = await received(order, shopper, [{ itemId: butter?.id ?? '', quantity: 2 }]);
    // A goodwill refund leaves $20 of the order: less than the two returns together.
    const me = await admin();
    await read(adminOrderRefund(adminDeps(), post({ amountCents: order.totalCents - 2000 }, '/x'), me.jar(), order.id));
    const answers = await Promise.all([act('refund', a, {}, servers[0]), act('refund', b, {}, servers[1])]);
    const [row] = await db.query<{ refunded: number; total: number }>(
      `select (select coalesce(sum(amount_cents), 0)::int from public.order_refunds
                where order_id = o.id and status in ('pending', 'succeeded')) as refunded, o.total_cents as total
         from public.orders o where o.id = $1`,
      [order.id],
    );
    // Together they give back exactly what was left, never more, whichever claims first: the soap's $16.34 and the
    // butter capped at the rest; or the butter capped at all $20 and the soap refused in words, nothing being left.
    expect(row?.refunded).toBe(row?.total);
    const [soapAnswer, butterAnswer] = answers;
    expect(butterAnswer).toMatchObject({ status: 200, body: { changed: true } });
    if (soapAnswer?.status !== 200)
      expect(soapAnswer).toMatchObject({ status: 409, body: { error: { code: 'refunded_in_full' } } });
    else expect(soapAnswer.body.changed).toBe(true);
  }, 60_000);

  it('an exchange refunded and sent at once gets one of the two, never both', async () => {
    for (let round = 0; round < 3; round++) {
      const shopper = await signedIn();
      const order = await buy(shopper.id, [SCRUBS]);
      await ship(order.id);
      const id = await received(order, shopper, [
        { itemId: order.items[0]?.id ?? '', quantity: 1, exchangeFor: { color: 'grey', size: 'L' } },
      ]);
      const answers = await Promise.all([act('refund', id, {}, servers[0]), act('exchange', id, {}, servers[1])]);
      const [row] = await db.query<{ refunds: number; replacements: number; status: string }>(
        `select (select count(*)::int from public.order_refunds where order_id = $2) as refunds,
                (select count(*)::int from public.orders where payment_intent_id = 'replacement_' || $1) as replacements,
                (select status from public.order_returns where id = $1::uuid) as status`,
        [id, order.id],
      );
      expect(row && row.refunds + row.replacements).toBe(1);
      expect(row?.status).toBe(row?.refunds ? 'refunded' : 'exchanged');
      expect(answers.filter((x) => x.status === 200)).toHaveLength(1);
      expect(answers.filter((x) => x.status === 409)).toHaveLength(1);
    }
  }, 120_000);
});
