/**
 * What the admin changes about an order after the sale (issue 43, part 4), through the endpoints as their routes run
 * them, on a real database (PGlite, or PostgreSQL with TEST_DATABASE_URL, where concurrent requests really overlap):
 * the confirmation e-mail resent once per deliberate resend, and the shipping address changed until the label is
 * bought, checked as the checkout checks it, never interleaved with the label's purchase.
 */
import { describe, expect, it } from 'vitest';
import { adminOrderAddress, adminOrderResend } from '@/features/admin/orders/order-ops.server';
import { createShipment, labelJob, orderEmailJob } from '@/features/checkout/fulfilment.server';
import { orderOfShopper } from '@/features/orders/order-page.server';
import type { CookieJar } from '@/server/auth/auth.port';
import { asShopper } from '@/server/db/roles.server';
import { captureLogs } from '@/server/log.server';
import type { MailMessage } from '@/server/mail/mail.port';
import { jobHandlers } from '@/server/outbox/jobs.server';
import { processDue } from '@/server/outbox/outbox.server';
import { createRateTableShipping } from '@/server/shipping/rate-table.server';
import type { LabelRequest, ShippingPort } from '@/server/shipping/shipping.port';
import { drawnText } from '../unit/pdf-text';
import { browser } from './browser';
import { orderFixtures, post, read, SAVANNAH } from './order-fixtures';
import { suiteDatabase, TEST_DATABASE_KIND } from './test-database';

const db = suiteDatabase();
const { deps, signedIn, admin, buy } = orderFixtures(db);
const SHOP = 'http://shop.test';
const NEW = {
  name: 'Grace B. Hopper',
  street1: '401 Abercorn St',
  street2: 'Apt 2',
  city: 'Savannah',
  state: 'GA',
  zip: '31401',
};

const resend = async (jar: CookieJar, orderId: string, key: string = crypto.randomUUID()) =>
  read(adminOrderResend(deps(), post({ key }), jar, orderId));
const move = async (jar: CookieJar, orderId: string, address: unknown = NEW) =>
  read(adminOrderAddress(deps(), post(address), jar, orderId));

const actionsFor = (orderId: string) =>
  db.query<{ action: string; before: unknown; after: unknown }>(
    `select action, before, after from public.admin_actions where target like '%' || $1 || '%' order by id`,
    [orderId],
  );
const resends = (orderId: string) =>
  db.query<{ payload: { audience: string; accessToken?: string } }>(
    `select payload from public.outbox where dedupe_key like 'mail:resend:' || $1 || ':%' order by id`,
    [orderId],
  );
async function storedAddress(orderId: string) {
  const [row] = await db.query<{ a: string }>(`select shipping_address::text as a from public.orders where id = $1`, [orderId]);
  return JSON.parse(row?.a ?? 'null') as Record<string, string>;
}

/** The rate table, whose label requests are kept, and whose purchases wait for `open()` while `gate` is shut. */
function watchedShipping() {
  const table = createRateTableShipping();
  const requests: LabelRequest[] = [];
  let open = () => {};
  let gate: Promise<void> | null = null;
  let entered = () => {};
  let buying = new Promise<void>((resolve) => {
    entered = resolve;
  });
  const port: ShippingPort = {
    ...table,
    async buyLabel(request) {
      requests.push(request);
      entered();
      if (gate) await gate;
      return table.buyLabel(request);
    },
  };
  return {
    port,
    requests,
    /** Purchases wait from now on until `open()`; `buying` resolves when one has started. */
    shut() {
      gate = new Promise<void>((resolve) => {
        open = resolve;
      });
      buying = new Promise<void>((resolve) => {
        entered = resolve;
      });
    },
    open: () => open(),
    buying: () => buying,
  };
}
const runLabels = (shipping: ShippingPort) =>
  processDue(db, jobHandlers({ 'order-label': labelJob({ db, shipping, publicOrigin: SHOP }) }));

describe(`who may resend or change an order on ${TEST_DATABASE_KIND}`, () => {
  it('a guest and a shopper (even the order’s own) get 404 from both, and nothing changes', async () => {
    const shopper = await signedIn();
    const order = await buy({ userId: shopper.id });
    const address = await storedAddress(order.id);
    for (const jar of [browser(), shopper.jar()]) {
      expect(await resend(jar, order.id)).toMatchObject({ status: 404, body: { error: { code: 'not_found' } } });
      expect(await move(jar, order.id)).toMatchObject({ status: 404, body: { error: { code: 'not_found' } } });
    }
    expect(await resends(order.id)).toEqual([]);
    expect(await storedAddress(order.id)).toEqual(address);
    expect(await actionsFor(order.id)).toEqual([]);
  });
});

describe(`resending an order's confirmation on ${TEST_DATABASE_KIND}`, () => {
  it('queues the customer’s confirmation again with its link, once per key however many requests carry it', async () => {
    const me = await admin();
    const order = await buy();
    const key = crypto.randomUUID();
    const answers = await Promise.all(Array.from({ length: 8 }, () => resend(me.jar(), order.id, key)));
    expect(answers.filter((a) => a.status === 200 && a.body.changed === true)).toHaveLength(1);
    expect(answers.filter((a) => a.status === 200 && a.body.changed === false)).toHaveLength(7);
    expect(answers.find((a) => a.body.changed)?.body.message).toBe(
      `The confirmation of ORD-${order.id.slice(-6).toUpperCase()} is on its way to grace@example.com.`,
    );
    const [queued, ...more] = await resends(order.id);
    expect(more).toEqual([]);
    // The same token as the first confirmation: its link opens the same order page.
    const [first] = await db.query<{ token: string }>(
      `select payload ->> 'accessToken' as token from public.outbox where dedupe_key = $1`,
      [`mail:customer:${order.id}`],
    );
    expect(queued?.payload).toMatchObject({ audience: 'customer', accessToken: first?.token });
    expect(await actionsFor(order.id)).toEqual([
      { action: 'order.resend-confirmation', before: null, after: { to: 'grace@example.com' } },
    ]);

    // Another deliberate resend (a new key) is another e-mail; what the worker sends is the customer's confirmation.
    expect(await resend(me.jar(), order.id)).toMatchObject({ status: 200, body: { changed: true } });
    expect(await resends(order.id)).toHaveLength(2);
    const sent: MailMessage[] = [];
    const mail = { name: 'capture', send: async (m: MailMessage) => void sent.push(m) };
    await orderEmailJob({ db, mail, publicOrigin: SHOP, shopEmail: 'orders@shop.test' })({
      orderId: order.id,
      audience: 'customer',
      accessToken: first?.token,
    });
    expect(sent[0]).toMatchObject({
      to: 'grace@example.com',
      subject: `Your Aurelia order ORD-${order.id.slice(-6).toUpperCase()}`,
    });
  });

  it('refuses a malformed key (400) and a cancelled order (409), queuing nothing', async () => {
    const me = await admin();
    const order = await buy();
    expect(await resend(me.jar(), order.id, 'short')).toMatchObject({
      status: 400,
      body: { error: { code: 'invalid_request' } },
    });
    await db.query(`update public.orders set status = 'cancelled' where id = $1`, [order.id]);
    expect(await resend(me.jar(), order.id)).toMatchObject({ status: 409, body: { error: { code: 'order_cancelled' } } });
    expect(await resends(order.id)).toEqual([]);
    expect(await actionsFor(order.id)).toEqual([]);
  });
});

describe(`changing where an order ships on ${TEST_DATABASE_KIND}`, () => {
  it('refuses a bad address with 400 naming the field, and changes nothing', async () => {
    const me = await admin();
    const order = await buy();
    const before = await storedAddress(order.id);
    const cases: [unknown, string, RegExp][] = [
      [{ ...NEW, zip: '10001' }, 'invalid_zip', /ZIP code 10001 is in New York, not Georgia/],
      [{ ...NEW, zip: '3140' }, 'invalid_zip', /ZIP code must be 5 digits/],
      [{ ...NEW, city: ' ' }, 'invalid_city', /City is required/],
      [{ ...NEW, street1: undefined }, 'invalid_street1', /Street address is required/],
      [{ ...NEW, name: 'x'.repeat(101) }, 'invalid_name', /Name is too long/],
      [{ ...NEW, state: 'XX' }, 'invalid_state', /50 US states/],
      [{ ...NEW, country: 'CA' }, 'invalid_address', /within the US only/],
      // Shipping was priced and paid for Georgia: another state is refused, however valid.
      [{ ...NEW, state: 'NY', zip: '10001', city: 'New York' }, 'invalid_state', /must be in Georgia.*cancel and refund/],
    ];
    for (const [address, code, message] of cases) {
      const answer = await move(me.jar(), order.id, address);
      expect(answer, code).toMatchObject({ status: 400, body: { error: { code, message: expect.stringMatching(message) } } });
    }
    expect((await move(me.jar(), order.id, { ...NEW, zip: '10001' })).body.error?.field).toBe('zip');
    expect(await storedAddress(order.id)).toEqual(before);
    expect(await actionsFor(order.id)).toEqual([]);
  });

  it('changes it before the label: logged old → new, the shopper’s page shows it, and the label is bought for it', async () => {
    const me = await admin();
    const shopper = await signedIn();
    const order = await buy({ userId: shopper.id });
    expect(await move(me.jar(), order.id, { ...NEW, state: 'ga', email: 'thief@example.com' })).toMatchObject({
      status: 200,
      body: {
        changed: true,
        message: expect.stringContaining('now ships to Grace B. Hopper, 401 Abercorn St, Apt 2, Savannah, GA 31401'),
      },
    });
    // The same again changes nothing, and records nothing.
    expect(await move(me.jar(), order.id)).toMatchObject({ status: 200, body: { changed: false } });
    expect(await storedAddress(order.id)).toEqual({
      ...NEW,
      email: 'grace@example.com',
      country: 'US',
      address: NEW.street1,
      zipCode: NEW.zip,
    });
    expect(await actionsFor(order.id)).toEqual([
      {
        action: 'order.address',
        before: { address: 'Grace Hopper, 12 Bull St, Savannah, GA 31401' },
        after: { address: 'Grace B. Hopper, 401 Abercorn St, Apt 2, Savannah, GA 31401' },
      },
    ]);
    const page = await orderOfShopper(
      db,
      (fn) => asShopper(db, { sub: shopper.id, email: shopper.email, role: 'authenticated' }, fn),
      order.id,
    );
    expect(page?.address).toEqual({ ...NEW });

    const shipping = watchedShipping();
    expect(await runLabels(shipping.port)).toMatchObject({ failed: 0 });
    const number = `ORD-${order.id.slice(-6).toUpperCase()}`;
    expect(shipping.requests.find((r) => r.orderNumber === number)).toMatchObject({
      to: { street1: NEW.street1, street2: 'Apt 2' },
      addressKey: expect.any(String),
    });
    const [pdf] = await db.query<{ pdf: Uint8Array }>(`select pdf from public.order_labels where order_id = $1`, [order.id]);
    expect(drawnText(pdf?.pdf ?? new Uint8Array()).join(' ')).toContain('401 Abercorn St');

    // Now it has its label: refused in words, nothing changed.
    const late = await move(me.jar(), order.id, { ...SAVANNAH });
    expect(late).toMatchObject({
      status: 409,
      body: {
        error: { code: 'label_bought', message: expect.stringMatching(/has its shipping label, bought for this address/) },
      },
    });
    expect((await storedAddress(order.id)).street1).toBe(NEW.street1);
    expect(await actionsFor(order.id)).toHaveLength(1);
  });

  it('an order whose label was never changed is bought for the rate it was quoted, with no address key', async () => {
    const order = await buy();
    const shipping = watchedShipping();
    await runLabels(shipping.port);
    expect(shipping.requests.find((r) => r.orderNumber.endsWith(order.id.slice(-6).toUpperCase()))).not.toHaveProperty(
      'addressKey',
    );
  });

  it('a failed label job runs again at once for the new address; a shipped order is refused', async () => {
    const me = await admin();
    const order = await buy();
    await db.query(
      `update public.outbox set attempts = 10, last_error = 'Shippo refused the label: address not found', next_attempt_at = now() + interval '1 hour' where dedupe_key = $1`,
      [`label:${order.id}`],
    );
    const answer = await move(me.jar(), order.id);
    expect(answer.body.message).toContain('Its label is being bought again, for this address.');
    const [job] = await db.query<{ attempts: number; due: boolean }>(
      `select attempts, next_attempt_at <= now() as due from public.outbox where dedupe_key = $1`,
      [`label:${order.id}`],
    );
    expect(job).toEqual({ attempts: 0, due: true });

    const shipped = await buy();
    await db.query(`update public.orders set status = 'shipped' where id = $1`, [shipped.id]);
    expect(await move(me.jar(), shipped.id)).toMatchObject({ status: 409, body: { error: { code: 'order_not_processing' } } });
  });
});

describe(`an address change and the label's purchase never interleave on ${TEST_DATABASE_KIND}`, () => {
  it('while the label is being bought (its lease held), the change is refused and the label keeps the address', async () => {
    const me = await admin();
    const order = await buy();
    const shipping = watchedShipping();
    shipping.shut();
    const running = runLabels(shipping.port);
    await shipping.buying();
    const answer = await move(me.jar(), order.id);
    expect(answer).toMatchObject({ status: 409, body: { error: { code: 'label_in_progress' } } });
    shipping.open();
    await running;
    expect((await storedAddress(order.id)).street1).toBe(SAVANNAH.street1);
    expect(await actionsFor(order.id)).toEqual([]);
  });

  it('a label bought without the lease (a timed-out attempt) for an address changed meanwhile is not kept', async () => {
    const me = await admin();
    const order = await buy();
    const shipping = watchedShipping();
    shipping.shut();
    const stale = labelJob({ db, shipping: shipping.port, publicOrigin: SHOP })({ orderId: order.id });
    await shipping.buying();
    expect(await move(me.jar(), order.id)).toMatchObject({ status: 200, body: { changed: true } });
    const logs = captureLogs('warn');
    shipping.open();
    await expect(stale).rejects.toThrow('The shipping address changed while the label was bought');
    logs.restore();
    expect(logs.records.map((r) => r.msg)).toContain('label not used: the address changed while it was bought');
    const [row] = await db.query<{ tracking_number: string | null }>(`select tracking_number from public.orders where id = $1`, [
      order.id,
    ]);
    expect(row?.tracking_number).toBeNull();
    // The next try buys it for the new address.
    await labelJob({ db, shipping: shipping.port, publicOrigin: SHOP })({ orderId: order.id });
    expect(shipping.requests.at(-1)?.to.street1).toBe(NEW.street1);
  });

  it('changes and purchases at once: an accepted change is always the label’s address, a refused one never is', async () => {
    const me = await admin();
    const orders = await Promise.all(Array.from({ length: 10 }, () => buy()));
    const shipping = watchedShipping();
    const deps = { db, shipping: shipping.port, publicOrigin: SHOP };
    const outcomes = await Promise.all(
      orders.map(async (order, i) => {
        // Each order's change races its own purchase (POST /api/create-shipment takes the job's lease as the worker
        // does), one or the other started first, 0 to 27 ms apart: which one wins is the database's to say.
        const change = async () => {
          await new Promise((resolve) => setTimeout(resolve, i % 3));
          return move(me.jar(), order.id);
        };
        const purchase = async () => {
          await new Promise((resolve) => setTimeout(resolve, i * 3));
          return createShipment(deps, order.id);
        };
        const answer = i % 2 ? (await Promise.all([change(), purchase()]))[0] : (await Promise.all([purchase(), change()]))[1];
        return { order, answer };
      }),
    );
    // What the worker had not bought yet (another run held the job), it buys now.
    await runLabels(shipping.port);
    for (const { order, answer } of outcomes) {
      const number = `ORD-${order.id.slice(-6).toUpperCase()}`;
      const bought = shipping.requests.filter((r) => r.orderNumber === number);
      const [stored] = await db.query<{ tracking_number: string | null }>(
        `select tracking_number from public.orders where id = $1`,
        [order.id],
      );
      expect(stored?.tracking_number).not.toBeNull();
      const kept = bought.at(-1);
      if (answer.body.changed === true) expect(kept?.to.street1, number).toBe(NEW.street1);
      else {
        expect(answer.status, number).toBe(409);
        expect(kept?.to.street1, number).toBe(SAVANNAH.street1);
        expect((await storedAddress(order.id)).street1).toBe(SAVANNAH.street1);
      }
    }
  });
});
