// Orders bought through the checkout and paid with the test processor, accounts signed in through the built-in
// accounts, and the admin's order endpoints' dependencies: what the suites of the admin's order work share.
import type { AdminOrderDeps } from '@/features/admin/orders/order-routes.server';
import { recordOrder } from '@/features/checkout/order.server';
import { quoteRates } from '@/features/checkout/rates.server';
import { startCheckout } from '@/features/checkout/start-checkout.server';
import type { CookieJar } from '@/server/auth/auth.port';
import { createBuiltInAuth, SESSION_COOKIE } from '@/server/auth/builtin.server';
import type { Database } from '@/server/db/database.server';
import { asService } from '@/server/db/roles.server';
import { createTestProcessor } from '@/server/payments/test-processor.server';
import { createRateTableShipping } from '@/server/shipping/rate-table.server';
import { loadCatalogueIndex } from '../unit/load-catalogue';
import { browser } from './browser';

export const SHOP = 'http://shop.test';
const PASSWORD = 'lavender-fields';
const card = { number: '4242424242424242', expMonth: 12, expYear: 2034, cvc: '123' };
export type Line = { productId: number; quantity: number; selectedColor: string | null; selectedSize: string | null };
export const soap: Line = { productId: 7, quantity: 1, selectedColor: null, selectedSize: null };
export const SAVANNAH = { name: 'Grace Hopper', street1: '12 Bull St', city: 'Savannah', state: 'GA', zip: '31401' };

export interface Account {
  id: string;
  email: string;
  /** A browser signed in as this account. */
  jar: () => CookieJar;
}

/** The fixtures of one suite's database. */
export function orderFixtures(db: Database, adminEmail = 'owner@admins.example') {
  const catalogue = loadCatalogueIndex();
  const auth = () => createBuiltInAuth({ db, secureCookies: false });
  let n = 0;
  let owner: Account | undefined;

  const deps = (over: Partial<AdminOrderDeps> = {}): AdminOrderDeps => ({
    db,
    auth: auth(),
    adminEmails: [adminEmail],
    payments: createTestProcessor(db),
    nudgeOutbox: () => {},
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

  async function admin(): Promise<Account> {
    owner ??= await signedIn(adminEmail);
    return owner;
  }

  /** An order bought through the checkout and paid with a card that succeeds (a guest's when `userId` is null). */
  async function buy({ userId = null, lines = [soap] }: { userId?: string | null; lines?: Line[] } = {}) {
    const processor = createTestProcessor(db);
    const address = { ...SAVANNAH, email: 'grace@example.com', country: 'US' as const };
    const quoted = await quoteRates(db, createRateTableShipping(), catalogue, { toAddress: address, lines });
    if (!quoted.ok) throw new Error(quoted.message);
    const rate = quoted.rates[0];
    if (!rate) throw new Error('no rate');
    const started = await startCheckout(db, processor, catalogue, userId, { lines, address, rateId: rate.id });
    if (!started.ok) throw new Error(started.message);
    await processor.confirm(started.clientSecret, card);
    const recorded = await recordOrder(db, processor, started.paymentIntentId, { userId });
    if (!recorded.ok) throw new Error(recorded.message);
    return { id: recorded.order.id, intentId: started.paymentIntentId };
  }

  return { catalogue, deps, signedIn, admin, buy };
}

export const post = (body: unknown = {}) =>
  new Request(`${SHOP}/api/admin/orders`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

export async function read(response: Response | Promise<Response>) {
  const res = await response;
  return { status: res.status, body: (await res.json()) as Record<string, unknown> & { error?: Record<string, string> } };
}
