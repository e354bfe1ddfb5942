/**
 * The row-level-security matrix: every table in schema public × {guest, user A, user B, service_role} ×
 * {select, insert, update, delete}. Read `matrix` below as the policy sheet; the tests after it only execute it.
 *
 * How each cell is probed (every probe in a transaction of its own, started from the seeded rows):
 * - select: `select key from <table>` → exactly these seeded rows come back, or the statement is refused.
 * - insert: each listed row is inserted into the emptied table → it is stored (OK), or refused by privileges (DENIED:
 *   42501 "permission denied") or by a policy (RLS: 42501 "new row violates row-level security policy").
 * - update / delete: every seeded row is targeted in turn (`where key = …  returning key`) → the listed rows are the
 *   ones that change (1 row affected); for every other row 0 rows are affected; service_role then reads the table
 *   back to confirm exactly that. DENIED means every such statement is refused and nothing changes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '@/server/db/database.server';
import {
  type Actor,
  actorName,
  actors,
  attempt,
  createProducts,
  createUsers,
  DENIED,
  insertSql,
  OK,
  type Outcome,
  outcomeOf,
  RLS,
  snapshot,
  sqlstateOf,
  userA,
  userB,
  type Values,
} from './rls-fixtures';
import { freshDatabase, TEST_DATABASE_KIND } from './test-database';

/** Every seeded row of the table. */
const ALL = 'all rows';

type PerActor<T> = Readonly<Record<Actor, T>>;
type Rows<R extends string> = readonly R[] | typeof ALL | typeof DENIED;

interface TablePolicy<R extends string, V extends string> {
  /** A text expression that identifies a row. */
  key: string;
  /**
   * Which of the table's rows the probes work on, as a condition (default: all). Rows outside it stay as they are:
   * the products the other tables' rows refer to.
   */
  scope?: string;
  /** Tables reset (re-seeded) before this one, because its rows refer to theirs. */
  dependsOn?: readonly string[];
  /** The rows present before every probe, by name. Inserted by the superuser, as a migration would. */
  rows: Readonly<Record<R, Values>>;
  /** The rows each role sees. */
  select: PerActor<Rows<NoInfer<R>>>;
  /** Rows each role tries to add to the emptied table, and what happens. */
  insert: { rows: Readonly<Record<V, Values>>; expect: PerActor<Readonly<Record<NoInfer<V>, Outcome>>> };
  /** Each assignment is tried on every seeded row; the rows each role actually changes. */
  update: { set: readonly string[]; expect: PerActor<Rows<NoInfer<R>>> };
  /** The rows each role actually deletes, targeting every seeded row in turn. */
  delete: PerActor<Rows<NoInfer<R>>>;
}

/** Infers the row and insert names of one table, so that a typo in an expectation does not compile. */
function policy<R extends string, V extends string>(spec: TablePolicy<R, V>): TablePolicy<string, string> {
  return spec;
}

const A = userA.id;
const B = userB.id;
const orderA = '00000000-0000-4000-8000-0000000000a1';
const orderB = '00000000-0000-4000-8000-0000000000b1';
const address = JSON.stringify({ name: 'Ann', line1: '1 Main St', city: 'Portland', postalCode: '97201', country: 'US' });
const method = JSON.stringify({ id: 'standard', label: 'Standard', amountCents: 0 });

const order = (user: string, paymentIntent: string): Values => ({
  id: user === A ? orderA : orderB,
  user_id: user,
  customer_email: user === A ? userA.email : userB.email,
  customer_name: 'Shopper',
  subtotal_cents: 10_000,
  shipping_cents: 0,
  tax_cents: 890,
  total_cents: 10_890,
  payment_intent_id: paymentIntent,
  shipping_address: address,
  shipping_method: method,
});
const orderItem = (orderId: string, productId: number): Values => ({
  order_id: orderId,
  product_id: productId,
  product_name: 'Linen Shirt',
  product_category: 'shirts',
  price_cents: 10_000,
  quantity: 1,
  product_sku: `SKU-${productId}`,
  image: '/images/p.jpg',
});
const cartRow = (user: string, productId: number): Values => ({
  user_id: user,
  cart_id: String(productId),
  product_id: productId,
  quantity: 1,
});
const favorite = (user: string, productId: number): Values => ({
  user_id: user,
  product_id: productId,
  product_name: 'Linen Shirt',
  product_image: '/images/p.jpg',
  product_price_cents: 10_000,
  product_category: 'shirts',
});
const review = (user: string | null, productId: number, approved: boolean): Values => ({
  product_id: productId,
  user_id: user,
  author: 'Shopper',
  rating: 5,
  comment: 'Lovely fabric',
  is_approved: approved,
  verified: false,
});
const newReview = (user: string | null): Values => ({ product_id: 303, user_id: user, rating: 4, comment: 'Fits well' });
const returnRow = (orderId: string, id: string): Values => ({
  id,
  order_id: orderId,
  request_key: id,
  reason: 'changed_mind',
  // An array, not its JSON text: postgres.js would store the text as a jsonb string.
  items: [{ itemId: '1', quantity: 1, condition: null, receivedAt: null }],
});
/** The save a repository's change is found against (made before the sheet runs, kept by catalogue_revisions' scope). */
const SEED_CHANGES_REVISION = 990_001;
const seedChange = (file: string): Values => ({
  file,
  seed_sha256: 'a'.repeat(64),
  seed_contents: '---\nid: 1\n---\n',
  base_sha256: 'none',
  revision_id: SEED_CHANGES_REVISION,
});
/** A time a shopper would like their row to have, rather than the database's. */
const backdated = '2020-01-01T00:00:00Z';

const testIntent = (id: string): Values => ({
  id,
  client_secret: `${id}_secret_x`,
  amount_cents: 10_890,
  idempotency_key: `create-${id}`,
});

/** What nobody but the server may touch. */
const serverOnly = {
  select: { anon: DENIED, A: DENIED, B: DENIED, service: ALL },
  insertExpect: { anon: { row: DENIED }, A: { row: DENIED }, B: { row: DENIED }, service: { row: OK } },
  update: { anon: DENIED, A: DENIED, B: DENIED, service: ALL },
  delete: { anon: DENIED, A: DENIED, B: DENIED, service: ALL },
} as const;

// The policy sheet ---------------------------------------------------------------------------------------------------

const matrix = {
  // The catalogue's products, synced by the server at start: everyone reads them, only the server writes them. The
  // probes work on products 900 to 999; the ones the other tables' rows refer to stay put.
  products: policy({
    key: 'id::text',
    scope: 'id between 900 and 999',
    rows: {
      sold: { id: 901, name: 'Rose Balm', in_catalogue: true },
      'no longer sold': { id: 902, name: 'Old Soap', in_catalogue: false },
    },
    select: { anon: ALL, A: ALL, B: ALL, service: ALL },
    insert: { rows: { row: { id: 903, name: 'Free Gift', in_catalogue: true } }, expect: serverOnly.insertExpect },
    update: { set: ['in_catalogue = not in_catalogue', `name = 'Free Gift'`], expect: serverOnly.update },
    delete: serverOnly.delete,
  }),

  // A shopper reads and writes only their own cart, and never its timestamp.
  user_carts: policy({
    key: `user_id::text || '/' || cart_id`,
    rows: { A: cartRow(A, 101), B: cartRow(B, 202) },
    select: { anon: DENIED, A: ['A'], B: ['B'], service: ALL },
    insert: {
      rows: {
        'for A': cartRow(A, 303),
        'for B': cartRow(B, 303),
        'for A, backdated': { ...cartRow(A, 303), updated_at: backdated },
      },
      expect: {
        anon: { 'for A': DENIED, 'for B': DENIED, 'for A, backdated': DENIED },
        A: { 'for A': OK, 'for B': RLS, 'for A, backdated': DENIED },
        B: { 'for A': RLS, 'for B': OK, 'for A, backdated': DENIED },
        service: { 'for A': OK, 'for B': OK, 'for A, backdated': OK },
      },
    },
    update: { set: ['quantity = quantity + 1'], expect: { anon: DENIED, A: ['A'], B: ['B'], service: ALL } },
    delete: { anon: DENIED, A: ['A'], B: ['B'], service: ALL },
  }),

  // Favorites: own rows only, dated by the database; a favorite is added or removed, never edited.
  user_favorites: policy({
    key: 'id::text',
    rows: { A: favorite(A, 101), B: favorite(B, 202) },
    select: { anon: DENIED, A: ['A'], B: ['B'], service: ALL },
    insert: {
      rows: {
        'for A': favorite(A, 303),
        'for B': favorite(B, 303),
        'for A, backdated': { ...favorite(A, 303), created_at: backdated },
      },
      expect: {
        anon: { 'for A': DENIED, 'for B': DENIED, 'for A, backdated': DENIED },
        A: { 'for A': OK, 'for B': RLS, 'for A, backdated': DENIED },
        B: { 'for A': RLS, 'for B': OK, 'for A, backdated': DENIED },
        service: { 'for A': OK, 'for B': OK, 'for A, backdated': OK },
      },
    },
    update: { set: ['product_price_cents = 0'], expect: { anon: DENIED, A: DENIED, B: DENIED, service: ALL } },
    delete: { anon: DENIED, A: ['A'], B: ['B'], service: ALL },
  }),

  // Likes: own rows only, dated by the database (everyone counts them through product_like_count, tested below).
  product_likes: policy({
    key: `user_id::text || '/' || product_id`,
    rows: { A: { product_id: 101, user_id: A }, B: { product_id: 101, user_id: B } },
    select: { anon: DENIED, A: ['A'], B: ['B'], service: ALL },
    insert: {
      rows: {
        'for A': { product_id: 303, user_id: A },
        'for B': { product_id: 303, user_id: B },
        'for A, backdated': { product_id: 303, user_id: A, created_at: backdated },
      },
      expect: {
        anon: { 'for A': DENIED, 'for B': DENIED, 'for A, backdated': DENIED },
        A: { 'for A': OK, 'for B': RLS, 'for A, backdated': DENIED },
        B: { 'for A': RLS, 'for B': OK, 'for A, backdated': DENIED },
        service: { 'for A': OK, 'for B': OK, 'for A, backdated': OK },
      },
    },
    update: { set: [`created_at = created_at - interval '1 day'`], expect: { anon: DENIED, A: DENIED, B: DENIED, service: ALL } },
    delete: { anon: DENIED, A: ['A'], B: ['B'], service: ALL },
  }),

  // Reviews: everyone reads approved ones, a shopper also their own pending ones. A shopper writes only as themselves,
  // only product, rating and comment (approval, author and the verified flag are not theirs to set), and never edits
  // or deletes. Author and verified are filled in by a trigger (tested below).
  product_reviews: policy({
    key: 'id::text',
    rows: {
      'A approved': review(A, 101, true),
      'A pending': review(A, 202, false),
      'B approved': review(B, 101, true),
      'B pending': review(B, 202, false),
      // Rejected by an admin: shown to nobody, its author included (it would otherwise await approval forever).
      'A rejected': { ...review(A, 202, false), rejected_at: backdated },
    },
    select: {
      anon: ['A approved', 'B approved'],
      A: ['A approved', 'A pending', 'B approved'],
      B: ['A approved', 'B approved', 'B pending'],
      service: ALL,
    },
    insert: {
      rows: {
        'by A': newReview(A),
        'by B': newReview(B),
        'without user_id': newReview(null),
        'by A, approved': { ...newReview(A), is_approved: true },
        'by A, verified': { ...newReview(A), verified: true },
        'by A, with an author': { ...newReview(A), author: 'Aurelia staff' },
        'by A, backdated': { ...newReview(A), created_at: backdated },
        'by A, rejected': { ...newReview(A), rejected_at: backdated },
      },
      expect: {
        anon: {
          'by A': DENIED,
          'by B': DENIED,
          'without user_id': DENIED,
          'by A, approved': DENIED,
          'by A, verified': DENIED,
          'by A, with an author': DENIED,
          'by A, backdated': DENIED,
          'by A, rejected': DENIED,
        },
        A: {
          'by A': OK,
          'by B': RLS,
          'without user_id': RLS,
          'by A, approved': DENIED,
          'by A, verified': DENIED,
          'by A, with an author': DENIED,
          'by A, backdated': DENIED,
          'by A, rejected': DENIED,
        },
        B: {
          'by A': RLS,
          'by B': OK,
          'without user_id': RLS,
          'by A, approved': DENIED,
          'by A, verified': DENIED,
          'by A, with an author': DENIED,
          'by A, backdated': DENIED,
          'by A, rejected': DENIED,
        },
        service: {
          'by A': OK,
          'by B': OK,
          'without user_id': OK,
          'by A, approved': OK,
          'by A, verified': OK,
          'by A, with an author': OK,
          'by A, backdated': OK,
          'by A, rejected': OK,
        },
      },
    },
    update: {
      set: [
        'is_approved = not is_approved, rejected_at = null',
        'is_approved = false, rejected_at = now()',
        `comment = comment || ' (edited)'`,
        'rating = 1',
      ],
      expect: { anon: DENIED, A: DENIED, B: DENIED, service: ALL },
    },
    delete: { anon: DENIED, A: DENIED, B: DENIED, service: ALL },
  }),

  // Orders: a shopper reads their own; only the server writes them (after a verified payment).
  orders: policy({
    key: 'id::text',
    rows: { A: order(A, 'pi_A'), B: order(B, 'pi_B') },
    select: { anon: DENIED, A: ['A'], B: ['B'], service: ALL },
    insert: {
      rows: { 'for A': order(A, 'pi_new_A'), 'for B': order(B, 'pi_new_B') },
      expect: {
        anon: { 'for A': DENIED, 'for B': DENIED },
        A: { 'for A': DENIED, 'for B': DENIED },
        B: { 'for A': DENIED, 'for B': DENIED },
        service: { 'for A': OK, 'for B': OK },
      },
    },
    update: {
      set: [`status = 'delivered'`, 'subtotal_cents = 0, total_cents = shipping_cents + tax_cents', 'user_id = null'],
      expect: { anon: DENIED, A: DENIED, B: DENIED, service: ALL },
    },
    delete: { anon: DENIED, A: DENIED, B: DENIED, service: ALL },
  }),

  // Order items: a shopper reads the items of their own orders; only the server writes them.
  order_items: policy({
    key: 'id::text',
    dependsOn: ['orders'],
    rows: { A: orderItem(orderA, 101), B: orderItem(orderB, 202) },
    select: { anon: DENIED, A: ['A'], B: ['B'], service: ALL },
    insert: {
      rows: { 'into A’s order': orderItem(orderA, 303), 'into B’s order': orderItem(orderB, 303) },
      expect: {
        anon: { 'into A’s order': DENIED, 'into B’s order': DENIED },
        A: { 'into A’s order': DENIED, 'into B’s order': DENIED },
        B: { 'into A’s order': DENIED, 'into B’s order': DENIED },
        service: { 'into A’s order': OK, 'into B’s order': OK },
      },
    },
    update: {
      set: ['quantity = quantity + 1', 'price_cents = 0'],
      expect: { anon: DENIED, A: DENIED, B: DENIED, service: ALL },
    },
    delete: { anon: DENIED, A: DENIED, B: DENIED, service: ALL },
  }),

  // Contact messages: anyone may send one (name, e-mail, message only); nobody but the shop reads or changes them.
  contact_messages: policy({
    key: 'id::text',
    rows: { message: { name: 'Ann', email: userA.email, message: 'Where is my parcel?' } },
    select: { anon: DENIED, A: DENIED, B: DENIED, service: ALL },
    insert: {
      rows: {
        message: { name: 'Guest', email: 'guest@example.com', message: 'Do you ship to Canada?' },
        backdated: { name: 'Guest', email: 'guest@example.com', message: 'Hello', created_at: '2020-01-01T00:00:00Z' },
        'marked read': { name: 'Guest', email: 'guest@example.com', message: 'Hello', read_at: '2020-01-01T00:00:00Z' },
      },
      expect: {
        anon: { message: OK, backdated: DENIED, 'marked read': DENIED },
        A: { message: OK, backdated: DENIED, 'marked read': DENIED },
        B: { message: OK, backdated: DENIED, 'marked read': DENIED },
        service: { message: OK, backdated: OK, 'marked read': OK },
      },
    },
    update: { set: [`message = 'edited'`, 'read_at = now()'], expect: { anon: DENIED, A: DENIED, B: DENIED, service: ALL } },
    delete: { anon: DENIED, A: DENIED, B: DENIED, service: ALL },
  }),

  // Newsletter: a shopper subscribes only themselves, only with the e-mail in their JWT (any case), reads and
  // unsubscribes only themselves, and never edits the address.
  newsletter_subscribers: policy({
    key: 'user_id::text',
    rows: { A: { user_id: A, email: userA.email }, B: { user_id: B, email: userB.email } },
    select: { anon: DENIED, A: ['A'], B: ['B'], service: ALL },
    insert: {
      rows: {
        'A with A’s e-mail': { user_id: A, email: userA.email },
        'A with A’s e-mail in capitals': { user_id: A, email: userA.email.toUpperCase() },
        'A with B’s e-mail': { user_id: A, email: userB.email },
        'B with B’s e-mail': { user_id: B, email: userB.email },
      },
      expect: {
        anon: {
          'A with A’s e-mail': DENIED,
          'A with A’s e-mail in capitals': DENIED,
          'A with B’s e-mail': DENIED,
          'B with B’s e-mail': DENIED,
        },
        A: {
          'A with A’s e-mail': OK,
          'A with A’s e-mail in capitals': OK,
          'A with B’s e-mail': RLS,
          'B with B’s e-mail': RLS,
        },
        B: {
          'A with A’s e-mail': RLS,
          'A with A’s e-mail in capitals': RLS,
          'A with B’s e-mail': RLS,
          'B with B’s e-mail': OK,
        },
        service: {
          'A with A’s e-mail': OK,
          'A with A’s e-mail in capitals': OK,
          'A with B’s e-mail': OK,
          'B with B’s e-mail': OK,
        },
      },
    },
    update: { set: [`email = 'someone@example.com'`], expect: { anon: DENIED, A: DENIED, B: DENIED, service: ALL } },
    delete: { anon: DENIED, A: ['A'], B: ['B'], service: ALL },
  }),

  // Server-only tables: no privilege at all for anon or authenticated, whoever the row is about.
  outbox: policy({
    key: 'id::text',
    rows: { job: { kind: 'email', payload: JSON.stringify({ to: userA.email }), dedupe_key: 'welcome:a' } },
    select: serverOnly.select,
    insert: { rows: { row: { kind: 'email', payload: JSON.stringify({ to: userB.email }) } }, expect: serverOnly.insertExpect },
    update: { set: ['attempts = attempts + 1', `last_error = 'x'`], expect: serverOnly.update },
    delete: serverOnly.delete,
  }),
  processed_webhook_events: policy({
    key: 'event_id',
    rows: { event: { event_id: 'evt_1' } },
    select: serverOnly.select,
    insert: { rows: { row: { event_id: 'evt_2' } }, expect: serverOnly.insertExpect },
    update: { set: [`processed_at = processed_at - interval '1 day'`], expect: serverOnly.update },
    delete: serverOnly.delete,
  }),
  rate_limits: policy({
    key: 'bucket',
    rows: { counter: { bucket: 'login:203.0.113.9', window_start: '2026-01-01T00:00:00Z', hits: 5 } },
    select: serverOnly.select,
    insert: {
      rows: { row: { bucket: 'login:198.51.100.7', window_start: '2026-01-01T00:00:00Z', hits: 1 } },
      expect: serverOnly.insertExpect,
    },
    update: { set: ['hits = 0'], expect: serverOnly.update },
    delete: serverOnly.delete,
  }),
  login_known_addresses: policy({
    key: 'key_hash',
    rows: { pair: { key_hash: 'a1b2' } },
    select: serverOnly.select,
    insert: { rows: { row: { key_hash: 'c3d4' } }, expect: serverOnly.insertExpect },
    update: { set: [`last_success_at = last_success_at - interval '1 day'`], expect: serverOnly.update },
    delete: serverOnly.delete,
  }),
  auth_sessions: policy({
    key: 'token_hash',
    rows: { 'A’s': { token_hash: 'session-a', user_id: A }, 'B’s': { token_hash: 'session-b', user_id: B } },
    select: serverOnly.select,
    insert: { rows: { row: { token_hash: 'session-a2', user_id: A } }, expect: serverOnly.insertExpect },
    update: { set: ['revoked_at = now()'], expect: serverOnly.update },
    delete: serverOnly.delete,
  }),
  auth_tokens: policy({
    key: 'token_hash',
    rows: {
      'A’s': { token_hash: 'token-a', user_id: A, purpose: 'reset_password', expires_at: '2030-01-01T00:00:00Z' },
      'B’s': { token_hash: 'token-b', user_id: B, purpose: 'verify_email', expires_at: '2030-01-01T00:00:00Z' },
    },
    select: serverOnly.select,
    insert: {
      rows: { row: { token_hash: 'token-a2', user_id: A, purpose: 'reset_password', expires_at: '2030-01-01T00:00:00Z' } },
      expect: serverOnly.insertExpect,
    },
    update: { set: ['used_at = now()', `expires_at = expires_at + interval '1 year'`], expect: serverOnly.update },
    delete: serverOnly.delete,
  }),
  shipping_quotes: policy({
    key: 'rate_id',
    rows: {
      quote: {
        rate_id: 'table_1',
        quote_key: 'k',
        provider: 'Aurelia',
        service: 'Standard',
        amount_cents: 1500,
        expires_at: '2030-01-01T00:00:00Z',
      },
    },
    select: serverOnly.select,
    insert: {
      rows: {
        row: {
          rate_id: 'table_2',
          quote_key: 'k',
          provider: 'Aurelia',
          service: 'Express',
          amount_cents: 1,
          expires_at: '2030-01-01T00:00:00Z',
        },
      },
      expect: serverOnly.insertExpect,
    },
    update: { set: ['amount_cents = 0'], expect: serverOnly.update },
    delete: serverOnly.delete,
  }),
  order_labels: policy({
    key: 'order_id::text',
    // Re-seeding orders empties order_items (on delete cascade): seed them again for the checks after the matrix.
    dependsOn: ['orders', 'order_items'],
    rows: { 'A’s': { order_id: orderA, pdf: new TextEncoder().encode('%PDF-') } },
    select: serverOnly.select,
    insert: { rows: { row: { order_id: orderB, pdf: new Uint8Array([0]) } }, expect: serverOnly.insertExpect },
    update: { set: [`pdf = '\\x01'::bytea`], expect: serverOnly.update },
    delete: serverOnly.delete,
  }),
  // Refunds an admin made: the payments adapter's answers, written and read only by the admin's paths.
  order_access_tokens: policy({
    key: 'token_hash',
    dependsOn: ['orders', 'order_items', 'order_labels'],
    rows: { 'A’s': { token_hash: 'hash-a', order_id: orderA } },
    select: serverOnly.select,
    insert: { rows: { row: { token_hash: 'hash-b', order_id: orderB } }, expect: serverOnly.insertExpect },
    update: { set: [`created_at = created_at - interval '1 day'`], expect: serverOnly.update },
    delete: serverOnly.delete,
  }),

  order_refunds: policy({
    key: 'refund_id',
    dependsOn: ['orders', 'order_items', 'order_labels'],
    rows: { 'A’s': { refund_id: 're_a1', order_id: orderA, amount_cents: 500, status: 'succeeded', admin_id: B } },
    select: serverOnly.select,
    insert: {
      rows: { row: { refund_id: 're_b1', order_id: orderB, amount_cents: 500, status: 'succeeded' } },
      expect: serverOnly.insertExpect,
    },
    update: { set: ['amount_cents = amount_cents * 2', `status = 'failed'`], expect: serverOnly.update },
    delete: serverOnly.delete,
  }),
  // The admin's private notes: no shopper reads or writes one, not even a note on their own order or about themselves.
  order_notes: policy({
    key: 'body',
    dependsOn: ['orders', 'order_items', 'order_labels'],
    rows: { 'on A’s order': { order_id: orderA, body: 'Called about A', admin_id: B, admin_email: userB.email } },
    select: serverOnly.select,
    insert: {
      rows: { row: { order_id: orderB, body: 'B writes a note', admin_email: userB.email } },
      expect: serverOnly.insertExpect,
    },
    update: {
      set: [`admin_email = 'someone@example.com'`, `created_at = created_at - interval '1 day'`],
      expect: serverOnly.update,
    },
    delete: serverOnly.delete,
  }),
  customer_notes: policy({
    key: 'body',
    rows: {
      'about A': { user_id: A, body: 'About A', admin_email: userB.email },
      'about a guest': { email: 'guest@example.com', body: 'About a guest', admin_email: userB.email },
    },
    select: serverOnly.select,
    insert: { rows: { row: { user_id: B, body: 'About B', admin_email: userB.email } }, expect: serverOnly.insertExpect },
    update: { set: [`admin_email = 'someone@example.com'`], expect: serverOnly.update },
    delete: serverOnly.delete,
  }),
  // Returns and their labels: server-only, as refunds are; a shopper reaches them through their order's pages.
  order_returns: policy({
    key: 'id::text',
    dependsOn: ['orders', 'order_items', 'order_labels'],
    rows: { 'A’s': returnRow(orderA, '00000000-0000-4000-8000-0000000000e1') },
    select: serverOnly.select,
    insert: { rows: { row: returnRow(orderB, '00000000-0000-4000-8000-0000000000e2') }, expect: serverOnly.insertExpect },
    update: { set: [`status = 'refunded'`, 'refund_amount_cents = 100000'], expect: serverOnly.update },
    delete: serverOnly.delete,
  }),
  return_labels: policy({
    key: 'return_id::text',
    dependsOn: ['orders', 'order_items', 'order_labels', 'order_returns'],
    rows: { 'A’s': { return_id: '00000000-0000-4000-8000-0000000000e1', pdf: new TextEncoder().encode('%PDF-') } },
    select: serverOnly.select,
    insert: {
      rows: { row: { return_id: '00000000-0000-4000-8000-0000000000e1', pdf: new Uint8Array([0]) } },
      expect: serverOnly.insertExpect,
    },
    update: { set: [`pdf = '\\x01'::bytea`], expect: serverOnly.update },
    delete: serverOnly.delete,
  }),
  checkouts: policy({
    key: 'id::text',
    rows: {
      'A’s': {
        id: '00000000-0000-4000-8000-0000000000c1',
        user_id: A,
        lines: '[]',
        address: address,
        rate: method,
        parcel_weight_lb: 0.5,
        subtotal_cents: 1000,
        shipping_cents: 0,
        tax_cents: 89,
        total_cents: 1089,
        content_hash: 'h',
      },
    },
    select: serverOnly.select,
    insert: {
      rows: {
        row: {
          user_id: B,
          lines: '[]',
          address,
          rate: method,
          parcel_weight_lb: 1,
          subtotal_cents: 1,
          shipping_cents: 0,
          tax_cents: 0,
          total_cents: 1,
          content_hash: 'h',
        },
      },
      expect: serverOnly.insertExpect,
    },
    // Not now(): the row was written a moment before, and PGlite's clock can give both the same instant.
    update: { set: [`updated_at = updated_at + interval '1 second'`], expect: serverOnly.update },
    delete: serverOnly.delete,
  }),
  session_activity: policy({
    key: 'session_key',
    rows: { 'A’s': { session_key: 'activity-a', user_id: A }, 'B’s': { session_key: 'activity-b', user_id: B } },
    select: serverOnly.select,
    insert: { rows: { row: { session_key: 'activity-a2', user_id: A } }, expect: serverOnly.insertExpect },
    update: { set: [`last_seen_at = last_seen_at - interval '1 day'`], expect: serverOnly.update },
    delete: serverOnly.delete,
  }),
  // Stock (decision 007): counts, holds, the threshold and what orders took are the server's alone; shoppers read
  // availability through stock_available() (tested below), never the rows.
  stock_levels: policy({
    key: `product_id || ':' || color || ':' || size`,
    rows: {
      soap: { product_id: 101, on_hand: 3 },
      'a colour and size': { product_id: 202, color: 'blue', size: 'M', on_hand: 0 },
    },
    select: serverOnly.select,
    insert: { rows: { row: { product_id: 101, color: 'grey', size: 'S', on_hand: 1000 } }, expect: serverOnly.insertExpect },
    update: { set: ['on_hand = on_hand + 100'], expect: serverOnly.update },
    delete: serverOnly.delete,
  }),
  stock_holds: policy({
    key: `checkout_id::text || ':' || product_id`,
    dependsOn: ['checkouts'],
    rows: {
      'A’s checkout’s': {
        checkout_id: '00000000-0000-4000-8000-0000000000c1',
        product_id: 101,
        quantity: 1,
        expires_at: '2030-01-01T00:00:00Z',
      },
    },
    select: serverOnly.select,
    insert: {
      rows: {
        row: {
          checkout_id: '00000000-0000-4000-8000-0000000000c1',
          product_id: 202,
          quantity: 5,
          expires_at: '2030-01-01T00:00:00Z',
        },
      },
      expect: serverOnly.insertExpect,
    },
    update: { set: [`expires_at = expires_at + interval '1 day'`, 'quantity = 1000'], expect: serverOnly.update },
    delete: serverOnly.delete,
  }),
  stock_settings: policy({
    key: 'id::text',
    rows: { settings: { low_stock_threshold: 3 } },
    select: serverOnly.select,
    insert: { rows: { row: { low_stock_threshold: 0 } }, expect: serverOnly.insertExpect },
    update: { set: ['low_stock_threshold = 1000'], expect: serverOnly.update },
    delete: serverOnly.delete,
  }),
  stock_sales: policy({
    key: `checkout_id::text || ':' || product_id`,
    dependsOn: ['checkouts'],
    rows: {
      'A’s checkout’s': { checkout_id: '00000000-0000-4000-8000-0000000000c1', product_id: 101, quantity: 2, label: 'Soap' },
    },
    select: serverOnly.select,
    insert: {
      rows: { row: { checkout_id: '00000000-0000-4000-8000-0000000000c1', product_id: 202, quantity: 1, label: 'Shirt' } },
      expect: serverOnly.insertExpect,
    },
    update: { set: ['returned_at = now()', 'quantity = 100'], expect: serverOnly.update },
    delete: serverOnly.delete,
  }),
  // Discounts (decision 009): codes, the offer and every use are the server's alone; a shopper learns one code's effect
  // through the shop's endpoints, never the list of codes nor who used them.
  discount_codes: policy({
    key: 'code',
    rows: {
      percent: { id: '00000000-0000-4000-8000-0000000000d1', code: 'SAVE10', kind: 'percent', percent: 10, usage_limit: 10 },
    },
    select: serverOnly.select,
    insert: { rows: { row: { code: 'FREESHIP', kind: 'free_shipping' } }, expect: serverOnly.insertExpect },
    update: { set: ['percent = 100', 'usage_limit = 1000000'], expect: serverOnly.update },
    delete: serverOnly.delete,
  }),
  discount_offer: policy({
    key: 'id::text',
    rows: { offer: { threshold_cents: 10_000, percent: 10 } },
    select: serverOnly.select,
    insert: { rows: { row: { threshold_cents: 0, percent: 100 } }, expect: serverOnly.insertExpect },
    update: { set: ['active = true', 'percent = 100'], expect: serverOnly.update },
    delete: serverOnly.delete,
  }),
  discount_redemptions: policy({
    key: 'checkout_id::text',
    dependsOn: ['checkouts', 'discount_codes'],
    rows: {
      'A’s checkout’s': {
        code_id: '00000000-0000-4000-8000-0000000000d1',
        checkout_id: '00000000-0000-4000-8000-0000000000c1',
        user_id: A,
        email_normalised: userA.email,
        amount_cents: 100,
        expires_at: '2030-01-01T00:00:00Z',
      },
    },
    select: serverOnly.select,
    insert: {
      rows: {
        row: {
          code_id: '00000000-0000-4000-8000-0000000000d1',
          checkout_id: '00000000-0000-4000-8000-0000000000c1',
          user_id: B,
          email_normalised: userB.email,
          amount_cents: 100,
          expires_at: '2030-01-01T00:00:00Z',
        },
      },
      expect: serverOnly.insertExpect,
    },
    update: { set: [`state = 'released', released_at = now()`, 'amount_cents = 0'], expect: serverOnly.update },
    delete: serverOnly.delete,
  }),
  // The test processor's intents and refunds: client secrets and amounts are the payments adapter's alone.
  test_payment_intents: policy({
    key: 'id',
    rows: { 'A’s checkout': testIntent('pi_test_a1'), 'B’s checkout': testIntent('pi_test_b1') },
    select: serverOnly.select,
    insert: { rows: { row: testIntent('pi_test_c1') }, expect: serverOnly.insertExpect },
    update: { set: [`status = 'succeeded', succeeded_at = now()`, 'amount_cents = 1'], expect: serverOnly.update },
    delete: serverOnly.delete,
  }),
  test_refunds: policy({
    key: 'id',
    dependsOn: ['test_payment_intents'],
    rows: { refund: { id: 're_test_a1', intent_id: 'pi_test_a1', amount_cents: 500, idempotency_key: 'refund-a1' } },
    select: serverOnly.select,
    insert: {
      rows: { row: { id: 're_test_b1', intent_id: 'pi_test_b1', amount_cents: 500, idempotency_key: 'refund-b1' } },
      expect: serverOnly.insertExpect,
    },
    update: { set: ['amount_cents = amount_cents * 2'], expect: serverOnly.update },
    delete: serverOnly.delete,
  }),

  // The admin: who is one, and what admins did. Admins act as service_role through named server paths, so no shopper
  // may read or write either table, not even about themselves.
  shop_admins: policy({
    key: 'user_id::text',
    rows: { 'A promoted': { user_id: A } },
    select: serverOnly.select,
    insert: { rows: { row: { user_id: B } }, expect: serverOnly.insertExpect },
    update: { set: [`created_at = created_at - interval '1 day'`], expect: serverOnly.update },
    delete: serverOnly.delete,
  }),
  admin_actions: policy({
    key: 'target',
    rows: { 'A’s approval': { admin_id: A, admin_email: userA.email, action: 'review.approve', target: 'review:a' } },
    select: serverOnly.select,
    insert: {
      rows: { row: { admin_id: B, admin_email: userB.email, action: 'review.reject', target: 'review:b' } },
      expect: serverOnly.insertExpect,
    },
    update: { set: [`after = '"approved"'`, `admin_email = 'someone@example.com'`], expect: serverOnly.update },
    delete: serverOnly.delete,
  }),

  // The catalogue edited on the running shop: who may edit, what was saved, uploaded pictures and publishes. Editors
  // act as service_role through named server paths; no shopper may read a draft or publish one.
  shop_editors: policy({
    key: 'user_id::text',
    rows: { 'A granted': { user_id: A, granted_by_email: 'owner@example.com' } },
    select: serverOnly.select,
    insert: { rows: { row: { user_id: B, granted_by_email: userB.email } }, expect: serverOnly.insertExpect },
    update: { set: [`granted_by_email = 'someone@example.com'`], expect: serverOnly.update },
    delete: serverOnly.delete,
  }),
  catalogue_revisions: policy({
    key: 'file',
    // The save the repository's changes are found against (SEED_CHANGES_REVISION) stays.
    scope: `id <> ${SEED_CHANGES_REVISION}`,
    rows: {
      'A’s draft': { file: 'a-draft.md', product_id: 1, contents: '---\nid: 1\n---\n', author_id: A, author_email: userA.email },
    },
    select: serverOnly.select,
    insert: {
      rows: {
        row: { file: 'b-draft.md', product_id: 2, contents: '---\nid: 2\n---\n', author_id: B, author_email: userB.email },
      },
      expect: serverOnly.insertExpect,
    },
    update: { set: [`contents = 'price: 0.01'`, `author_email = 'someone@example.com'`], expect: serverOnly.update },
    delete: serverOnly.delete,
  }),
  catalogue_pictures: policy({
    key: 'name',
    rows: {
      'A’s picture': {
        name: 'a-picture.svg',
        bytes: new TextEncoder().encode('<svg/>'),
        author_id: A,
        author_email: userA.email,
      },
    },
    select: serverOnly.select,
    insert: {
      rows: {
        row: { name: 'b-picture.svg', bytes: new TextEncoder().encode('<svg/>'), author_id: B, author_email: userB.email },
      },
      expect: serverOnly.insertExpect,
    },
    update: { set: [`bytes = '\\x3c7376672f3e'::bytea || bytes`], expect: serverOnly.update },
    delete: serverOnly.delete,
  }),
  catalogue_publishes: policy({
    key: 'requested_by_email',
    rows: { 'A’s publish': { requested_by_id: A, requested_by_email: userA.email } },
    select: serverOnly.select,
    insert: { rows: { row: { requested_by_id: B, requested_by_email: userB.email } }, expect: serverOnly.insertExpect },
    update: { set: [`status = 'live'`, 'up_to_revision = 99'], expect: serverOnly.update },
    delete: serverOnly.delete,
  }),
  catalogue_scheduled_publishes: policy({
    key: 'scheduled_by_email',
    rows: { 'A’s schedule': { run_at: '2030-01-01T05:00:00Z', scheduled_by_id: A, scheduled_by_email: userA.email } },
    select: serverOnly.select,
    insert: {
      rows: { row: { run_at: '2030-01-01T05:00:00Z', scheduled_by_id: B, scheduled_by_email: userB.email } },
      expect: serverOnly.insertExpect,
    },
    update: { set: [`run_at = now()`, `status = 'cancelled', cancelled_at = now()`], expect: serverOnly.update },
    delete: serverOnly.delete,
  }),
  catalogue_releases: policy({
    key: 'made_by',
    rows: {
      'a release': { key: 'a'.repeat(24), manifest: '{}', digest: 'b'.repeat(64), made_by: 'server-a', made_ms: 1 },
    },
    select: serverOnly.select,
    insert: {
      rows: { row: { key: 'c'.repeat(24), manifest: '{}', digest: 'd'.repeat(64), made_by: 'server-b', made_ms: 1 } },
      expect: serverOnly.insertExpect,
    },
    update: { set: [`manifest = '{"v":2}'`, 'made_ms = 2'], expect: serverOnly.update },
    delete: serverOnly.delete,
  }),
  catalogue_release_files: policy({
    key: 'hash',
    rows: { 'a file': { hash: 'e'.repeat(64), bytes: new TextEncoder().encode('<p>page</p>') } },
    select: serverOnly.select,
    insert: { rows: { row: { hash: 'f'.repeat(64), bytes: new TextEncoder().encode('x') } }, expect: serverOnly.insertExpect },
    update: { set: [`bytes = '\\x00'::bytea`], expect: serverOnly.update },
    delete: serverOnly.delete,
  }),
  catalogue_release_leases: policy({
    key: 'holder',
    rows: { 'a lease': { key: 'a'.repeat(24), holder: 'server-a', expires_at: '2030-01-01T00:00:00Z' } },
    select: serverOnly.select,
    insert: {
      rows: { row: { key: 'c'.repeat(24), holder: 'server-b', expires_at: '2030-01-01T00:00:00Z' } },
      expect: serverOnly.insertExpect,
    },
    update: { set: ['expires_at = now()', `expires_at = expires_at + interval '1 minute'`], expect: serverOnly.update },
    delete: serverOnly.delete,
  }),
  catalogue_seed_changes: policy({
    key: 'file',
    rows: { 'a change': seedChange('a-product.md') },
    select: serverOnly.select,
    insert: { rows: { row: seedChange('b-product.md') }, expect: serverOnly.insertExpect },
    update: { set: [`seed_contents = 'price: 1'`, `resolution = 'kept', resolved_at = now()`], expect: serverOnly.update },
    delete: serverOnly.delete,
  }),
} satisfies Record<string, TablePolicy<string, string>>;

type TableName = keyof typeof matrix;
const tableNames = Object.keys(matrix) as TableName[];

// Running the sheet ---------------------------------------------------------------------------------------------------

let db: Database;
beforeAll(async () => {
  db = await freshDatabase();
  await createUsers(db);
  await createProducts(db);
  await db.query(
    `insert into public.catalogue_revisions (id, file, product_id, contents, author_email)
     overriding system value values ($1, 'a-product.md', 1, '---\nid: 1\n---\n', 'editor@example.com')`,
    [SEED_CHANGES_REVISION],
  );
}, 60_000);
afterAll(() => db?.close());

function specOf(table: string): TablePolicy<string, string> {
  const spec = (matrix as Record<string, TablePolicy<string, string>>)[table];
  if (!spec) throw new Error(`no policy for ${table}`);
  return spec;
}

/** Empties the table (and those it depends on), seeds its rows again, and returns each row's key by name. */
async function reset(table: string): Promise<Map<string, string>> {
  const spec = specOf(table);
  for (const dependency of spec.dependsOn ?? []) await reset(dependency);
  await db.query(`delete from public.${table} where ${spec.scope ?? 'true'}`);
  const keys = new Map<string, string>();
  for (const [name, values] of Object.entries(spec.rows)) {
    const { text, params } = insertSql(table, values, `(${spec.key})::text as key`);
    const [row] = await db.query<{ key: string }>(text, params);
    if (!row) throw new Error(`seeding ${table}: ${name} returned no row`);
    keys.set(name, row.key);
  }
  return keys;
}

async function resetAll(): Promise<void> {
  for (const table of tableNames) await reset(table);
}

function expectedRows(expected: readonly string[] | typeof ALL, seeded: Map<string, string>): string[] {
  return expected === ALL ? [...seeded.keys()] : [...expected];
}

/** The seeded rows' names, from their keys (an unknown key is reported as such). */
function namesOf(keys: readonly string[], seeded: Map<string, string>): string[] {
  const byKey = new Map([...seeded].map(([name, key]) => [key, name]));
  return keys.map((key) => byKey.get(key) ?? `unexpected row ${key}`).sort();
}

function changedRows(before: Map<string, string>, after: Map<string, string>, seeded: Map<string, string>) {
  const changed = [...before].filter(([key, row]) => after.has(key) && after.get(key) !== row).map(([key]) => key);
  const deleted = [...before.keys()].filter((key) => !after.has(key));
  const added = [...after.keys()].filter((key) => !before.has(key));
  return { changed: namesOf(changed, seeded), deleted: namesOf(deleted, seeded), added };
}

function summary(expected: Rows<string>, verb: string): string {
  if (expected === DENIED) return 'is refused (permission denied)';
  if (expected === ALL) return `${verb} every row`;
  return expected.length ? `${verb} only ${expected.join(', ')}` : `${verb} nothing`;
}

async function probeSelect(table: string, actor: Actor, expected: Rows<string>): Promise<void> {
  const spec = specOf(table);
  const seeded = await reset(table);
  const result = await attempt<{ key: string }>(
    db,
    actor,
    `select (${spec.key})::text as key from public.${table} where ${spec.scope ?? 'true'}`,
  );
  if (expected === DENIED) {
    expect(outcomeOf(result)).toBe(DENIED);
    return;
  }
  expect(outcomeOf(result)).toBe(OK);
  const keys = result.ok ? result.rows.map((r) => r.key) : [];
  expect(namesOf(keys, seeded)).toEqual(expectedRows(expected, seeded).sort());
}

async function probeInsert(table: string, actor: Actor, name: string, values: Values, expected: Outcome): Promise<void> {
  const spec = specOf(table);
  await reset(table);
  await db.query(`delete from public.${table} where ${spec.scope ?? 'true'}`);
  const { text, params } = insertSql(table, values);
  const result = await attempt(db, actor, text, params);
  expect(outcomeOf(result), `${actor} inserting ${name}`).toBe(expected);
  const after = await snapshot(db, table, spec.key, spec.scope);
  expect(after.size, `rows stored after ${actor} inserted ${name}`).toBe(expected === OK ? 1 : 0);
}

/** Targets every seeded row in turn with `statement` (which ends in `where key = $1`); checks rows affected and the table. */
async function probeWrite(
  table: string,
  actor: Actor,
  statement: (key: string) => string,
  expected: Rows<string>,
  effect: 'changed' | 'deleted',
): Promise<void> {
  const spec = specOf(table);
  for (const name of Object.keys(spec.rows)) {
    const seeded = await reset(table);
    const key = seeded.get(name) ?? '';
    const before = await snapshot(db, table, spec.key, spec.scope);
    const result = await attempt<{ key: string }>(db, actor, `${statement(spec.key)} returning (${spec.key})::text as key`, [
      key,
    ]);
    const after = changedRows(before, await snapshot(db, table, spec.key, spec.scope), seeded);
    const label = `${actor} targeting ${name}`;
    if (expected === DENIED) {
      expect(outcomeOf(result), label).toBe(DENIED);
      expect(after, label).toEqual({ changed: [], deleted: [], added: [] });
      continue;
    }
    const allowed = expectedRows(expected, seeded).includes(name) ? [name] : [];
    expect(outcomeOf(result), label).toBe(OK);
    expect(namesOf(result.ok ? result.rows.map((r) => r.key) : [], seeded), `${label}: rows affected`).toEqual(allowed);
    expect(after, `${label}: the table read back by service_role`).toEqual({
      changed: effect === 'changed' ? allowed : [],
      deleted: effect === 'deleted' ? allowed : [],
      added: [],
    });
  }
}

describe(`row-level security on ${TEST_DATABASE_KIND}`, () => {
  it('the matrix covers every table, view and foreign table in schema public', async () => {
    const rows = await db.query<{ relname: string }>(
      `select c.relname from pg_class c join pg_namespace n on n.oid = c.relnamespace
       where n.nspname = 'public' and c.relkind in ('r', 'p', 'v', 'm', 'f')`,
    );
    expect(rows.map((r) => r.relname).sort()).toEqual([...tableNames].sort());
  });

  describe.each(tableNames)('%s', (table) => {
    const spec = specOf(table);

    for (const actor of actors) {
      describe(`as ${actorName[actor]}`, () => {
        it(`select: ${summary(spec.select[actor], 'sees')}`, () => probeSelect(table, actor, spec.select[actor]));

        const inserts = Object.entries(spec.insert.rows);
        it(`insert: ${inserts.map(([name]) => `${name} → ${spec.insert.expect[actor][name]}`).join('; ')}`, async () => {
          for (const [name, values] of inserts) {
            const expected = spec.insert.expect[actor][name];
            if (!expected) throw new Error(`${table}: no expectation for ${actor} inserting ${name}`);
            await probeInsert(table, actor, name, values, expected);
          }
        });

        it(`update: ${summary(spec.update.expect[actor], 'changes')}`, async () => {
          for (const set of spec.update.set) {
            await probeWrite(
              table,
              actor,
              (key) => `update public.${table} set ${set} where (${key})::text = $1`,
              spec.update.expect[actor],
              'changed',
            );
          }
        });

        it(`delete: ${summary(spec.delete[actor], 'deletes')}`, () =>
          probeWrite(
            table,
            actor,
            (key) => `delete from public.${table} where (${key})::text = $1`,
            spec.delete[actor],
            'deleted',
          ));
      });
    }
  });
});

// Beyond the cells ----------------------------------------------------------------------------------------------------

describe(`around the matrix on ${TEST_DATABASE_KIND}`, () => {
  it('guests and shoppers hold no privilege that ignores row-level security (TRUNCATE, REFERENCES, TRIGGER) or sequences', async () => {
    const rows = await db.query<{ grantee: string; relname: string; privilege: string }>(
      `select r.rolname as grantee, c.relname, p.privilege
       from pg_class c join pg_namespace n on n.oid = c.relnamespace
       cross join (values ('anon'), ('authenticated')) as r (rolname)
       cross join (values ('TRUNCATE'), ('REFERENCES'), ('TRIGGER'), ('USAGE'), ('SELECT'), ('UPDATE')) as p (privilege)
       where n.nspname = 'public'
         and ((c.relkind in ('r', 'p') and p.privilege in ('TRUNCATE', 'REFERENCES', 'TRIGGER')
               and has_table_privilege(r.rolname, c.oid, p.privilege))
           or (c.relkind = 'S' and p.privilege in ('USAGE', 'SELECT', 'UPDATE')
               and has_sequence_privilege(r.rolname, c.oid, p.privilege)))`,
    );
    expect(rows).toEqual([]);
  });

  it('row-level security is on for every table, so a missing policy means "nobody" rather than "everybody"', async () => {
    const rows = await db.query<{ relname: string }>(
      `select c.relname from pg_class c join pg_namespace n on n.oid = c.relnamespace
       where n.nspname = 'public' and c.relkind in ('r', 'p') and not c.relrowsecurity`,
    );
    expect(rows).toEqual([]);
  });

  it('guests and shoppers cannot create tables or functions in schema public', async () => {
    const [row] = await db.query<{ anon: boolean; authenticated: boolean }>(
      `select has_schema_privilege('anon', 'public', 'create') as anon,
              has_schema_privilege('authenticated', 'public', 'create') as authenticated`,
    );
    expect(row).toEqual({ anon: false, authenticated: false });
  });

  it('the only functions guests and shoppers may call are product_like_count and stock_available, both SECURITY DEFINER', async () => {
    const rows = await db.query<{ proname: string; definer: boolean }>(
      `select p.proname, p.prosecdef as definer from pg_proc p join pg_namespace n on n.oid = p.pronamespace
       where n.nspname = 'public' and p.prorettype <> 'trigger'::regtype
         and (p.prosecdef or has_function_privilege('anon', p.oid, 'execute')
              or has_function_privilege('authenticated', p.oid, 'execute'))
       order by p.proname`,
    );
    expect(rows).toEqual([
      { proname: 'product_like_count', definer: true },
      { proname: 'stock_available', definer: true },
    ]);
  });

  it('no guest or shopper may run a function of app_private (the cart save, holding and selling stock)', async () => {
    const rows = await db.query<{ proname: string }>(
      `select p.proname from pg_proc p join pg_namespace n on n.oid = p.pronamespace
       where n.nspname = 'app_private'
         and (has_function_privilege('anon', p.oid, 'execute') or has_function_privilege('authenticated', p.oid, 'execute'))`,
    );
    expect(rows).toEqual([]);
    for (const actor of ['anon', 'A'] as const) {
      const result = await attempt(db, actor, `select app_private.sell_stock(gen_random_uuid(), '[]')`);
      expect(outcomeOf(result), actor).toBe(DENIED);
    }
  });

  it('stock_available(): anyone gets what can be bought of each counted item (on hand less live holds), and nothing else', async () => {
    await reset('stock_levels'); // 3 of product 101, 0 of product 202 in blue M
    await reset('stock_holds'); // A's checkout holds 1 of product 101 until 2030
    for (const actor of actors) {
      const result = await attempt<{ product_id: number; color: string; size: string; available: number }>(
        db,
        actor,
        'select product_id, color, size, available from public.stock_available() order by product_id',
      );
      expect(outcomeOf(result), actor).toBe(OK);
      expect(result.ok ? result.rows : [], actor).toEqual([
        { product_id: 101, color: '', size: '', available: 2 },
        { product_id: 202, color: 'blue', size: 'M', available: 0 },
      ]);
    }
  });

  it('nobody but the server reads the accounts in auth.users', async () => {
    for (const actor of ['anon', 'A', 'B'] as const) {
      expect(outcomeOf(await attempt(db, actor, 'select id from auth.users')), actor).toBe(DENIED);
    }
    expect(outcomeOf(await attempt(db, 'service', 'select id from auth.users'))).toBe(OK);
  });

  it('product_like_count(int): anyone gets the number of likes, and nothing else', async () => {
    await reset('product_likes'); // A and B both like product 101
    for (const actor of actors) {
      const result = await attempt(
        db,
        actor,
        'select public.product_like_count($1) as n, public.product_like_count($2) as none',
        [101, 999],
      );
      expect(outcomeOf(result), actor).toBe(OK);
      expect(result.ok ? result.rows : [], actor).toEqual([{ n: 2, none: 0 }]);
    }
    const [fn] = await db.query<{ result: string }>(
      `select pg_get_function_result('public.product_like_count(integer)'::regprocedure) as result`,
    );
    expect(fn?.result).toBe('integer');
  });

  it('a shopper cannot hand their cart row over to another shopper', async () => {
    const seeded = await reset('user_carts');
    const result = await attempt(db, 'A', 'update public.user_carts set user_id = $1 where user_id = $2 returning cart_id', [
      B,
      A,
    ]);
    expect(outcomeOf(result)).toBe(RLS);
    const after = await snapshot(db, 'user_carts', specOf('user_carts').key);
    expect([...after.keys()].sort()).toEqual([...seeded.values()].sort());
  });

  it('a shopper cannot re-date their cart row', async () => {
    await reset('user_carts');
    const result = await attempt(db, 'A', `update public.user_carts set updated_at = $1 where user_id = $2 returning cart_id`, [
      backdated,
      A,
    ]);
    expect(outcomeOf(result)).toBe(DENIED);
  });

  it('a product shoppers’ rows refer to cannot be deleted, not even by the server: it stays, no longer sold', async () => {
    await resetAll(); // reviews, likes, favorites and carts of products 101 and 202
    const result = await attempt(db, 'service', 'delete from public.products where id = $1', [101]);
    expect(sqlstateOf(result)).toBe('23503');
    expect(await db.query('select id from public.products where id = 101')).toEqual([{ id: 101 }]);
  });

  describe('a review’s author and verified flag come from the database', () => {
    // A ordered product 101, B ordered product 202 (the seeded orders).
    const cases = [
      // Only the masked address is stored (ann@example.com, ben@example.com).
      { actor: 'A', product: 101, author: 'an***@example.com', verified: true },
      { actor: 'A', product: 202, author: 'an***@example.com', verified: false },
      { actor: 'B', product: 101, author: 'be***@example.com', verified: false },
      { actor: 'B', product: 202, author: 'be***@example.com', verified: true },
    ] as const;

    it.each(cases)('user $actor reviewing product $product → author $author, verified $verified', async (c) => {
      await resetAll();
      const user = c.actor === 'A' ? A : B;
      const result = await attempt(
        db,
        c.actor,
        `insert into public.product_reviews (product_id, user_id, rating, comment) values ($1, $2, 4, 'Fits well')
         returning user_id::text, author, verified, is_approved`,
        [c.product, user],
      );
      expect(outcomeOf(result)).toBe(OK);
      expect(result.ok ? result.rows : []).toEqual([
        { user_id: user, author: c.author, verified: c.verified, is_approved: false },
      ]);
    });

    it('a cancelled order is no verified purchase', async () => {
      await resetAll();
      await db.query(`update public.orders set status = 'canceled' where user_id = $1`, [A]);
      const result = await attempt(
        db,
        'A',
        `insert into public.product_reviews (product_id, user_id, rating, comment) values (101, $1, 4, 'Fits well') returning verified`,
        [A],
      );
      expect(result.ok ? result.rows : outcomeOf(result)).toEqual([{ verified: false }]);
    });

    it('and a pending review stays out of sight of guests and other shoppers', async () => {
      await resetAll();
      await db.query('delete from public.product_reviews');
      const insert = `insert into public.product_reviews (product_id, user_id, rating, comment) values (101, $1, 5, 'Great')`;
      expect(outcomeOf(await attempt(db, 'A', insert, [A]))).toBe(OK);
      for (const [actor, count] of [
        ['anon', 0],
        ['B', 0],
        ['A', 1],
        ['service', 1],
      ] as const) {
        const result = await attempt(db, actor, 'select id from public.product_reviews');
        expect(result.ok ? result.rows.length : outcomeOf(result), actor).toBe(count);
      }
    });
  });

  describe('constraints refuse bad rows, whoever writes them', () => {
    const cases: readonly { what: string; actor: Actor; table: TableName; values: Values; sqlstate: string }[] = [
      { what: 'rating 0', actor: 'A', table: 'product_reviews', values: { ...newReview(A), rating: 0 }, sqlstate: '23514' },
      { what: 'rating 6', actor: 'A', table: 'product_reviews', values: { ...newReview(A), rating: 6 }, sqlstate: '23514' },
      {
        what: 'rating 6',
        actor: 'service',
        table: 'product_reviews',
        values: { ...review(A, 303, true), rating: 6 },
        sqlstate: '23514',
      },
      {
        what: 'cart quantity 0',
        actor: 'A',
        table: 'user_carts',
        values: { ...cartRow(A, 303), quantity: 0 },
        sqlstate: '23514',
      },
      {
        what: 'cart quantity -1',
        actor: 'A',
        table: 'user_carts',
        values: { ...cartRow(A, 303), quantity: -1 },
        sqlstate: '23514',
      },
      {
        what: 'order item quantity 0',
        actor: 'service',
        table: 'order_items',
        values: { ...orderItem(orderA, 303), quantity: 0 },
        sqlstate: '23514',
      },
      { what: 'duplicate like', actor: 'A', table: 'product_likes', values: { product_id: 101, user_id: A }, sqlstate: '23505' },
      // 23503: product 999 is in no catalogue, so the foreign key to public.products refuses it.
      {
        what: 'a review of a product that does not exist',
        actor: 'A',
        table: 'product_reviews',
        values: { ...newReview(A), product_id: 999 },
        sqlstate: '23503',
      },
      {
        what: 'a review of a product that does not exist',
        actor: 'service',
        table: 'product_reviews',
        values: review(A, 999, true),
        sqlstate: '23503',
      },
      {
        what: 'a like of a product that does not exist',
        actor: 'A',
        table: 'product_likes',
        values: { product_id: 999, user_id: A },
        sqlstate: '23503',
      },
      {
        what: 'a favorite of a product that does not exist',
        actor: 'A',
        table: 'user_favorites',
        values: favorite(A, 999),
        sqlstate: '23503',
      },
      {
        what: 'a cart line of a product that does not exist',
        actor: 'A',
        table: 'user_carts',
        values: cartRow(A, 999),
        sqlstate: '23503',
      },
      { what: 'duplicate favorite', actor: 'A', table: 'user_favorites', values: favorite(A, 101), sqlstate: '23505' },
      {
        what: 'duplicate payment_intent_id',
        actor: 'service',
        table: 'orders',
        values: { ...order(A, 'pi_B'), id: '00000000-0000-4000-8000-0000000000c1' },
        sqlstate: '23505',
      },
      {
        what: 'total ≠ subtotal + shipping + tax',
        actor: 'service',
        table: 'orders',
        values: { ...order(A, 'pi_C'), id: '00000000-0000-4000-8000-0000000000c2', total_cents: 1 },
        sqlstate: '23514',
      },
    ];

    it.each(cases)('$what as $actor → $sqlstate', async (c) => {
      await resetAll();
      const { text, params } = insertSql(c.table, c.values);
      expect(sqlstateOf(await attempt(db, c.actor, text, params))).toBe(c.sqlstate);
    });
  });
});
