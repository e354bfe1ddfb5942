import { z } from 'astro/zod';
import { describe, expect, it } from 'vitest';
import { adminOf } from '@/features/admin/admin.server';
import { catalogueIndex } from '@/features/catalogue/catalogue';
import { productSchema } from '@/features/catalogue/product.schema';
import { FALLBACK_RATE_ID } from '@/features/checkout/checkout';
import { startCheckout } from '@/features/checkout/start-checkout.server';
import { saveBody, saveProduct } from '@/features/editor/catalogue-edit.server';
import { liveRevision } from '@/features/editor/catalogue-files.server';
import { frontMatter } from '@/features/editor/catalogue-guard';
import { catalogueSnapshot } from '@/features/editor/catalogue-snapshot.server';
import { editorOf, setEditorRole } from '@/features/editor/editors.server';
import { checkoutPriceCents, previewAccess, previewCatalogue } from '@/features/editor/preview.server';
import { checkPreviewLink, previewKey, signPreviewLink } from '@/features/editor/preview-link.server';
import { type PreviewDeps, previewLinkRoute, previewPictureRoute } from '@/features/editor/preview-routes.server';
import type { CookieJar } from '@/server/auth/auth.port';
import { createBuiltInAuth } from '@/server/auth/builtin.server';
import { asService, asShopper } from '@/server/db/roles.server';
import { createTestProcessor } from '@/server/payments/test-processor.server';
import { browser } from './browser';
import { suiteDatabase, TEST_DATABASE_KIND } from './test-database';

// Previews of the catalogue as saved (issue 44, part 2), on a real database: the preview shows the saved price while
// what shoppers are served keeps the old one; the price it says the checkout charges is the one the checkout charges
// once published; and who may see it: an editor's session, or a signed link to one product that has not expired.

const db = suiteDatabase();
const auth = () => createBuiltInAuth({ db, secureCookies: false });
const SHOP = 'http://shop.test';
const PASSWORD = 'lavender-fields';
const BUTTER = '05-vitamin-c-body-butter.md';
const BUTTER_ID = 5;

let n = 0;
async function signedIn(name: string): Promise<{ id: string; email: string; jar: CookieJar }> {
  const email = `${name}.${++n}.${Date.now()}@example.com`;
  await auth().signUp({ email, password: PASSWORD, firstName: 'Ann', lastName: 'Lee' }, { origin: SHOP });
  await asService(db, (tx) => tx.query('update auth.users set email_confirmed_at = now() where email = $1', [email]));
  const jar = browser();
  const login = await auth().signIn({ email, password: PASSWORD }, jar);
  if (!login.ok) throw new Error(login.error.message);
  return { id: login.value.id, email, jar };
}

type Person = Awaited<ReturnType<typeof signedIn>>;
let people: Promise<{ deps: PreviewDeps; owner: Person; editor: Person; shopper: Person }> | undefined;
/** The suite's owner (an admin), an editor the owner granted the role, and a shopper. */
function team() {
  people ??= (async () => {
    const owner = await signedIn('owner');
    const deps: PreviewDeps = {
      db,
      auth: auth(),
      adminEmails: [owner.email],
      timeZone: 'America/New_York',
      publicOrigin: SHOP,
    };
    const admin = await adminOf(deps, owner.jar);
    if (!admin) throw new Error('no admin');
    const editor = await signedIn('editor');
    await setEditorRole(admin, editor.email, true);
    return { deps, owner, editor, shopper: await signedIn('shopper') };
  })();
  return people;
}

const pictureUrl = (name: string) => `/preview/pictures/${name}`;
const post = (body: unknown) =>
  new Request(`${SHOP}/api/admin/catalogue/preview-links`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: SHOP },
    body: JSON.stringify(body),
  });

/** Saves the body butter at `price` dollars as the suite's editor, as the form does. */
async function savePrice(price: number) {
  const { deps, editor } = await team();
  const me = await editorOf(deps, editor.jar);
  if (!me) throw new Error('no editor');
  const [row] = await asService(db, (tx) =>
    tx.query<{ id: string | number }>('select coalesce(max(id), 0) as id from public.catalogue_revisions where file = $1', [
      BUTTER,
    ]),
  );
  const result = await saveProduct(me, BUTTER, saveBody.parse({ base: Number(row?.id ?? 0), fields: { price } }));
  if (!result.ok) throw new Error(result.message);
  return result.revision;
}

/** Marks the catalogue as of save `upTo` live, as a finished publish does (the build itself is publish.test.ts's). */
const published = (upTo: number) =>
  asService(db, (tx) =>
    tx.query(
      `insert into public.catalogue_publishes (requested_by_email, status, up_to_revision, finished_at)
       values ('owner@example.com', 'live', $1, now())`,
      [upTo],
    ),
  );

/** The checkout's catalogue as a build made from `files` has it: every file through the build's schema. */
function indexOf(files: Map<string, string>) {
  const schema = productSchema(z.string());
  return catalogueIndex(
    [...files.values()].map((text) => schema.parse(frontMatter(text))),
    (p) => p.images[0]?.src ?? '',
  );
}

const address = {
  name: 'Grace Hopper',
  email: 'grace@example.com',
  street1: '12 Bull St',
  city: 'Savannah',
  state: 'GA',
  zip: '31401',
  country: 'US' as const,
};

describe(`the catalogue's preview on ${TEST_DATABASE_KIND}`, { timeout: 60_000 }, () => {
  it('shows the saved, unpublished price, while what shoppers are served keeps the published one', async () => {
    const first = await savePrice(28);
    await published(first);
    const saved = await savePrice(27.5);
    const preview = await previewCatalogue(db, { pictureUrl });
    expect(preview.upTo).toBe(saved);
    expect(preview.products.find((p) => p.id === BUTTER_ID)).toMatchObject({ name: 'Vitamin C Body Butter', priceCents: 2750 });
    expect(preview.changed).toEqual(new Set([BUTTER_ID]));
    expect(preview.problems).toEqual([]);
    expect(preview.products.map((p) => p.id)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    // Pictures as the page components take them: measured, and sent from the preview's own address.
    const [picture] = preview.products[0]?.images ?? [];
    expect(picture?.src).toMatchObject({ src: expect.stringMatching(/^\/preview\/pictures\/[a-z0-9-]+\.svg$/), format: 'svg' });
    expect(picture?.src.width).toBeGreaterThan(0);
    // What is live: the publish's catalogue, built from the same files at its own save.
    const live = await asService(db, liveRevision);
    expect(live).toBe(first);
    const served = await previewCatalogue(db, { pictureUrl, upTo: live });
    expect(served.products.find((p) => p.id === BUTTER_ID)?.priceCents).toBe(2800);
  });

  it('is the catalogue the next publish builds, and says the price its checkout will charge', async () => {
    await savePrice(26.25);
    const preview = await previewCatalogue(db, { pictureUrl });
    expect(checkoutPriceCents(preview, BUTTER_ID)).toBe(2625);
    // The publish now: its snapshot, as publishQueued claims it (every save so far).
    const snapshot = await catalogueSnapshot(db, preview.upTo);
    const next = indexOf(snapshot.files);
    expect([...next.values()].map((p) => [p.id, p.name, p.priceCents])).toEqual(
      preview.products.map((p) => [p.id, p.name, p.priceCents]),
    );
    expect([...snapshot.pictures.keys()].sort()).toEqual([...preview.pictures].sort());
    // The checkout after the publish charges what the preview said; the one served now, the published price.
    const payments = createTestProcessor(db, { webhookSecret: 'whsec_preview' });
    const lines = [{ productId: BUTTER_ID, quantity: 2, selectedColor: null, selectedSize: null }];
    const after = await startCheckout(db, payments, next, null, { lines, address, rateId: FALLBACK_RATE_ID });
    if (!after.ok) throw new Error(after.message);
    expect(after.totals.subtotalCents).toBe(2 * (checkoutPriceCents(preview, BUTTER_ID) ?? 0));
    const live = indexOf((await catalogueSnapshot(db, await asService(db, liveRevision))).files);
    const now = await startCheckout(db, payments, live, null, {
      lines,
      address: { ...address, email: 'ada@example.com' },
      rateId: FALLBACK_RATE_ID,
    });
    if (!now.ok) throw new Error(now.message);
    expect(now.totals.subtotalCents).toBe(2 * 2800);
  });

  it('opens for editors and admins by their session, and is the stranger’s 404 for a guest or a shopper', async () => {
    const { deps, owner, editor, shopper } = await team();
    const open = (jar: CookieJar, productId: number | null = BUTTER_ID) => previewAccess(deps, { jar, token: null, productId });
    expect(await open(browser())).toEqual({ ok: false, status: 404 });
    expect(await open(shopper.jar)).toEqual({ ok: false, status: 404 });
    expect(await open(shopper.jar, null)).toEqual({ ok: false, status: 404 });
    expect(await open(editor.jar)).toMatchObject({ ok: true, viewer: { editor: { email: editor.email, admin: false } } });
    expect(await open(owner.jar, null)).toMatchObject({ ok: true, viewer: { editor: { email: owner.email, admin: true } } });
  });

  it('opens by a link an editor made, for that product and the home page only, and the owner sees it was made', async () => {
    const { deps, editor, shopper } = await team();
    const res = await previewLinkRoute(deps, post({ file: BUTTER, hours: 24 }), editor.jar);
    expect(res.status).toBe(201);
    const link = (await res.json()) as { url: string; expiresAt: string; message: string };
    const url = new URL(link.url);
    expect(url.origin).toBe(SHOP);
    expect(url.pathname).toBe(`/preview/product/${BUTTER_ID}`);
    const hours = (new Date(link.expiresAt).getTime() - Date.now()) / 3600_000;
    expect(hours).toBeGreaterThan(23.9);
    expect(hours).toBeLessThanOrEqual(24);
    expect(link.message).toMatch(
      /^Anyone with this link can see the preview of Vitamin C Body Butter \(and of the home page\) until .+, without an account\. It opens nothing else\.$/,
    );
    const token = url.searchParams.get('link');
    const open = (productId: number | null, jar: CookieJar = browser()) => previewAccess(deps, { jar, token, productId });
    expect(await open(BUTTER_ID)).toMatchObject({
      ok: true,
      viewer: { editor: null, link: { grant: { productId: BUTTER_ID } } },
    });
    expect(await open(null)).toMatchObject({ ok: true });
    // Another product's preview, with this link: refused, and pointed back at its own.
    expect(await open(3)).toMatchObject({
      ok: false,
      status: 403,
      title: 'This preview link is for another product',
      linkProductId: 5,
    });
    // A shopper holding it sees the preview, as a guest does: the link is not their account's.
    expect(await open(BUTTER_ID, shopper.jar)).toMatchObject({ ok: true, viewer: { editor: null } });
    const [logged] = await asService(db, (tx) =>
      tx.query<{ action: string; admin_email: string; target: string; after: string }>(
        `select action, admin_email, target, after from public.admin_actions where action = 'catalogue.preview_link'
          order by id desc limit 1`,
      ),
    );
    expect(logged).toMatchObject({
      action: 'catalogue.preview_link',
      admin_email: editor.email,
      target: 'Vitamin C Body Butter',
    });
    expect(logged?.after).toMatch(/^a link to its preview, working until /);
  });

  it('refuses a changed, expired, foreign or cancelled link, each in words', async () => {
    const { deps, owner, editor } = await team();
    const key = await previewKey(db);
    const now = Date.now();
    const grant = { productId: BUTTER_ID, expiresAt: new Date(now + 3600_000), by: editor.id };
    const open = (token: string) => previewAccess(deps, { jar: browser(), token, productId: BUTTER_ID });
    const good = signPreviewLink(grant, key);
    // Another product's id written into a link to this one.
    expect(await open(good.replace(/^5\./, '3.'))).toMatchObject({ status: 403, title: 'This preview link is not valid' });
    expect(await open(good.slice(0, -2))).toMatchObject({ status: 403, title: 'This preview link is not valid' });
    expect(await open('')).toMatchObject({ status: 403, title: 'This preview link is not valid' });
    // Signed with another key: another shop's, or one made up.
    expect(await open(signPreviewLink(grant, Buffer.alloc(32, 7)))).toMatchObject({ status: 403 });
    const expired = await open(signPreviewLink({ ...grant, expiresAt: new Date(now - 1000) }, key));
    expect(expired).toMatchObject({ ok: false, status: 410, title: 'This preview link has expired' });
    expect('message' in expired && expired.message).toMatch(
      /^It worked until [A-Z][a-z]{2} \d{1,2}, \d{4}, \d{1,2}:\d\d [AP]M E[SD]T\./,
    );
    // The editor who made it loses the role: their links stop working at once.
    const gone = await signedIn('former-editor');
    const admin = await adminOf(deps, owner.jar);
    if (!admin) throw new Error('no admin');
    await setEditorRole(admin, gone.email, true);
    const theirs = signPreviewLink({ ...grant, by: gone.id }, key);
    expect(await open(theirs)).toMatchObject({ ok: true });
    await setEditorRole(admin, gone.email, false);
    expect(await open(theirs)).toMatchObject({ ok: false, status: 410, title: 'This preview link no longer works' });
    // A link made by an account that was never an editor (a key that leaked would still need one).
    expect(await open(signPreviewLink({ ...grant, by: gone.id }, key))).toMatchObject({ status: 410 });
  });

  it('makes links only for editors, for a product that exists, for an expiry an editor may choose', async () => {
    const { deps, editor, shopper } = await team();
    const count = async () =>
      (
        await asService(db, (tx) =>
          tx.query<{ n: number }>(`select count(*)::int as n from public.admin_actions where action = 'catalogue.preview_link'`),
        )
      )[0]?.n;
    const before = await count();
    expect((await previewLinkRoute(deps, post({ file: BUTTER, hours: 24 }), browser())).status).toBe(404);
    expect((await previewLinkRoute(deps, post({ file: BUTTER, hours: 24 }), shopper.jar)).status).toBe(404);
    for (const body of [
      { file: BUTTER, hours: 200 },
      { file: BUTTER, hours: 0 },
      { file: BUTTER, hours: '24' },
      { file: BUTTER },
      { file: '../../etc/passwd', hours: 24 },
      { file: BUTTER, hours: 24, productId: 3 },
    ]) {
      const res = await previewLinkRoute(deps, post(body), editor.jar);
      expect(res.status, JSON.stringify(body)).toBe(400);
    }
    const missing = await previewLinkRoute(deps, post({ file: '42-nothing.md', hours: 1 }), editor.jar);
    expect(missing.status).toBe(404);
    expect(await count()).toBe(before);
    // An hour, a day, three days, a week: each works as long as chosen.
    for (const hours of [1, 72, 168]) {
      const res = await previewLinkRoute(deps, post({ file: BUTTER, hours }), editor.jar);
      const { expiresAt } = (await res.json()) as { expiresAt: string };
      expect(Math.round((new Date(expiresAt).getTime() - Date.now()) / 3600_000)).toBe(hours);
    }
  });

  it('sends the preview’s pictures to an editor or a link’s holder only, never stored', async () => {
    const { deps, editor } = await team();
    const preview = await previewCatalogue(db, { pictureUrl: (name) => name });
    const name = [...preview.pictures][0] ?? '';
    const res = await previewPictureRoute(deps, editor.jar, null, name);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/svg+xml');
    expect(res.headers.get('cache-control')).toBe('private, no-store');
    expect(res.headers.get('content-security-policy')).toContain('sandbox');
    expect((await res.arrayBuffer()).byteLength).toBeGreaterThan(100);
    const token = signPreviewLink(
      { productId: BUTTER_ID, expiresAt: new Date(Date.now() + 60_000), by: editor.id },
      await previewKey(db),
    );
    expect((await previewPictureRoute(deps, browser(), token, name)).status).toBe(200);
    expect((await previewPictureRoute(deps, browser(), null, name)).status).toBe(404);
    expect(
      (await previewPictureRoute(deps, browser(), `${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`, name)).status,
    ).toBe(403);
    // Only what the preview shows: not a file elsewhere, not a picture no product shows.
    for (const other of ['../../package.json', 'package.json', 'not-shown-anywhere.svg'])
      expect((await previewPictureRoute(deps, editor.jar, null, other)).status, other).toBe(404);
  });

  it('keeps one key for every server, made once whoever asks first; replacing it ends every link', async () => {
    const { editor } = await team();
    const before = await previewKey(db);
    await asService(db, (tx) => tx.query(`delete from app_private.shop_secrets where name = 'preview-links'`));
    const keys = await Promise.all(Array.from({ length: 6 }, () => previewKey(db)));
    expect(new Set(keys.map((k) => k.toString('hex'))).size).toBe(1);
    expect(keys[0]?.length).toBe(32);
    expect(keys[0]?.equals(before)).toBe(false);
    const old = signPreviewLink({ productId: BUTTER_ID, expiresAt: new Date(Date.now() + 60_000), by: editor.id }, before);
    expect(checkPreviewLink(old, await previewKey(db))).toEqual({ ok: false, reason: 'invalid' });
    // No guest or shopper reaches the key, by any path the database offers.
    const claims = { sub: editor.id, email: editor.email, role: 'authenticated' as const };
    for (const who of [null, claims])
      await expect(asShopper(db, who, (tx) => tx.query('select secret from app_private.shop_secrets'))).rejects.toThrow(
        /permission denied/,
      );
  });
});
