/**
 * A shopper's returns through POST /api/returns as the route runs it (a Request and the browser's cookies in, a
 * Response out), on a real database (PGlite, or PostgreSQL with TEST_DATABASE_URL, where concurrent requests really
 * overlap), with orders bought through the checkout. The attacks come first: nobody asks a return on an order that is
 * not theirs, nor more than they bought, nor outside the window; a refused request changes nothing.
 */
import { describe, expect, it } from 'vitest';
import { countReturnsByStatus, listReturnsForAdmin } from '@/features/admin/returns/return-queries.server';
import { returnEmailJob } from '@/features/returns/return-jobs.server';
import { postReturn, returnLabel } from '@/features/returns/return-routes.server';
import { returnsOfOrder } from '@/features/returns/returns.server';
import { asService } from '@/server/db/roles.server';
import type { MailMessage } from '@/server/mail/mail.port';
import { BUTTER, OIL, read, returnFixtures, SHOP, SOAP } from './return-fixtures';
import { suiteDatabase, TEST_DATABASE_KIND } from './test-database';

const db = suiteDatabase();
const { returnDeps, signedIn, buy, ship, post } = returnFixtures(db);

const ask = (items: { itemId: string; quantity: number }[], over: Record<string, unknown> = {}) => ({
  key: crypto.randomUUID(),
  reason: 'changed_mind',
  items,
  ...over,
});

/** Everything a request could have changed about an order's returns. */
async function returnsState(orderId: string) {
  const [row] = await db.query<{ returns: number; items: number; jobs: number }>(
    `select (select count(*)::int from public.order_returns where order_id = $1) as returns,
            (select coalesce(sum(jsonb_array_length(r.items)), 0)::int from public.order_returns r
              where r.order_id = $1) as items,
            (select count(*)::int from public.outbox where kind = 'return-email'
              and payload ->> 'returnId' in (select id::text from public.order_returns where order_id = $1)) as jobs`,
    [orderId],
  );
  return row;
}

describe(`who may ask a return on ${TEST_DATABASE_KIND}`, () => {
  it('another shopper, a guest without the link, a wrong link or another order’s link: refused, nothing recorded', async () => {
    const ann = await signedIn();
    const ben = await signedIn();
    const order = await buy(ann.id);
    const other = await buy(null);
    await ship(order.id);
    await ship(other.id);
    const items = [{ itemId: order.items[0]?.id ?? '', quantity: 1 }];
    const before = await returnsState(order.id);

    expect(await read(postReturn(returnDeps(), post({ orderId: order.id, ...ask(items) }), ben.jar()))).toMatchObject({
      status: 404,
      body: { error: { code: 'not_found', message: 'No such order.' } },
    });
    expect(
      await read(postReturn(returnDeps(), post({ orderId: order.id, ...ask(items) }), (await signedIn()).jar())),
    ).toMatchObject({
      status: 404,
    });
    const { browser } = await import('./browser');
    expect(await read(postReturn(returnDeps(), post({ orderId: order.id, ...ask(items) }), browser()))).toMatchObject({
      status: 401,
    });
    expect(
      await read(postReturn(returnDeps(), post({ orderId: order.id, token: 'x'.repeat(43), ...ask(items) }), browser())),
    ).toMatchObject({ status: 404 });
    // The link of the guest's own order opens that order, not Ann's.
    expect(
      await read(postReturn(returnDeps(), post({ orderId: order.id, token: other.token, ...ask(items) }), ben.jar())),
    ).toMatchObject({ status: 404 });
    // Ann's item named on the guest's order (with its link) is not a line of that order.
    expect(
      await read(postReturn(returnDeps(), post({ orderId: other.id, token: other.token, ...ask(items) }), browser())),
    ).toMatchObject({
      status: 400,
      body: { error: { code: 'invalid_items', message: 'One of the items is not part of this order.' } },
    });
    expect(await returnsState(order.id)).toEqual(before);
    expect(await returnsState(other.id)).toEqual(before);
  }, 60_000);

  it('refuses more than was bought, a malformed or oversized body, an unknown reason; nothing recorded', async () => {
    const ann = await signedIn();
    const order = await buy(ann.id);
    await ship(order.id);
    const [soap, butter] = order.items;
    const send = (body: unknown) => read(postReturn(returnDeps(), post({ orderId: order.id, ...(body as object) }), ann.jar()));
    expect(await send(ask([{ itemId: butter?.id ?? '', quantity: 3 }]))).toMatchObject({
      status: 400,
      body: { error: { code: 'invalid_items', message: 'At most 2 of Vitamin C Body Butter can be returned.' } },
    });
    expect(await send(ask([{ itemId: soap?.id ?? '', quantity: -1 }]))).toMatchObject({ status: 400 });
    expect(await send(ask([{ itemId: soap?.id ?? '', quantity: 1 }], { reason: 'because' }))).toMatchObject({
      status: 400,
      body: { error: { message: 'Choose a reason from the list.' } },
    });
    expect(await send(ask([{ itemId: soap?.id ?? '', quantity: 1 }], { comment: 'x'.repeat(501) }))).toMatchObject({
      status: 400,
    });
    expect(await send(ask([]))).toMatchObject({
      status: 400,
      body: { error: { message: 'Choose at least one item to return.' } },
    });
    const huge = new Request(`${SHOP}/api/returns`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ orderId: order.id, ...ask([{ itemId: soap?.id ?? '', quantity: 1 }], { pad: 'x'.repeat(20_000) }) }),
    });
    expect(await read(postReturn(returnDeps(), huge, ann.jar()))).toMatchObject({ status: 413 });
    expect(await returnsState(order.id)).toEqual({ returns: 0, items: 0, jobs: 0 });
  }, 60_000);

  it('refuses a line bought as final sale, in words, alone or with others; nothing recorded', async () => {
    const ann = await signedIn();
    const order = await buy(ann.id, [SOAP, OIL]);
    await ship(order.id);
    const [soap, oil] = order.items;
    const send = (items: { itemId: string; quantity: number }[]) =>
      read(postReturn(returnDeps(), post({ orderId: order.id, ...ask(items) }), ann.jar()));
    const refused = {
      status: 400,
      body: { error: { code: 'final_sale', message: 'Turmeric Body Oil is final sale and cannot be returned.' } },
    };
    expect(await send([{ itemId: oil?.id ?? '', quantity: 1 }])).toMatchObject(refused);
    expect(
      await send([
        { itemId: soap?.id ?? '', quantity: 1 },
        { itemId: oil?.id ?? '', quantity: 1 },
      ]),
    ).toMatchObject(refused);
    expect(await returnsState(order.id)).toEqual({ returns: 0, items: 0, jobs: 0 });
    // What the order recorded decides, not the catalogue now: oil bought before it was marked final sale is returnable.
    await db.query('update public.order_items set final_sale = false where id = $1', [oil?.id]);
    expect(await send([{ itemId: oil?.id ?? '', quantity: 1 }])).toMatchObject({ status: 201 });
  }, 60_000);

  it('enforces the window on the server: not before shipping, not after 30 days, not on a cancelled order', async () => {
    const ann = await signedIn();
    const order = await buy(ann.id);
    const items = [{ itemId: order.items[0]?.id ?? '', quantity: 1 }];
    const send = () => read(postReturn(returnDeps(), post({ orderId: order.id, ...ask(items) }), ann.jar()));
    expect(await send()).toMatchObject({
      status: 409,
      body: { error: { code: 'window_closed', message: 'Items can be returned once the order has shipped.' } },
    });
    await ship(order.id, { daysAgo: 31 });
    expect(await send()).toMatchObject({ status: 409, body: { error: { code: 'window_closed' } } });
    expect((await send()).body.error.message).toMatch(
      /^The 30-day return window closed on \w{3} \d{1,2}, \d{4} \(30 days from delivery on /,
    );
    // Delivered 31 days ago; seen from a day earlier, it was still open.
    const dayEarlier = () => new Date(Date.now() - 2 * 86_400_000);
    expect(
      await read(postReturn(returnDeps({ now: dayEarlier }), post({ orderId: order.id, ...ask(items) }), ann.jar())),
    ).toMatchObject({
      status: 201,
    });
    const cancelled = await buy(ann.id);
    await db.query(`update public.orders set status = 'cancelled' where id = $1`, [cancelled.id]);
    expect(
      await read(
        postReturn(
          returnDeps(),
          post({ orderId: cancelled.id, ...ask([{ itemId: cancelled.items[0]?.id ?? '', quantity: 1 }]) }),
          ann.jar(),
        ),
      ),
    ).toMatchObject({ status: 409, body: { error: { message: 'This order was cancelled, so there is nothing to return.' } } });
  }, 60_000);
});

describe(`asking a return on ${TEST_DATABASE_KIND}`, () => {
  it('the shopper gets an RMA number and one e-mail; the order page shows it requested, what is left, and the window', async () => {
    const ann = await signedIn();
    const order = await buy(ann.id);
    await ship(order.id, { delivered: false, daysAgo: 3 });
    const [soap, butter] = order.items;
    const answer = await read(
      postReturn(
        returnDeps(),
        post({
          orderId: order.id,
          ...ask([{ itemId: butter?.id ?? '', quantity: 1 }], { reason: 'skin', comment: 'Too strong' }),
        }),
        ann.jar(),
      ),
    );
    expect(answer).toMatchObject({
      status: 201,
      body: { return: { number: expect.stringMatching(/^RMA-\d{4,}$/), status: 'requested' } },
    });
    const state = await asService(db, (tx) => returnsOfOrder(tx, order.id, new Date()));
    expect(state?.window).toMatchObject({ state: 'open', from: 'shipping' });
    expect(state?.lines.map((l) => [l.name, l.quantity, l.inReturns])).toEqual([
      ['Kojic Acid Soap', 1, 0],
      ['Vitamin C Body Butter', 2, 1],
    ]);
    expect(state?.returns).toMatchObject([
      {
        number: answer.body.return.number,
        status: 'requested',
        reason: 'skin',
        comment: 'Too strong',
        items: [{ itemId: butter?.id, name: 'Vitamin C Body Butter', quantity: 1, condition: null }],
        at: { requested: expect.any(String), approved: null },
      },
    ]);

    // One e-mail, with the order page's token (the confirmation's), telling the number.
    const jobs = await db.query<{ dedupe_key: string; payload: { returnId: string; step: 'requested'; accessToken?: string } }>(
      `select dedupe_key, payload from public.outbox where kind = 'return-email' and payload ->> 'returnId' = $1`,
      [answer.body.return.id],
    );
    expect(jobs).toHaveLength(1);
    expect(jobs[0]?.payload).toEqual({ returnId: answer.body.return.id, step: 'requested', accessToken: order.token });
    const sent: MailMessage[] = [];
    const job = returnEmailJob({ db, mail: { name: 'recorder', send: async (m) => void sent.push(m) }, publicOrigin: SHOP });
    const payload = jobs[0]?.payload;
    if (payload) await job(payload);
    expect(sent.map((m) => [m.to, m.subject])).toEqual([
      ['grace@example.com', `Your Aurelia return ${answer.body.return.number}: request received`],
    ]);
    expect(sent[0]?.text).toContain(`Your return number is ${answer.body.return.number}.`);
    expect(sent[0]?.text).toContain('1 × Vitamin C Body Butter');
    expect(sent[0]?.text).toContain(`${SHOP}/order?token=${order.token}`);

    // The soap is still returnable; the second unit of butter too, and no more.
    expect(
      await read(
        postReturn(returnDeps(), post({ orderId: order.id, ...ask([{ itemId: butter?.id ?? '', quantity: 2 }]) }), ann.jar()),
      ),
    ).toMatchObject({ status: 400, body: { error: { message: 'At most 1 of Vitamin C Body Butter can be returned.' } } });
    expect(
      await read(
        postReturn(
          returnDeps(),
          post({
            orderId: order.id,
            ...ask([
              { itemId: soap?.id ?? '', quantity: 1 },
              { itemId: butter?.id ?? '', quantity: 1 },
            ]),
          }),
          ann.jar(),
        ),
      ),
    ).toMatchObject({ status: 201 });
  }, 60_000);

  it('a guest asks with the order’s link; the label is not there before approval', async () => {
    const order = await buy(null, [SOAP]);
    await ship(order.id);
    const { browser } = await import('./browser');
    const answer = await read(
      postReturn(
        returnDeps(),
        post({ orderId: order.id, token: order.token, ...ask([{ itemId: order.items[0]?.id ?? '', quantity: 1 }]) }),
        browser(),
      ),
    );
    expect(answer).toMatchObject({ status: 201 });
    const [row] = await db.query<{ requested_by: string | null }>('select requested_by from public.order_returns where id = $1', [
      answer.body.return.id,
    ]);
    expect(row?.requested_by).toBeNull();
    const label = (query: string) =>
      read(
        returnLabel(
          { db, auth: returnDeps().auth },
          new Request(`${SHOP}/api/returns/${answer.body.return.id}/label${query}`),
          browser(),
          answer.body.return.id,
        ),
      );
    expect(await label(`?token=${order.token}`)).toMatchObject({
      status: 404,
      body: { error: { message: 'This return has no label yet.' } },
    });
    expect(await label(`?token=${'y'.repeat(43)}`)).toMatchObject({
      status: 404,
      body: { error: { message: 'No such return.' } },
    });
    expect(await label('')).toMatchObject({ status: 401 });
  }, 60_000);

  it('10 simultaneous clicks of one form record one return and one e-mail; two forms racing for the last unit get one', async () => {
    const ann = await signedIn();
    const order = await buy(ann.id, [BUTTER]);
    await ship(order.id);
    const item = order.items[0]?.id ?? '';
    const once = ask([{ itemId: item, quantity: 1 }]);
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => read(postReturn(returnDeps(), post({ orderId: order.id, ...once }), ann.jar()))),
    );
    expect(answers.filter((a) => a.status === 201)).toHaveLength(1);
    expect(answers.filter((a) => a.status === 200)).toHaveLength(9);
    expect(new Set(answers.map((a) => a.body.return.number)).size).toBe(1);
    expect(await returnsState(order.id)).toEqual({ returns: 1, items: 1, jobs: 1 });

    // One unit left; five forms ask for it at once: one gets it, four are told nothing is left.
    const racing = await Promise.all(
      Array.from({ length: 5 }, () =>
        read(postReturn(returnDeps(), post({ orderId: order.id, ...ask([{ itemId: item, quantity: 1 }]) }), ann.jar())),
      ),
    );
    expect(racing.filter((a) => a.status === 201)).toHaveLength(1);
    expect(racing.filter((a) => a.status === 400).map((a) => a.body.error.message)).toEqual(
      Array(4).fill('Vitamin C Body Butter is already being returned or was refunded.'),
    );
    expect(await returnsState(order.id)).toEqual({ returns: 2, items: 2, jobs: 2 });
  }, 60_000);
});

describe(`the dates a window counts from on ${TEST_DATABASE_KIND}`, () => {
  it('are set by the database as the status changes, once, whichever path changes it', async () => {
    const order = await buy(null, [SOAP]);
    const at = async () =>
      (
        await db.query<{ shipped: boolean; delivered: boolean }>(
          'select shipped_at is not null as shipped, delivered_at is not null as delivered from public.orders where id = $1',
          [order.id],
        )
      )[0];
    expect(await at()).toEqual({ shipped: false, delivered: false });
    await db.query(`update public.orders set status = 'shipped' where id = $1`, [order.id]);
    expect(await at()).toEqual({ shipped: true, delivered: false });
    const [first] = await db.query<{ t: string }>('select shipped_at::text as t from public.orders where id = $1', [order.id]);
    await db.query(`update public.orders set status = 'delivered' where id = $1`, [order.id]);
    const [later] = await db.query<{ t: string }>('select shipped_at::text as t from public.orders where id = $1', [order.id]);
    expect(await at()).toEqual({ shipped: true, delivered: true });
    expect(later?.t).toBe(first?.t);
  }, 60_000);
});

describe(`the admin's list of returns on ${TEST_DATABASE_KIND}`, () => {
  it('lists them newest first, by status, a page at a time, with a count per status', async () => {
    const ann = await signedIn();
    const order = await buy(ann.id, [BUTTER]);
    await ship(order.id);
    const item = order.items[0]?.id ?? '';
    for (let i = 0; i < 2; i++)
      await read(postReturn(returnDeps(), post({ orderId: order.id, ...ask([{ itemId: item, quantity: 1 }]) }), ann.jar()));
    const counts = await asService(db, countReturnsByStatus);
    expect(counts.requested).toBeGreaterThanOrEqual(2);
    const first = await asService(db, (tx) => listReturnsForAdmin(tx, { status: 'requested' }, { limit: 1 }));
    expect(first.rows).toHaveLength(1);
    expect(first.next).toBeDefined();
    const second = await asService(db, (tx) => listReturnsForAdmin(tx, { status: 'requested' }, { limit: 1, after: first.next }));
    expect(second.rows[0]?.number).not.toBe(first.rows[0]?.number);
    expect(first.rows[0]).toMatchObject({ orderId: order.id, units: 1, status: 'requested', guest: false });
    expect(Number(first.rows[0]?.number.slice(4))).toBeGreaterThan(Number(second.rows[0]?.number.slice(4)));
    expect((await asService(db, (tx) => listReturnsForAdmin(tx, { status: 'refunded' }, { limit: 10 }))).rows).toEqual([]);
  }, 60_000);
});
