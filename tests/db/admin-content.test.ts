import { describe, expect, it } from 'vitest';
import { type AdminDeps, adminOf } from '@/features/admin/admin.server';
import { countMessages, listMessages, markMessagesRoute } from '@/features/admin/messages/messages.server';
import { countPendingReviews, decideReviewsRoute, pendingReviews } from '@/features/admin/reviews/moderation.server';
import {
  countSubscribers,
  listSubscribers,
  subscribersCsv,
  subscribersCsvRoute,
} from '@/features/admin/subscribers/subscribers.server';
import { listReviews } from '@/features/reviews/reviews.server';
import type { CookieJar } from '@/server/auth/auth.port';
import { createBuiltInAuth } from '@/server/auth/builtin.server';
import { asService, asShopper, type ShopperClaims } from '@/server/db/roles.server';
import { browser } from './browser';
import { suiteDatabase, TEST_DATABASE_KIND } from './test-database';

// The admin's reviews, messages and subscribers endpoints as their routes run them: a Request in, a Response out, on a
// real database with real sessions of the built-in accounts. The Origin check in front of the POSTs is the
// middleware's (src/server/http.server.test.ts); the pages are checked through the built server in
// tests/e2e/admin-content.spec.ts.

const db = suiteDatabase();
const auth = () => createBuiltInAuth({ db, secureCookies: false });
const SHOP = 'http://shop.test';
const PASSWORD = 'lavender-fields';

interface Account {
  id: string;
  email: string;
  claims: ShopperClaims;
  /** A browser holding this account's session. */
  jar: CookieJar;
}

let n = 0;
/** A verified account of the built-in accounts, signed in once. */
async function signedIn(name: string): Promise<Account> {
  const email = `${name}.${++n}.${Date.now()}@example.com`;
  await auth().signUp({ email, password: PASSWORD, firstName: 'Ann', lastName: 'Lee' }, { origin: SHOP });
  await asService(db, (tx) => tx.query(`update auth.users set email_confirmed_at = now() where email = $1`, [email]));
  const jar = browser();
  const login = await auth().signIn({ email, password: PASSWORD }, jar);
  if (!login.ok) throw new Error(login.error.message);
  return { id: login.value.id, email, claims: { sub: login.value.id, email, role: 'authenticated' }, jar };
}

let accounts: Promise<{ admin: Account; shopper: Account; deps: AdminDeps }> | undefined;
/** The suite's admin (listed in ADMIN_EMAILS), a shopper, and the deps the routes run with. */
function people() {
  accounts ??= (async () => {
    const admin = await signedIn('owner');
    const shopper = await signedIn('shopper');
    return { admin, shopper, deps: { db, auth: auth(), adminEmails: [admin.email] } };
  })();
  return accounts;
}

const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  new Request(`${SHOP}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: SHOP, ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });

async function answer(response: Response | Promise<Response>) {
  const res = await response;
  const text = await res.text();
  return {
    status: res.status,
    headers: res.headers,
    text,
    body: res.headers.get('content-type')?.includes('json') ? JSON.parse(text) : null,
  };
}

const decide = async (jar: CookieJar, body: unknown) =>
  answer(decideReviewsRoute((await people()).deps, post('/api/admin/reviews', body), jar));
const mark = async (jar: CookieJar, body: unknown) =>
  answer(markMessagesRoute((await people()).deps, post('/api/admin/messages', body), jar));
const exportCsv = async (jar: CookieJar) =>
  answer(subscribersCsvRoute((await people()).deps, jar, new Date('2026-11-25T12:00:00Z')));

/** A review by `who` of `productId`, stored as the review endpoint stores one (as the shopper: pending). */
async function review(who: ShopperClaims, productId: number, rating = 4, comment = 'Soft and rich.') {
  const [row] = await asShopper(db, who, (tx) =>
    tx.query<{ id: string }>(
      'insert into public.product_reviews (product_id, user_id, rating, comment) values ($1, $2, $3, $4) returning id::text',
      [productId, who.sub, rating, comment],
    ),
  );
  if (!row) throw new Error('no review stored');
  return row.id;
}

async function reviewState(id: string) {
  const [row] = await asService(db, (tx) =>
    tx.query<{ is_approved: boolean; rejected: boolean }>(
      'select is_approved, rejected_at is not null as rejected from public.product_reviews where id = $1',
      [id],
    ),
  );
  return row;
}

/** A contact message, sent as a guest sends one. */
async function message(text = 'Do you ship to Canada?') {
  await asShopper(db, null, (tx) =>
    tx.query('insert into public.contact_messages (name, email, message) values ($1, $2, $3)', ['Ada', 'ada@example.com', text]),
  );
  const [row] = await asService(db, (tx) =>
    tx.query<{ id: string | number }>('select id from public.contact_messages where message = $1 order by id desc limit 1', [
      text,
    ]),
  );
  return Number(row?.id);
}

const isRead = async (id: number) =>
  (
    await asService(db, (tx) =>
      tx.query<{ read: boolean }>('select read_at is not null as read from public.contact_messages where id = $1', [id]),
    )
  )[0]?.read;

/** The admin actions recorded for `target`, oldest first. */
const actions = (target: string) =>
  asService(db, (tx) =>
    tx.query<{ action: string; admin_email: string; before: unknown; after: unknown }>(
      'select action, admin_email, before, after from public.admin_actions where target = $1 order by id',
      [target],
    ),
  );
const actionCount = async () =>
  (await asService(db, (tx) => tx.query<{ n: number }>('select count(*)::int as n from public.admin_actions')))[0]?.n;

const publicReviews = (productId: number, who: ShopperClaims | null = null) =>
  asShopper(db, who, (tx) => listReviews(tx, productId));

// Every account costs a password hash and check, which on a busy two-core machine can take seconds.
describe(`the admin's content endpoints on ${TEST_DATABASE_KIND}`, { timeout: 30_000 }, () => {
  it('answer a guest and a shopper 404, before reading the body, and change nothing', async () => {
    const { shopper, admin } = await people();
    const reviewId = await review(shopper.claims, 5);
    const messageId = await message('Is the soap vegan?');
    const before = await actionCount();
    for (const [who, jar] of [
      ['guest', browser()],
      ['shopper', shopper.jar],
    ] as const) {
      for (const body of [{ ids: [reviewId], decision: 'approve' }, { ids: [reviewId], decision: 'reject' }, 'not json']) {
        const res = await decide(jar, body);
        expect(res, `${who} ${JSON.stringify(body)}`).toMatchObject({
          status: 404,
          body: { error: { code: 'not_found', message: 'Not found.' } },
        });
      }
      for (const body of [{ ids: [messageId], read: true }, { ids: 'x' }]) {
        expect((await mark(jar, body)).status, `${who} ${JSON.stringify(body)}`).toBe(404);
      }
      const csv = await exportCsv(jar);
      expect(csv.status, who).toBe(404);
      expect(csv.text).not.toContain('@');
    }
    expect(await reviewState(reviewId)).toEqual({ is_approved: false, rejected: false });
    expect(await isRead(messageId)).toBe(false);
    expect(await actionCount()).toBe(before);
    // The same calls with the admin's session do work (so the 404s above were about who asked).
    expect((await decide(admin.jar, { ids: [reviewId], decision: 'reject' })).status).toBe(200);
  });

  describe('POST /api/admin/reviews', () => {
    it('approves: everyone then sees the review and the product’s totals count it; the action is recorded', async () => {
      const { admin, shopper } = await people();
      const id = await review(shopper.claims, 6, 2, 'Too oily for my skin.');
      expect((await publicReviews(6)).approved).toEqual({ count: 0, ratingSum: 0 });

      const res = await decide(admin.jar, { ids: [id], decision: 'approve' });
      expect(res).toMatchObject({ status: 200, body: { reviews: [{ id, state: 'approved', changed: true }] } });

      for (const viewer of [null, shopper.claims]) {
        const seen = await publicReviews(6, viewer);
        expect(seen.reviews.map((r) => [r.id, r.pending])).toEqual([[id, false]]);
        expect(seen.approved).toEqual({ count: 1, ratingSum: 2 });
      }
      expect(await actions(`review:${id}`)).toEqual([
        { action: 'review.approve', admin_email: admin.email, before: 'pending', after: 'approved' },
      ]);
    });

    it('is idempotent: a second approval, or two at once, changes nothing more and records one action', async () => {
      const { admin, shopper } = await people();
      const id = await review(shopper.claims, 7);
      const first = await decide(admin.jar, { ids: [id], decision: 'approve' });
      const again = await decide(admin.jar, { ids: [id], decision: 'approve' });
      expect(first.body.reviews).toEqual([{ id, state: 'approved', changed: true }]);
      expect(again).toMatchObject({ status: 200, body: { reviews: [{ id, state: 'approved', changed: false }] } });
      expect(await actions(`review:${id}`)).toHaveLength(1);

      const other = await review(shopper.claims, 7);
      const both = await Promise.all([
        decide(admin.jar, { ids: [other], decision: 'approve' }),
        decide(admin.jar, { ids: [other], decision: 'approve' }),
      ]);
      expect(both.map((r) => r.status)).toEqual([200, 200]);
      expect(both.map((r) => r.body.reviews[0].changed).sort()).toEqual([false, true]);
      expect(await actions(`review:${other}`)).toHaveLength(1);
      expect((await publicReviews(7)).approved.count).toBe(2);
    });

    it('rejects: nobody sees the review, its author included, and it leaves the queue for good', async () => {
      const { admin, shopper } = await people();
      const id = await review(shopper.claims, 9, 1, 'Buy it somewhere else!!!');
      expect((await publicReviews(9, shopper.claims)).reviews.map((r) => [r.id, r.pending])).toEqual([[id, true]]);

      const res = await decide(admin.jar, { ids: [id], decision: 'reject' });
      expect(res).toMatchObject({ status: 200, body: { reviews: [{ id, state: 'rejected', changed: true }] } });
      for (const viewer of [null, shopper.claims]) expect((await publicReviews(9, viewer)).reviews, String(viewer)).toEqual([]);
      const queue = await asService(db, (tx) => pendingReviews(tx, { limit: 100 }));
      expect(queue.rows.map((r) => r.id)).not.toContain(id);
      expect(await actions(`review:${id}`)).toEqual([
        { action: 'review.reject', admin_email: admin.email, before: 'pending', after: 'rejected' },
      ]);
      // Rejecting again records nothing; approving after all publishes it, and rejecting withdraws it again.
      expect((await decide(admin.jar, { ids: [id], decision: 'reject' })).body.reviews[0].changed).toBe(false);
      await decide(admin.jar, { ids: [id], decision: 'approve' });
      expect((await publicReviews(9)).approved).toEqual({ count: 1, ratingSum: 1 });
      await decide(admin.jar, { ids: [id], decision: 'reject' });
      expect((await publicReviews(9)).approved).toEqual({ count: 0, ratingSum: 0 });
      expect((await actions(`review:${id}`)).map((a) => [a.before, a.after])).toEqual([
        ['pending', 'rejected'],
        ['rejected', 'approved'],
        ['approved', 'rejected'],
      ]);
    });

    it('decides on several at once, each id once; an unknown id refuses the lot', async () => {
      const { admin, shopper } = await people();
      const ids = [await review(shopper.claims, 1), await review(shopper.claims, 1), await review(shopper.claims, 1)];
      const [a, b, c] = ids as [string, string, string];
      const unknown = '00000000-0000-4000-8000-000000000000';
      const before = await actionCount();
      expect(await decide(admin.jar, { ids: [a, unknown], decision: 'approve' })).toMatchObject({
        status: 404,
        body: { error: { code: 'review_not_found' } },
      });
      expect(await reviewState(a)).toEqual({ is_approved: false, rejected: false });
      expect(await actionCount()).toBe(before);

      const res = await decide(admin.jar, { ids: [a, b.toUpperCase(), c, a], decision: 'approve' });
      expect(res.body.reviews).toEqual(ids.map((id) => ({ id, state: 'approved', changed: true })));
      expect(await actionCount()).toBe((before ?? 0) + 3);
    });

    it('refuses a malformed request from an admin with the reason, and changes nothing', async () => {
      const { admin, shopper } = await people();
      const id = await review(shopper.claims, 2);
      const cases: [unknown, number, string][] = [
        [{ ids: [], decision: 'approve' }, 400, 'Choose at least one review.'],
        [{ ids: ['12'], decision: 'approve' }, 400, 'Each review id must be a review’s id.'],
        [{ ids: [id], decision: 'publish' }, 400, 'decision must be "approve" or "reject".'],
        [{ ids: Array.from({ length: 101 }, () => id), decision: 'approve' }, 400, 'At most 100 reviews at a time.'],
        ['{"ids":', 400, 'The request body is not valid JSON.'],
      ];
      for (const [body, status, text] of cases) {
        const res = await decide(admin.jar, body);
        expect(res.status, JSON.stringify(body).slice(0, 80)).toBe(status);
        expect(res.body.error.message).toBe(text);
      }
      const plain = await answer(
        decideReviewsRoute(
          (await people()).deps,
          post('/api/admin/reviews', 'ids=1', { 'content-type': 'application/x-www-form-urlencoded' }),
          admin.jar,
        ),
      );
      expect(plain.status).toBe(415);
      expect(await reviewState(id)).toEqual({ is_approved: false, rejected: false });
    });
  });

  describe('the review queue', () => {
    it('lists pending reviews newest first, a page at a time, with the product, author and verified flag', async () => {
      const { shopper } = await people();
      // A queue of its own: decide on what earlier tests left.
      await asService(db, (tx) => tx.query('update public.product_reviews set rejected_at = now() where not is_approved'));
      const ids: string[] = [];
      for (let i = 1; i <= 5; i++) ids.push(await review(shopper.claims, 8, (i % 5) + 1, `Review ${i}`));
      // All of them in the same microsecond (the embedded database's clock moves in milliseconds): they are still
      // listed in the order they were written, and paging neither skips nor repeats one.
      await asService(db, (tx) =>
        tx.query(
          `update public.product_reviews set created_at = (select created_at from public.product_reviews where id = $1)
           where id = any($2::uuid[])`,
          [ids[0], ids],
        ),
      );
      expect(await asService(db, countPendingReviews)).toBe(5);

      const seen: string[] = [];
      let after: Parameters<typeof pendingReviews>[1]['after'];
      for (let pageNo = 0; pageNo < 5; pageNo++) {
        const page = await asService(db, (tx) => pendingReviews(tx, { limit: 2, after }));
        seen.push(...page.rows.map((r) => r.id));
        after = page.next;
        if (!after) break;
      }
      expect(seen).toEqual([...ids].reverse());
      const [newest] = (await asService(db, (tx) => pendingReviews(tx, { limit: 1 }))).rows;
      expect(newest).toMatchObject({
        id: ids[4],
        productId: 8,
        productName: 'Turmeric Face Soap',
        rating: 1,
        comment: 'Review 5',
        author: `${shopper.email.slice(0, 2)}***@example.com`,
        accountEmail: shopper.email,
        verified: false,
      });
    });
  });

  describe('POST /api/admin/messages', () => {
    it('marks messages read and unread, once each, recording every change', async () => {
      const { admin } = await people();
      const id = await message('Where is my parcel?');
      expect(await isRead(id)).toBe(false);
      const unreadBefore = (await asService(db, countMessages)).unread;

      expect(await mark(admin.jar, { ids: [id], read: true })).toMatchObject({
        status: 200,
        body: { messages: [{ id, read: true, changed: true }] },
      });
      expect(await isRead(id)).toBe(true);
      expect((await asService(db, countMessages)).unread).toBe(unreadBefore - 1);
      expect((await mark(admin.jar, { ids: [id], read: true })).body.messages).toEqual([{ id, read: true, changed: false }]);
      expect((await mark(admin.jar, { ids: [id], read: false })).body.messages).toEqual([{ id, read: false, changed: true }]);
      expect(await isRead(id)).toBe(false);
      expect(await actions(`message:${id}`)).toEqual([
        { action: 'message.read', admin_email: admin.email, before: 'unread', after: 'read' },
        { action: 'message.unread', admin_email: admin.email, before: 'read', after: 'unread' },
      ]);

      expect((await mark(admin.jar, { ids: [id, 999_999], read: true })).status).toBe(404);
      expect(await isRead(id)).toBe(false);
      expect((await mark(admin.jar, { ids: ['1'], read: true })).status).toBe(400);
      expect((await mark(admin.jar, { ids: [id], read: 'yes' })).status).toBe(400);
    });

    it('lists messages newest first, a page at a time', async () => {
      const ids = [await message('First'), await message('Second'), await message('Third')];
      const first = await asService(db, (tx) => listMessages(tx, { limit: 2 }));
      expect(first.rows.map((m) => m.id)).toEqual([ids[2], ids[1]]);
      expect(first.rows[0]).toMatchObject({ name: 'Ada', email: 'ada@example.com', message: 'Third', read: false });
      const second = await asService(db, (tx) => listMessages(tx, { limit: 2, before: first.next }));
      expect(second.rows[0]?.id).toBe(ids[0]);
    });
  });

  describe('subscribers', () => {
    async function subscriber(email: string, daysAgo = 0) {
      const account = await signedIn('reader');
      await asService(db, (tx) =>
        tx.query(
          `insert into public.newsletter_subscribers (user_id, email, subscribed_at) values ($1, $2, now() - make_interval(days => $3))`,
          [account.id, email, daysAgo],
        ),
      );
    }

    it('counts them (all, and new in the last 30 days) and lists them newest first, a page at a time', async () => {
      const before = await asService(db, countSubscribers);
      await subscriber(`old.${Date.now()}@example.com`, 40);
      await subscriber(`new.${Date.now()}@example.com`, 1);
      expect(await asService(db, countSubscribers)).toEqual({ total: before.total + 2, recent: before.recent + 1 });

      const all: string[] = [];
      let after: Parameters<typeof listSubscribers>[1]['after'];
      do {
        const page = await asService(db, (tx) => listSubscribers(tx, { limit: 1, after }));
        all.push(...page.rows.map((s) => s.subscribedAt));
        after = page.next;
      } while (after);
      expect(all).toHaveLength(before.total + 2);
      expect([...all].sort().reverse()).toEqual(all);
    });

    it('exports them as a CSV download, spreadsheet-safe, recording the export', async () => {
      const { admin, deps } = await people();
      await subscriber('=HYPERLINK("http://evil.test","x")@example.com');
      await subscriber('plain.reader@example.com');
      const { total } = await asService(db, countSubscribers);

      const res = await exportCsv(admin.jar);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
      expect(res.headers.get('content-disposition')).toBe('attachment; filename="aurelia-subscribers-2026-11-25.csv"');
      expect(res.headers.get('cache-control')).toBe('private, no-store');
      const lines = res.text.split('\r\n');
      expect(lines[0]).toBe('email,subscribed_at');
      expect(lines.at(-1)).toBe('');
      expect(lines).toHaveLength(total + 2);
      expect(lines).toContainEqual(expect.stringMatching(/^plain\.reader@example\.com,\d{4}-\d\d-\d\dT/));
      expect(lines).toContainEqual(expect.stringMatching(/^"'=HYPERLINK\(""http:\/\/evil\.test"",""x""\)@example\.com",/));
      expect(lines.filter((l) => /^[=+\-@]/.test(l))).toEqual([]);
      expect((await actions('subscribers')).at(-1)).toEqual({
        action: 'subscribers.export',
        admin_email: admin.email,
        before: null,
        after: { rows: total },
      });

      // Streamed a batch at a time: with batches of 2 the same rows come out, in the same order.
      const me = await adminOf(deps, admin.jar);
      if (!me) throw new Error('the admin is no admin');
      const small = await new Response(await subscribersCsv(me, 2)).text();
      expect(small).toBe(res.text);
    });
  });
});
