// What the returns suites share: accounts signed in through the built-in accounts, orders bought through the checkout
// and paid with the test processor, shipped or delivered as the admin would, and the endpoints' requests.
import type { AdminOrderDeps } from '@/features/admin/orders/order-routes.server';
import { recordOrder } from '@/features/checkout/order.server';
import { quoteRates } from '@/features/checkout/rates.server';
import { startCheckout } from '@/features/checkout/start-checkout.server';
import type { ReturnDeps } from '@/features/returns/return-routes.server';
import type { CookieJar } from '@/server/auth/auth.port';
import { createBuiltInAuth, SESSION_COOKIE } from '@/server/auth/builtin.server';
import type { Database } from '@/server/db/database.server';
import { asService } from '@/server/db/roles.server';
import { createTestProcessor } from '@/server/payments/test-processor.server';
import { createRateTableShipping } from '@/server/shipping/rate-table.server';
import { loadCatalogueIndex } from '../unit/load-catalogue';
import { browser } from './browser';

export const SHOP = 'http://shop.test';
export const OWNER = 'owner@admins.example';
const PASSWORD = 'lavender-fields';
const card = { number: '4242424242424242', expMonth: 12, expYear: 2034, cvc: '123' };
export const catalogue = loadCatalogueIndex();

export type Line = { productId: number; quantity: number; selectedColor: string | null; selectedSize: string | null };
export const SOAP: Line = { productId: 7, quantity: 1, selectedColor: null, selectedSize: null };
export const BUTTER: Line = { productId: 5, quantity: 2, selectedColor: null, selectedSize: null };
/** Final sale in the catalogue: bought as such, it cannot be returned. */
export const OIL: Line = { productId: 6, quantity: 1, selectedColor: null, selectedSize: null };
export const SCRUBS: Line = { productId: 3, quantity: 1, selectedColor: 'blue', selectedSize: 'M' };

export interface Account {
  id: string;
  email: string;
  jar: () => CookieJar;
}

/** The helpers of one suite, on its database. */
export function returnFixtures(db: Database) {
  const auth = () => createBuiltInAuth({ db, secureCookies: false });
  const payments = () => createTestProcessor(db);
  let nudges = 0;
  let n = 0;

  const returnDeps = (over: Partial<ReturnDeps> = {}): ReturnDeps => ({
    db,
    auth: auth(),
    catalogue: async () => catalogue,
    nudgeOutbox: () => {
      nudges++;
    },
    timeZone: 'America/New_York',
    ...over,
  });

  const adminDeps = (over: Partial<AdminOrderDeps> = {}): AdminOrderDeps => ({
    db,
    auth: auth(),
    adminEmails: [OWNER],
    payments: payments(),
    nudgeOutbox: () => {
      nudges++;
    },
    timeZone: 'America/New_York',
    catalogue: async () => catalogue,
    ...over,
  });

  /** A verified account of the built-in accounts, signed in once. */
  async function signedIn(email = `shopper.${++n}.${Date.now()}@example.com`): Promise<Account> {
    await auth().signUp({ email, password: PASSWORD, firstName: 'Ann', lastName: 'Lee' }, { origin: SHOP });
    await asService(db, (tx) => tx.query(`update auth.users set email_confirmed_at = now() where email = $1`, [email]));
    const first = browser();
    const login = await auth().signIn({ email, password: PASSWORD }, first);
    if (!login.ok) throw new Error(login.error.message);
    const token = first.getAll().find((c) => c.name === SESSION_COOKIE)?.value ?? '';
    return { id: login.value.id, email, jar: () => browser({ [SESSION_COOKIE]: token }) };
  }

  // The promise, not the account: clicks made at once all wait for the one sign-up.
  let owner: Promise<Account> | undefined;
  const admin = (): Promise<Account> => {
    owner ??= signedIn(OWNER);
    return owner;
  };

  /** An order bought through the checkout and paid (a guest's when `userId` is null): its id, items and link token. */
  async function buy(userId: string | null, lines: Line[] = [SOAP, BUTTER], discountCode?: string) {
    const processor = payments();
    const address = {
      name: 'Grace Hopper',
      email: 'grace@example.com',
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
    const started = await startCheckout(db, processor, catalogue, userId, {
      lines,
      address,
      rateId: rate.id,
      ...(discountCode ? { discountCode } : {}),
    });
    if (!started.ok) throw new Error(started.message);
    await processor.confirm(started.clientSecret, card);
    const recorded = await recordOrder(db, processor, started.paymentIntentId, { userId });
    if (!recorded.ok) throw new Error(recorded.message);
    const id = recorded.order.id;
    const items = await db.query<{ id: string; product_id: number; quantity: number }>(
      'select id::text, product_id, quantity from public.order_items where order_id = $1 order by id',
      [id],
    );
    const [job] = await db.query<{ token: string }>(
      `select payload ->> 'accessToken' as token from public.outbox where dedupe_key = $1`,
      [`mail:customer:${id}`],
    );
    return { id, items, token: job?.token ?? '', totalCents: started.amountCents, intentId: started.paymentIntentId };
  }

  /** Marks the order shipped (and delivered), as the admin does, `daysAgo` days back. */
  async function ship(orderId: string, { delivered = true, daysAgo = 2 }: { delivered?: boolean; daysAgo?: number } = {}) {
    await db.query(`update public.orders set status = 'shipped' where id = $1`, [orderId]);
    if (delivered) await db.query(`update public.orders set status = 'delivered' where id = $1`, [orderId]);
    await db.query(
      `update public.orders set shipped_at = now() - make_interval(days => $2), delivered_at = case when delivered_at is null
         then null else now() - make_interval(days => $2) end where id = $1`,
      [orderId, daysAgo],
    );
  }

  const post = (body: unknown, path = '/api/returns') =>
    new Request(`${SHOP}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });

  return { auth, payments, returnDeps, adminDeps, signedIn, admin, buy, ship, post, nudges: () => nudges };
}

export async function read(response: Response | Promise<Response>) {
  const res = await response;
  const type = res.headers.get('content-type') ?? '';
  return { status: res.status, body: type.includes('json') ? await res.json() : null, type };
}
