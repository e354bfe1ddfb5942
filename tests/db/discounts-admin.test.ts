/**
 * The owner's discount codes and automatic offer through the admin's discount routes (a Request and a browser's cookies
 * in, a Response out) on a real database (PGlite, or PostgreSQL with TEST_DATABASE_URL): every change is one admin
 * action naming who did it; bad input is refused in words and changes nothing; times are typed and read on the shop's
 * clock; an edit never rewrites what orders were charged, nor the figures of the code's page.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { listActions } from '@/features/admin/admin.server';
import {
  type AdminDiscountDeps,
  adminDiscountCreate,
  adminDiscountEdit,
  adminDiscountGet,
  adminDiscountStatus,
  adminDiscountsList,
  adminOfferGet,
  adminOfferSave,
} from '@/features/admin/discounts/discount-routes.server';
import type { AdminCode, CodeReport } from '@/features/admin/discounts/discounts-admin';
import { instantToWall } from '@/features/admin/discounts/discounts-admin';
import { recordOrder } from '@/features/checkout/order.server';
import { quoteRates } from '@/features/checkout/rates.server';
import { startCheckout } from '@/features/checkout/start-checkout.server';
import { SHOPPER_RULES } from '@/features/discounts/discounts';
import type { CookieJar } from '@/server/auth/auth.port';
import { createBuiltInAuth, SESSION_COOKIE } from '@/server/auth/builtin.server';
import { asService } from '@/server/db/roles.server';
import { createTestProcessor } from '@/server/payments/test-processor.server';
import { createRateTableShipping } from '@/server/shipping/rate-table.server';
import { loadCatalogueIndex } from '../unit/load-catalogue';
import { browser } from './browser';
import { suiteDatabase, TEST_DATABASE_KIND } from './test-database';

const db = suiteDatabase();
const catalogue = loadCatalogueIndex();
const SHOP = 'http://shop.test';
const NY = 'America/New_York';
const OWNER = 'owner@admins.example';
const PASSWORD = 'lavender-fields';
const auth = () => createBuiltInAuth({ db, secureCookies: false });
const deps = (): AdminDiscountDeps => ({
  db,
  auth: auth(),
  adminEmails: [OWNER],
  timeZone: NY,
  catalogue: async () => catalogue,
});

let n = 0;
/** A browser signed in as a new verified account (the owner when `email` is OWNER). */
async function signedIn(email = `shopper.${++n}.${Date.now()}@example.com`): Promise<() => CookieJar> {
  await auth().signUp({ email, password: PASSWORD, firstName: 'Ann', lastName: 'Lee' }, { origin: SHOP });
  await asService(db, (tx) => tx.query(`update auth.users set email_confirmed_at = now() where email = $1`, [email]));
  const first = browser();
  const login = await auth().signIn({ email, password: PASSWORD }, first);
  if (!login.ok) throw new Error(login.error.message);
  const token = first.getAll().find((c) => c.name === SESSION_COOKIE)?.value ?? '';
  return () => browser({ [SESSION_COOKIE]: token });
}
let ownerJar: Promise<() => CookieJar> | undefined;
/** A browser signed in as the owner (the account is made once per file). */
async function owner(): Promise<CookieJar> {
  ownerJar ??= signedIn(OWNER);
  return (await ownerJar)();
}

const post = (body: unknown) =>
  new Request(`${SHOP}/api/admin/discounts`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });

async function read<T = Record<string, unknown>>(response: Promise<Response>) {
  const res = await response;
  return { status: res.status, body: (await res.json()) as T };
}

/** A valid new code's body; `over` changes any field. */
const codeBody = (over: Record<string, unknown> = {}) => ({
  code: `spring${++n}`,
  kind: 'percent',
  percent: 15,
  minSubtotalCents: null,
  startsAt: null,
  endsAt: null,
  usageLimit: null,
  perCustomerLimit: null,
  productIds: [],
  categories: [],
  ...over,
});

async function create(over: Record<string, unknown> = {}): Promise<AdminCode> {
  const { status, body } = await read<{ code: AdminCode }>(adminDiscountCreate(deps(), post(codeBody(over)), await owner()));
  if (status !== 201) throw new Error(`create: ${status} ${JSON.stringify(body)}`);
  return body.code;
}

const edit = async (id: string, body: unknown) => read(adminDiscountEdit(deps(), post(body), await owner(), id));
const setStatus = async (id: string, to: string) => read(adminDiscountStatus(deps(), post({ to }), await owner(), id));
const report = async (id: string) => (await read<CodeReport>(adminDiscountGet(deps(), await owner(), id))).body;
/** The body an edit sends for `code` as it stands, with `over` changed. */
const rulesOf = (c: AdminCode, over: Record<string, unknown> = {}) => ({
  kind: c.kind,
  percent: c.percent,
  amountCents: c.amountCents,
  minSubtotalCents: c.minSubtotalCents,
  startsAt: c.startsAt && instantToWall(c.startsAt, NY),
  endsAt: c.endsAt && instantToWall(c.endsAt, NY),
  usageLimit: c.usageLimit,
  perCustomerLimit: c.perCustomerLimit,
  productIds: c.productIds,
  categories: c.categories,
  version: c.version,
  ...over,
});

/** Every discount row and admin action, to show a refused request changed nothing. */
const digest = () =>
  asService(db, async (tx) => ({
    codes: await tx.query(`select * from public.discount_codes order by id`),
    offer: await tx.query(`select * from public.discount_offer`),
    actions: await tx.query(`select id from public.admin_actions order by id`),
  }));

const latestActions = (limit = 1) => asService(db, (tx) => listActions(tx, { limit }));

describe(`discount codes in the admin on ${TEST_DATABASE_KIND}`, { timeout: 30_000 }, () => {
  it('answers a guest and a shopper the stranger’s 404 at every route, before reading the body, and changes nothing', async () => {
    const code = await create();
    const before = await digest();
    for (const jar of [browser(), (await signedIn())()]) {
      const answers = [
        await adminDiscountsList(deps(), jar),
        await adminDiscountCreate(deps(), post(codeBody()), jar),
        await adminDiscountGet(deps(), jar, code.id),
        await adminDiscountEdit(deps(), post(rulesOf(code, { percent: 99 })), jar, code.id),
        await adminDiscountStatus(deps(), post({ to: 'ended' }), jar, code.id),
        await adminOfferGet(deps(), jar),
        await adminOfferSave(deps(), post({ thresholdCents: 0, percent: 50, active: true, combines: true }), jar),
      ];
      for (const res of answers) {
        expect(res.status).toBe(404);
        expect(await res.json()).toEqual({ error: { code: 'not_found', message: 'Not found.' } });
      }
    }
    expect(await digest()).toEqual(before);
  });

  it('creates a code stored upper case, lists it with its uses, and records who created it', async () => {
    const code = await create({
      code: ' Welcome-Back ',
      kind: 'amount',
      amountCents: 500,
      percent: null,
      perCustomerLimit: 1,
      productIds: [7],
    });
    expect(code).toMatchObject({ code: 'WELCOME-BACK', kind: 'amount', amountCents: 500, percent: null, status: 'active' });
    expect(code).toMatchObject({ held: 0, used: 0, perCustomerLimit: 1 });
    const list = await read<{ codes: AdminCode[]; rule: string }>(adminDiscountsList(deps(), await owner()));
    expect(list.body.codes.find((c) => c.id === code.id)).toEqual(code);
    const [action] = await latestActions();
    expect(action).toMatchObject({ adminEmail: OWNER, action: 'discount.create', target: 'code WELCOME-BACK' });
    // In the log's words: products by name, and nothing about the rules left empty.
    expect(action?.after).toEqual({ kind: 'amount', amountCents: 500, perCustomerLimit: 1, products: ['Kojic Acid Soap'] });
  });

  it('refuses bad input in words, and changes nothing', async () => {
    const taken = await create({ code: 'TAKEN10' });
    const before = await digest();
    const cases: [Record<string, unknown> | string, number, RegExp][] = [
      [codeBody({ code: 'taken10' }), 409, /already a code TAKEN10 .*any case/],
      [codeBody({ percent: 0 }), 400, /percent off must be a whole number from 1 to 100/],
      [codeBody({ percent: 101 }), 400, /percent off must be a whole number from 1 to 100/],
      [codeBody({ percent: 12.5 }), 400, /percent off must be a whole number/],
      [codeBody({ percent: null }), 400, /percent off must be a whole number/],
      [codeBody({ kind: 'amount', amountCents: -500 }), 400, /amount off must be more than \$0/],
      [codeBody({ kind: 'amount', amountCents: null }), 400, /needs the amount off/],
      [codeBody({ kind: 'bogo' }), 400, /kind must be/],
      [codeBody({ minSubtotalCents: 0 }), 400, /minimum subtotal must be more than \$0/],
      [codeBody({ usageLimit: 0 }), 400, /limit of uses must be at least 1/],
      [codeBody({ perCustomerLimit: 0 }), 400, /limit per customer must be at least 1/],
      [codeBody({ startsAt: '2030-06-02T10:00', endsAt: '2030-06-01T10:00' }), 400, /end must be after the start/],
      [codeBody({ startsAt: '2030-06-01T10:00', endsAt: '2030-06-01T10:00' }), 400, /end must be after the start/],
      [codeBody({ endsAt: '2020-01-01T00:00' }), 400, /end is in the past/],
      [codeBody({ startsAt: '2030-02-30T10:00' }), 400, /start is not a real day and time/],
      [codeBody({ startsAt: '2030-06-01 10:00' }), 400, /YYYY-MM-DDTHH:MM/],
      [codeBody({ productIds: [4242] }), 400, /no product 4242 in the catalogue/],
      [codeBody({ productIds: ['7'] }), 400, /product id/],
      [codeBody({ categories: ['Soap & <b>Co</b>'] }), 400, /no category “Soap & <b>Co<\/b>”/],
      [codeBody({ code: '<script>alert(1)</script>' }), 400, /^A code is 3 to 32 letters or digits/],
      [codeBody({ code: 'AB' }), 400, /^A code is 3 to 32/],
      ['{"code":', 400, /not valid JSON/],
    ];
    for (const [body, status, message] of cases) {
      const answer = await read<{ error: { message: string } }>(adminDiscountCreate(deps(), post(body), await owner()));
      expect(answer.status, JSON.stringify(body)).toBe(status);
      expect(answer.body.error.message, JSON.stringify(body)).toMatch(message);
    }
    // The same rules on an edit, and an unknown or malformed id.
    for (const over of [{ percent: 0 }, { usageLimit: 0 }, { productIds: [4242] }, { endsAt: '2020-01-01T00:00' }]) {
      expect((await edit(taken.id, rulesOf(taken, over))).status, JSON.stringify(over)).toBe(400);
    }
    expect((await edit(randomUUID(), rulesOf(taken))).status).toBe(404);
    expect((await edit('1 or 1=1', rulesOf(taken))).status).toBe(404);
    expect((await setStatus(randomUUID(), 'paused')).status).toBe(404);
    expect((await read(adminDiscountGet(deps(), await owner(), 'offer'))).status).toBe(404);
    expect(await digest()).toEqual(before);
  });

  it('refuses a body over the limit before reading it, and one that is no JSON', async () => {
    const before = await digest();
    const big = new Request(`${SHOP}/api/admin/discounts`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-length': String(64 * 1024) },
      body: JSON.stringify(codeBody({ categories: Array.from({ length: 4000 }, () => 'Body Soap') })),
    });
    expect((await read(adminDiscountCreate(deps(), big, await owner()))).status).toBe(413);
    const form = new Request(`${SHOP}/api/admin/discounts`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'code=FREE&kind=percent&percent=100',
    });
    expect((await read(adminDiscountCreate(deps(), form, await owner()))).status).toBe(415);
    expect(await digest()).toEqual(before);
  });

  it('takes a start and an end on the shop’s clock, products and categories as the catalogue spells them', async () => {
    const code = await create({
      startsAt: '2030-12-24T09:00',
      endsAt: '2031-03-09T02:30',
      productIds: [7, 3, 7],
      categories: ['body butter', 'HAIR OIL'],
      usageLimit: 10,
    });
    // 9 am in New York in winter is 2 pm UTC; 2:30 am on the day the clocks skip to 3 am is 3:30 am daylight time.
    expect(code.startsAt).toBe('2030-12-24T14:00:00.000000Z');
    expect(code.endsAt).toBe('2031-03-09T07:30:00.000000Z');
    expect(instantToWall(code.startsAt ?? '', NY)).toBe('2030-12-24T09:00');
    expect(code.productIds).toEqual([3, 7]);
    expect(code.categories).toEqual(['Body Butter', 'hair oil']);
  });

  it('edits a code’s rules, records only what changed, and refuses an edit made from an older page', async () => {
    const code = await create({ percent: 10, usageLimit: 100 });
    const saved = await edit(code.id, rulesOf(code, { percent: 25, usageLimit: 50 }));
    expect(saved).toMatchObject({ status: 200, body: { changed: true, message: `Code ${code.code} saved.` } });
    const [action] = await latestActions();
    expect(action).toMatchObject({
      adminEmail: OWNER,
      action: 'discount.edit',
      target: `code ${code.code}`,
      before: { percent: 10, usageLimit: 100 },
      after: { percent: 25, usageLimit: 50 },
    });
    // The page the owner loaded before that save is out of date: refused, nothing written.
    const before = await digest();
    const stale = await edit(code.id, rulesOf(code, { percent: 30 }));
    expect(stale).toMatchObject({ status: 409, body: { error: { code: 'changed' } } });
    expect(await digest()).toEqual(before);
    // Saved again as it is: nothing to do, nothing recorded.
    const now = (saved.body as { code: AdminCode }).code;
    expect(await edit(now.id, rulesOf(now))).toMatchObject({ status: 200, body: { changed: false } });
    expect(await digest()).toEqual(before);
    // Switched to free shipping: the percent goes.
    const free = await edit(now.id, rulesOf(now, { kind: 'free_shipping' }));
    expect((free.body as { code: AdminCode }).code).toMatchObject({ kind: 'free_shipping', percent: null, amountCents: null });
  });

  it('pauses, resumes and ends a code, each recorded; an ended code cannot be resumed or edited', async () => {
    const code = await create();
    expect(await setStatus(code.id, 'paused')).toMatchObject({
      status: 200,
      body: { changed: true, code: { status: 'paused' } },
    });
    expect(await setStatus(code.id, 'paused')).toMatchObject({ status: 200, body: { changed: false } });
    expect(await setStatus(code.id, 'active')).toMatchObject({
      status: 200,
      body: { changed: true, code: { status: 'active' } },
    });
    expect(await setStatus(code.id, 'ended')).toMatchObject({ status: 200, body: { changed: true, code: { status: 'ended' } } });
    const actions = await latestActions(3);
    expect(actions.map((a) => [a.action, a.before, a.after, a.adminEmail])).toEqual([
      ['discount.end', 'active', 'ended', OWNER],
      ['discount.resume', 'paused', 'active', OWNER],
      ['discount.pause', 'active', 'paused', OWNER],
    ]);
    const before = await digest();
    expect(await setStatus(code.id, 'active')).toMatchObject({ status: 409, body: { error: { code: 'ended' } } });
    const ended = (await report(code.id)).code;
    expect(await edit(code.id, rulesOf(ended, { percent: 50 }))).toMatchObject({ status: 409 });
    expect((await setStatus(code.id, 'deleted')).status).toBe(400);
    expect(await digest()).toEqual(before);
  });

  it('sets the automatic offer, answers the rule shoppers read, records the change, and refuses a bad one', async () => {
    const start = await read<{ offer: { version: string }; rule: string }>(adminOfferGet(deps(), await owner()));
    expect(start.body.rule).toBe(SHOPPER_RULES.better);
    const saved = await read<{ changed: boolean; offer: Record<string, unknown>; rule: string }>(
      adminOfferSave(
        deps(),
        post({ thresholdCents: 7500, percent: 12, active: true, combines: true, version: start.body.offer.version }),
        await owner(),
      ),
    );
    expect(saved.body).toMatchObject({
      changed: true,
      offer: { thresholdCents: 7500, percent: 12, active: true, combines: true },
    });
    expect(saved.body.rule).toBe(SHOPPER_RULES.combines);
    const [action] = await latestActions();
    expect(action).toMatchObject({ adminEmail: OWNER, action: 'offer.edit', target: 'automatic offer' });
    expect(action?.after).toEqual({ thresholdCents: 7500, percent: 12, active: true, combines: true });
    const before = await digest();
    for (const body of [
      { thresholdCents: 7500, percent: 0, active: true, combines: true },
      { thresholdCents: -1, percent: 10, active: true, combines: true },
      { thresholdCents: 100, percent: 10, active: 'yes', combines: true },
      { thresholdCents: 100, percent: 10, active: true, combines: false, version: start.body.offer.version },
    ])
      expect((await read(adminOfferSave(deps(), post(body), await owner()))).status, JSON.stringify(body)).toBeGreaterThanOrEqual(
        400,
      );
    expect(await digest()).toEqual(before);
    await asService(db, (tx) => tx.query(`update public.discount_offer set active = false, combines = false`));
  });
});

/** A checkout and an order placed with `code`, as the checkout records them, and the code's use of it. */
async function orderWith(
  code: AdminCode,
  { discount = 1000, offer = 0, waived = 0, state = 'used', status = 'processing' } = {},
) {
  return asService(db, async (tx) => {
    const subtotal = 5000;
    const shipping = waived > 0 ? 0 : 800;
    const tax = Math.round((subtotal - discount) * 0.089);
    const total = subtotal - discount + shipping + tax;
    // A use still held has no order yet: its payment is open.
    const [order] = await tx.query<{ id: string }>(
      `insert into public.orders (customer_email, customer_name, subtotal_cents, shipping_cents, tax_cents, total_cents,
         payment_intent_id, shipping_address, shipping_method, status, discount_code, discount_cents, offer_cents,
         shipping_discount_cents)
       select 'ann@example.com', 'Ann Lee', $1, $2, $3, $4, $5, '{}', '{}', $6, $7, $8, $9, $10 where $11
       returning id::text`,
      [subtotal, shipping, tax, total, `pi_${randomUUID()}`, status, code.code, discount, offer, waived, state === 'used'],
    );
    const [checkout] = await tx.query<{ id: string }>(
      `insert into public.checkouts (lines, address, rate, parcel_weight_lb, subtotal_cents, shipping_cents, tax_cents,
         total_cents, content_hash, discount_code, discount_cents, offer_cents, shipping_discount_cents, order_id)
       values ('[]', '{}', '{}', 1, $1, $2, $3, $4, 'x', $5, $6, $7, $8, $9) returning id::text`,
      [subtotal, shipping, tax, total, code.code, discount, offer, waived, order?.id ?? null],
    );
    await tx.query(
      `insert into public.discount_redemptions (code_id, checkout_id, order_id, email_normalised, state, amount_cents,
         expires_at, used_at)
       values ($1, $2, $3, 'ann@example.com', $4, $5, now() + interval '15 minutes', $6)`,
      [
        code.id,
        checkout?.id,
        order?.id ?? null,
        state,
        discount - offer + waived,
        state === 'used' ? new Date().toISOString() : null,
      ],
    );
    return { orderId: order?.id ?? '', total };
  });
}

describe(`a code’s page on ${TEST_DATABASE_KIND}`, { timeout: 30_000 }, () => {
  it('shows its uses held and used, its orders, their revenue and the discount given; an edit rewrites none of it', async () => {
    const code = await create({ usageLimit: 5 });
    const a = await orderWith(code, { discount: 1000 });
    const b = await orderWith(code, { discount: 1500, offer: 500, waived: 800 });
    const cancelled = await orderWith(code, { discount: 700, status: 'cancelled' });
    await asService(db, (tx) =>
      tx.query(`insert into public.order_refunds (refund_id, order_id, amount_cents, status) values ($1, $2, 300, 'succeeded')`, [
        `re_${randomUUID()}`,
        a.orderId,
      ]),
    );
    // One use held by a payment still open; one whose hold has lapsed, which no longer counts.
    await orderWith(code, { state: 'held' });
    await orderWith(code, { state: 'held' }).then(() =>
      asService(db, (tx) =>
        tx.query(
          `update public.discount_redemptions set expires_at = now() - interval '1 minute'
            where id = (select id from public.discount_redemptions where code_id = $1 and state = 'held' order by held_at desc, id limit 1)`,
          [code.id],
        ),
      ),
    );
    const first = await report(code.id);
    expect(first.code).toMatchObject({ used: 3, held: 1 });
    expect(first.orderCount).toBe(2);
    expect(first.revenueCents).toBe(a.total - 300 + b.total);
    // The code's part: its goods' discount less the offer's part, and the shipping it waived.
    expect(first.discountGivenCents).toBe(1000 + (1500 - 500 + 800));
    expect(first.orders.map((o) => o.id).sort()).toEqual([a.orderId, b.orderId, cancelled.orderId].sort());
    expect(first.orders.find((o) => o.id === a.orderId)).toMatchObject({ refundedCents: 300, discountCents: 1000 });

    const orders = () => db.query(`select * from public.orders where discount_code = $1 order by id`, [code.code]);
    const charged = await orders();
    const edited = await edit(code.id, rulesOf(first.code, { percent: 50, usageLimit: 1 }));
    expect(edited.status).toBe(200);
    expect(await orders()).toEqual(charged);
    const after = await report(code.id);
    expect(after).toMatchObject({
      orderCount: first.orderCount,
      revenueCents: first.revenueCents,
      discountGivenCents: first.discountGivenCents,
      code: { used: 3, held: 1, percent: 50, usageLimit: 1 },
    });
  });
});

/** An order bought through the checkout with `code`, paid with the TEST MODE card that succeeds. */
async function buyWith(code: string, email: string) {
  const payments = createTestProcessor(db);
  const lines = [{ productId: 7, quantity: 2, selectedColor: null, selectedSize: null }];
  const address = {
    name: 'Ann Lee',
    email,
    street1: '12 Bull St',
    city: 'Savannah',
    state: 'GA',
    zip: '31401',
    country: 'US' as const,
  };
  const quoted = await quoteRates(db, createRateTableShipping(), catalogue, { toAddress: address, lines });
  if (!quoted.ok) throw new Error(quoted.message);
  const rate = quoted.rates[0];
  if (!rate) throw new Error('no rate');
  const started = await startCheckout(db, payments, catalogue, null, { lines, address, rateId: rate.id, discountCode: code });
  if (!started.ok) throw new Error(started.message);
  await payments.confirm(started.clientSecret, { number: '4242424242424242', expMonth: 12, expYear: 2034, cvc: '123' });
  const recorded = await recordOrder(db, payments, started.paymentIntentId);
  if (!recorded.ok) throw new Error(recorded.message);
  return { id: recorded.order.id, rateCents: rate.amountCents };
}

describe(`a code’s page after real checkouts on ${TEST_DATABASE_KIND}`, { timeout: 60_000 }, () => {
  it('counts what the checkout recorded: the order, its total, and the code’s saving as its use holds it', async () => {
    const percent = await create({ percent: 20 });
    const free = await create({ kind: 'free_shipping', percent: null });
    const a = await buyWith(percent.code.toLowerCase(), 'ann.page@example.com');
    const b = await buyWith(free.code, 'bea.page@example.com');
    for (const [code, order] of [
      [percent, a],
      [free, b],
    ] as const) {
      const page = await report(code.id);
      const [row] = await db.query<{ total_cents: number; saved: number }>(
        `select o.total_cents, r.amount_cents as saved
           from public.orders o join public.discount_redemptions r on r.order_id = o.id where o.id = $1`,
        [order.id],
      );
      expect(page.code).toMatchObject({ used: 1, held: 0 });
      expect(page.orders.map((o) => o.id)).toEqual([order.id]);
      expect(page.orderCount).toBe(1);
      expect(page.revenueCents).toBe(row?.total_cents);
      // What the page says the code gave is what its use recorded it saved.
      expect(page.discountGivenCents).toBe(row?.saved);
      expect(page.discountGivenCents).toBeGreaterThan(0);
    }
    // 20% of two soaps; the free-shipping code's saving is the rate it waived.
    expect((await report(percent.id)).discountGivenCents).toBe(
      Math.floor(((catalogue.get(7)?.priceCents ?? 0) * 2 * 20 + 50) / 100),
    );
    expect((await report(free.id)).discountGivenCents).toBe(b.rateCents);
  });
});
