/**
 * The shop's /api routes in-process, as the built server runs them: src/middleware.ts in front of every endpoint module
 * under src/pages/api, dispatched the way Astro does (a path pattern per file, the handler named after the method,
 * HEAD with GET), cookies kept in a browser jar between calls. The services are real (built-in accounts, the test
 * payment processor, the rate-table shipping) on a fresh database (PGlite, or PostgreSQL with TEST_DATABASE_URL), save
 * the e-mail, which is recorded instead of sent (test-shop.ts).
 *
 * The reliability project's setup file (setup.ts, vitest.config.ts) puts the test shop's services and the catalogue in
 * place before each file runs: a test file here only imports this harness.
 */
import type { APIContext, MiddlewareHandler } from 'astro';
import type { CookieOptions } from '@/server/auth/auth.port';
import type { Database } from '@/server/db/database.server';
import { asService } from '@/server/db/roles.server';
import { browser } from '../db/browser';
import { ORIGIN, type TestShop } from './test-shop';

export { ADMIN_EMAIL, ORIGIN, startShop, stopShop, type TestShop } from './test-shop';

type Module = Record<string, unknown>;
interface Route {
  pattern: string;
  regex: RegExp;
  params: string[];
  module: Module;
}

const modules = import.meta.glob<Module>('/src/pages/api/**/*.ts', { eager: true });

/** Every endpoint: its route pattern (as Astro names it), and the module. Static segments win over parameters. */
export const ROUTES: Route[] = Object.entries(modules)
  .map(([file, module]) => {
    const pattern = file
      .replace(/^\/src\/pages/, '')
      .replace(/\.ts$/, '')
      .replace(/\/index$/, '');
    const params = [...pattern.matchAll(/\[(\w+)\]/g)].map((m) => m[1] ?? '');
    const regex = new RegExp(`^${pattern.replace(/\./g, '\\.').replace(/\[\w+\]/g, '([^/]+)')}$`);
    return { pattern, regex, params, module };
  })
  .sort((a, b) => a.params.length - b.params.length || a.pattern.localeCompare(b.pattern));

/** The methods a route's module exports (what Astro dispatches). */
export function exportedMethods(route: Route): string[] {
  return ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'].filter((m) => typeof route.module[m] === 'function');
}

export type Browser = ReturnType<typeof browser>;
export { browser };

let middleware: MiddlewareHandler | undefined;

/**
 * Sends `request` through the middleware to its endpoint, as a browser holding `jar`'s cookies (which the answer's
 * cookies update), from `clientAddress`. An exception out of a handler is Astro's 500 (also returned, not thrown).
 */
export async function call(
  request: Request,
  { jar = browser(), clientAddress = '127.0.0.1' }: { jar?: Browser; clientAddress?: string } = {},
): Promise<Response> {
  middleware ??= (await import('@/middleware')).onRequest;
  const cookieHeader = jar
    .getAll()
    .map(({ name, value }) => `${name}=${encodeURIComponent(value)}`)
    .join('; ');
  const headers = new Headers(request.headers);
  if (cookieHeader) headers.set('cookie', cookieHeader);
  const sent = new Request(request, { headers });
  const url = new URL(sent.url);
  let path = url.pathname;
  try {
    path = decodeURI(path);
  } catch {
    // Astro matches the raw path when it does not decode.
  }
  const route = ROUTES.find((r) => r.regex.test(path));
  const values = route ? (route.regex.exec(path)?.slice(1) ?? []) : [];
  const params = Object.fromEntries(route?.params.map((name, i) => [name, values[i]]) ?? []);
  const cookies = {
    set: (name: string, value: string, options: CookieOptions) => jar.set(name, value, options),
  };
  const context = {
    request: sent,
    url,
    params,
    cookies,
    clientAddress,
    routePattern: route?.pattern ?? '/404',
    locals: {},
    redirect: (location: string, status = 302) => new Response(null, { status, headers: { location } }),
  } as unknown as APIContext;
  const endpoint = async (): Promise<Response> => {
    if (!route)
      return new Response('<!doctype html><title>404</title>', { status: 404, headers: { 'content-type': 'text/html' } });
    const method = sent.method.toUpperCase();
    const handler = route.module[method] ?? route.module.ALL ?? (method === 'HEAD' ? route.module.GET : undefined);
    // Astro's answer for a method the module does not export: an empty 404, which becomes its HTML 404 page.
    if (typeof handler !== 'function') return new Response(null, { status: 404 });
    const response = (await handler(context)) as Response;
    return method === 'HEAD' ? new Response(null, response) : response;
  };
  try {
    return (await middleware(context, endpoint)) as Response;
  } catch (error) {
    return new Response(`500: ${error instanceof Error ? error.stack : String(error)}`, { status: 500 });
  }
}

/** A JSON request from our own pages (Origin set). */
export function apiRequest(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Request {
  return new Request(`${ORIGIN}${path}`, {
    method,
    headers: { origin: ORIGIN, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    body: body === undefined ? null : JSON.stringify(body),
  });
}

/** A signed-in shopper: signed up, verified and logged in through the accounts port; `jar` holds the session. */
export async function signedIn(shop: TestShop, email: string, password = 'lavender-fields-42'): Promise<Browser> {
  const { auth } = shop.services;
  const signup = await auth.signUp({ email, password, firstName: 'Test', lastName: 'Shopper' }, { origin: ORIGIN });
  if (!signup.ok) throw new Error(`sign-up failed for ${email}`);
  const rows = await asService(shop.db, (tx) =>
    tx.query<{ text: string }>(
      `select payload ->> 'text' as text from public.outbox where kind = 'email' and payload ->> 'to' = $1 order by id desc limit 1`,
      [email],
    ),
  );
  const token = /token=([\w-]+)/.exec(rows[0]?.text ?? '')?.[1];
  if (!token) throw new Error(`no verification mail for ${email}`);
  if (!(await auth.verifyEmail({ token, password })).ok) throw new Error(`verification failed for ${email}`);
  const jar = browser();
  if (!(await auth.signIn({ email, password }, jar)).ok) throw new Error(`login failed for ${email}`);
  return jar;
}

/**
 * A digest of every table a request could write, as the superuser sees it; bookkeeping that a refused request may
 * legitimately touch is left out (rate-limit counters, a session's last activity).
 */
export const WATCHED_TABLES = [
  'admin_actions',
  'auth_tokens',
  'catalogue_pictures',
  'catalogue_publishes',
  'catalogue_revisions',
  'catalogue_seed_changes',
  'checkouts',
  'contact_messages',
  'customer_notes',
  'discount_codes',
  'discount_offer',
  'discount_redemptions',
  'newsletter_subscribers',
  'order_items',
  'order_labels',
  'order_notes',
  'order_refunds',
  'orders',
  'outbox',
  'processed_webhook_events',
  'product_likes',
  'product_reviews',
  'shipping_quotes',
  'shop_admins',
  'shop_editors',
  'stock_holds',
  'stock_levels',
  'stock_settings',
  'stock_sales',
  'test_payment_intents',
  'test_refunds',
  'user_carts',
  'user_favorites',
] as const;

export async function tableDigest(db: Database): Promise<Record<string, string>> {
  const select = WATCHED_TABLES.map(
    (t) => `(select md5(coalesce(string_agg(r::text, '|' order by r::text), '')) from public.${t} r) as ${t}`,
  ).join(', ');
  const [row] = await db.query<Record<string, string>>(`select ${select}`);
  return row ?? {};
}

export const ADDRESS = {
  name: 'Ann Lee',
  email: 'ann.lee@example.com',
  street1: '5 Elm St',
  city: 'Austin',
  state: 'TX',
  zip: '78701',
  country: 'US',
};
export type WireLine = { productId: number; quantity: number; selectedColor: string | null; selectedSize: string | null };
export const SOAP: WireLine = { productId: 8, quantity: 2, selectedColor: null, selectedSize: null };

/** The JSON of an answer, with its status; throws when the status is not `expected`. */
export async function expectJson<T>(response: Promise<Response>, expected: number): Promise<T> {
  const res = await response;
  const text = await res.text();
  if (res.status !== expected) throw new Error(`expected ${expected}, got ${res.status}: ${text}`);
  return JSON.parse(text) as T;
}

export interface OpenedCheckout {
  client_secret: string;
  paymentIntentId: string;
  amountCents: number;
  totals: Record<string, number>;
}

/** A checkout opened through the API as the checkout drawer does: rates quoted, a payment opened for the first one. */
export async function openCheckout(
  jar: Browser,
  lines: WireLine[] = [SOAP],
  extra: Record<string, unknown> = {},
  address: Record<string, unknown> = ADDRESS,
): Promise<OpenedCheckout> {
  const { rates } = await expectJson<{ rates: { object_id: string }[] }>(
    call(apiRequest('POST', '/api/shippo-rates', { toAddress: address, lines }), { jar }),
    200,
  );
  const rateId = rates[0]?.object_id;
  return expectJson<OpenedCheckout>(
    call(apiRequest('POST', '/api/create-payment-intent', { lines, address, rateId, ...extra }), { jar }),
    200,
  );
}

/** Pays an opened checkout with the TEST MODE card that succeeds. */
export async function pay(checkout: OpenedCheckout): Promise<void> {
  const card = { clientSecret: checkout.client_secret, number: '4242424242424242', expMonth: 12, expYear: 30, cvc: '123' };
  await expectJson(call(apiRequest('POST', '/api/test-payments/confirm', card)), 200);
}

/** Opens, pays and confirms a checkout: the recorded order's id. */
export async function purchase(jar: Browser, lines: WireLine[] = [SOAP]): Promise<{ orderId: string; checkout: OpenedCheckout }> {
  const checkout = await openCheckout(jar, lines);
  await pay(checkout);
  const { order } = await expectJson<{ order: { id: string } }>(
    call(apiRequest('POST', '/api/orders/confirm', { paymentIntentId: checkout.paymentIntentId }), { jar }),
    201,
  );
  return { orderId: order.id, checkout };
}
