import { readFileSync } from 'node:fs';
import { z } from 'astro/zod';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { type AdminCaller, type AdminDeps, adminOf } from '@/features/admin/admin.server';
import { catalogueIndex, isFinalSale } from '@/features/catalogue/catalogue';
import { productSchema } from '@/features/catalogue/product.schema';
import {
  createProduct,
  productForm,
  productHistory,
  saveBody,
  saveProduct,
  undoSave,
  uploadPicture,
} from '@/features/editor/catalogue-edit.server';
import { catalogueFiles } from '@/features/editor/catalogue-files.server';
import { fromInputs, toInputs } from '@/features/editor/catalogue-form';
import { catalogueSaveRoute, editorsSetRoute } from '@/features/editor/catalogue-routes.server';
import { catalogueSnapshot } from '@/features/editor/catalogue-snapshot.server';
import { type EditorCaller, editorFor, editorOf, setEditorRole } from '@/features/editor/editors.server';
import { productData } from '@/features/editor/product-text';
import { publishState } from '@/features/editor/publish.server';
import type { CookieJar } from '@/server/auth/auth.port';
import { createBuiltInAuth } from '@/server/auth/builtin.server';
import { asService } from '@/server/db/roles.server';
import { browser } from './browser';
import { suiteDatabase, TEST_DATABASE_KIND } from './test-database';

// The shop's catalogue editor on a real database: the editor role, saves (each a revision, checked by the build's
// schema and the catalogue guard against the catalogue as saved), history and undo, and uploaded pictures.

const db = suiteDatabase();
const auth = () => createBuiltInAuth({ db, secureCookies: false });
const SHOP = 'http://shop.test';
const PASSWORD = 'lavender-fields';
const SCRUBS = '03-clinical-scrubs.md';
const seedScrubs = readFileSync(`content/products/${SCRUBS}`, 'utf8');

let n = 0;
async function signedIn(name: string, verified = true): Promise<{ id: string; email: string; jar: CookieJar }> {
  const email = `${name}.${++n}.${Date.now()}@example.com`;
  await auth().signUp({ email, password: PASSWORD, firstName: 'Ann', lastName: 'Lee' }, { origin: SHOP });
  const jar = browser();
  if (!verified) {
    const [row] = await asService(db, (tx) => tx.query<{ id: string }>('select id from auth.users where email = $1', [email]));
    return { id: row?.id ?? '', email, jar };
  }
  await asService(db, (tx) => tx.query(`update auth.users set email_confirmed_at = now() where email = $1`, [email]));
  const login = await auth().signIn({ email, password: PASSWORD }, jar);
  if (!login.ok) throw new Error(login.error.message);
  return { id: login.value.id, email, jar };
}

let people: Promise<{ admin: AdminCaller; editor: EditorCaller; editorJar: CookieJar; deps: AdminDeps }> | undefined;
/** The suite's admin and an editor the admin granted the role. */
function team() {
  people ??= (async () => {
    const owner = await signedIn('owner');
    const deps: AdminDeps = { db, auth: auth(), adminEmails: [owner.email] };
    const admin = await adminOf(deps, owner.jar);
    if (!admin) throw new Error('no admin');
    const person = await signedIn('editor');
    await setEditorRole(admin, person.email, true);
    const editor = await editorOf(deps, person.jar);
    if (!editor) throw new Error('no editor');
    return { admin, editor, editorJar: person.jar, deps };
  })();
  return people;
}

const post = (path: string, body: unknown) =>
  new Request(`${SHOP}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: SHOP },
    body: JSON.stringify(body),
  });

const revisions = () =>
  asService(db, (tx) => tx.query<{ n: number }>('select count(*)::int as n from public.catalogue_revisions')).then(
    (r) => r[0]?.n,
  );

const textOf = async (file: string) => (await catalogueFiles(db)).get(file) ?? '';

describe(`the editor role on ${TEST_DATABASE_KIND}`, { timeout: 30_000 }, () => {
  it('an admin grants and removes it by e-mail, each change in the activity log; it takes effect at once', async () => {
    const { admin, deps } = await team();
    const person = await signedIn('writer');
    expect(await editorFor(db, deps.adminEmails, person.id)).toBeNull();
    expect(await setEditorRole(admin, person.email.toUpperCase(), true)).toMatchObject({ ok: true, changed: true });
    expect(await editorFor(db, deps.adminEmails, person.id)).toEqual({ id: person.id, email: person.email, admin: false });
    // Twice is once: nothing more is recorded.
    expect(await setEditorRole(admin, person.email, true)).toMatchObject({ ok: true, changed: false });
    expect(await setEditorRole(admin, person.email, false)).toMatchObject({ ok: true, changed: true });
    expect(await editorOf(deps, person.jar)).toBeNull();
    const actions = await asService(db, (tx) =>
      tx.query<{ action: string; admin_email: string }>(
        'select action, admin_email from public.admin_actions where target = $1 order by id',
        [person.email],
      ),
    );
    expect(actions).toEqual([
      { action: 'editor.grant', admin_email: admin.admin.email },
      { action: 'editor.remove', admin_email: admin.admin.email },
    ]);
  });

  it('is not granted to an address without an account, nor to one not yet verified', async () => {
    const { admin } = await team();
    expect(await setEditorRole(admin, 'nobody@example.com', true)).toMatchObject({ ok: false, status: 404 });
    const unverified = await signedIn('unverified', false);
    expect(await setEditorRole(admin, unverified.email, true)).toMatchObject({ ok: false, status: 400 });
    expect(await editorFor(db, [], unverified.id)).toBeNull();
  });

  it('admins can edit; a shopper and a guest cannot; an editor is no admin', async () => {
    const { deps, editorJar } = await team();
    const adminPerson = await signedIn('second-owner');
    expect(await editorFor(db, [adminPerson.email], adminPerson.id)).toMatchObject({ admin: true });
    const shopper = await signedIn('shopper');
    expect(await editorOf(deps, shopper.jar)).toBeNull();
    expect(await editorOf(deps, browser())).toBeNull();
    expect(await adminOf(deps, editorJar)).toBeNull();
  });

  it('only an admin reaches the role endpoint: an editor is told they have catalogue access only', async () => {
    const { deps } = await team();
    const person = await signedIn('pushy-editor');
    const { admin } = await team();
    await setEditorRole(admin, person.email, true);
    const res = await editorsSetRoute(deps, post('/api/admin/editors', { email: person.email, editor: false }), person.jar);
    expect(res.status).toBe(403);
    expect(await res.json()).toMatchObject({ error: { code: 'catalogue_only' } });
    expect(await editorOf(deps, person.jar)).not.toBeNull();
  });
});

describe(`saving the catalogue on ${TEST_DATABASE_KIND}`, { timeout: 30_000 }, () => {
  it('a price change is one revision, one line of the file, with who and what changed in words', async () => {
    const { editor } = await team();
    const form = await asService(db, (tx) => productForm(tx, SCRUBS));
    expect(form).toMatchObject({ revision: 0, id: 3, likes: 57, published: true });
    // Every field, as the form sends them: the body schema takes what the form was given.
    const result = await saveProduct(editor, SCRUBS, saveBody.parse({ base: 0, fields: { ...form?.fields, price: 47 } }));
    expect(result).toMatchObject({ ok: true, saved: true, summary: 'price $45.00 → $47.00' });
    const text = await textOf(SCRUBS);
    expect(text.replace('price: 47\n', 'price: 45\n')).toBe(seedScrubs);
    const [latest] = await asService(db, (tx) => productHistory(tx, SCRUBS));
    expect(latest).toMatchObject({ by: editor.editor.email, summary: 'price $45.00 → $47.00', undoes: null, published: false });
    expect((await publishState(db)).unpublishedSaves).toBeGreaterThan(0);
  });

  it('refuses a price with three decimals in words, beside the price, and saves nothing', async () => {
    const { editor } = await team();
    const form = await asService(db, (tx) => productForm(tx, SCRUBS));
    const before = await revisions();
    const result = await saveProduct(editor, SCRUBS, { base: form?.revision ?? 0, fields: { price: 29.999 } });
    const message = 'Price can have at most two decimals (whole cents), for example 29.99.';
    expect(result).toEqual({ ok: false, status: 400, code: 'invalid_product', message, problems: [{ field: 'price', message }] });
    expect(await revisions()).toBe(before);
  });

  it('the id, the file name and the like count cannot be changed, even by a crafted request', async () => {
    const { editor, deps } = await team();
    for (const fields of [{ id: 99 }, { likes: 100000 }, { file: 'x.md' }]) {
      const parsed = saveBody.safeParse({ base: 0, fields });
      expect(parsed.success).toBe(false);
      expect(parsed.error?.issues[0]?.message).toBe('The id, the file name and the like count cannot be changed in the editor.');
    }
    // Through the endpoint, as the editor: refused before anything is read into the file.
    const before = await revisions();
    const { editorJar } = await team();
    for (const fields of [{ id: 99 }, { likes: 1 }, { price: 45, file: 'evil.md' }]) {
      const res = await catalogueSaveRoute(
        deps,
        post('/api/admin/catalogue/products/03-clinical-scrubs', { base: 1, fields }),
        editorJar,
        '03-clinical-scrubs',
      );
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({
        error: { message: 'The id, the file name and the like count cannot be changed in the editor.' },
      });
    }
    expect(await revisions()).toBe(before);
    expect(editor.editor.admin).toBe(false);
  });

  it('a save made against an older text is refused (409), so two editors do not overwrite each other unseen', async () => {
    const { editor } = await team();
    const result = await saveProduct(editor, SCRUBS, { base: 0, fields: { price: 48 } });
    expect(result).toMatchObject({ ok: false, status: 409, code: 'changed_meanwhile' });
  });

  it('ids and SKUs stay unique across the catalogue as saved, not only as seeded', async () => {
    const { editor } = await team();
    const soap = '07-kojic-acid-soap.md';
    const form = await asService(db, (tx) => productForm(tx, soap));
    expect(await saveProduct(editor, soap, { base: form?.revision ?? 0, fields: { sku: 'AUR-FRESH-1' } })).toMatchObject({
      ok: true,
    });
    const oil = '06-turmeric-body-oil.md';
    const oilForm = await asService(db, (tx) => productForm(tx, oil));
    expect(await saveProduct(editor, oil, { base: oilForm?.revision ?? 0, fields: { sku: 'AUR-FRESH-1' } })).toMatchObject({
      ok: false,
      status: 400,
      problems: [{ field: 'sku', message: 'This SKU is already used by Kojic Acid Soap.' }],
    });
  });

  it('undo is a new save of the text before that save; the history keeps both', async () => {
    const { editor } = await team();
    const file = '05-vitamin-c-body-butter.md';
    const seed = await textOf(file);
    const form = await asService(db, (tx) => productForm(tx, file));
    const first = await saveProduct(editor, file, { base: form?.revision ?? 0, fields: { name: 'Vitamin C Butter' } });
    if (!first.ok) throw new Error(first.message);
    const second = await saveProduct(editor, file, { base: first.revision, fields: { inStock: false } });
    if (!second.ok) throw new Error(second.message);
    // Undoing the first save restores the text before it: the seed's (the later save's change goes with it).
    const undone = await undoSave(editor, first.revision);
    expect(undone).toMatchObject({ ok: true, saved: true, file });
    expect(await textOf(file)).toBe(seed);
    const history = await asService(db, (tx) => productHistory(tx, file));
    expect(history.map((h) => h.undoes)).toEqual([first.revision, null, null]);
    expect(history[0]?.summary).toMatch(/^undo of “name “.+” → “Vitamin C Butter””: /);
    // Undoing the undo brings the second save's text back.
    expect(await undoSave(editor, history[0]?.id ?? 0)).toMatchObject({ ok: true, saved: true });
    expect(await textOf(file)).toContain('inStock: false');
    expect(await undoSave(editor, 999_999)).toMatchObject({ ok: false, status: 404 });
  });

  it('an undo must pass the guard too: it cannot take back a SKU another product has since', async () => {
    const { editor } = await team();
    const a = '08-turmeric-face-soap.md';
    const b = '09-12-herb-hair-oil.md';
    const aSku = String((await asService(db, (tx) => productForm(tx, a)))?.fields.sku);
    const renamed = await saveProduct(editor, a, {
      base: (await asService(db, (tx) => productForm(tx, a)))?.revision ?? 0,
      fields: { sku: 'AUR-TFS-NEW' },
    });
    if (!renamed.ok) throw new Error(renamed.message);
    const taken = await saveProduct(editor, b, {
      base: (await asService(db, (tx) => productForm(tx, b)))?.revision ?? 0,
      fields: { sku: aSku },
    });
    expect(taken).toMatchObject({ ok: true });
    const before = await revisions();
    expect(await undoSave(editor, renamed.revision)).toMatchObject({
      ok: false,
      status: 400,
      message: `This save cannot be undone now. It would bring back the SKU ${aSku}, which 12-Herb Hair Oil now uses.`,
    });
    expect(await revisions()).toBe(before);
  });

  it('pictures: an SVG carrying script is refused; a picture uploaded can be used; one that does not exist cannot', async () => {
    const { editor } = await team();
    const evil = new TextEncoder().encode('<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>');
    expect(await uploadPicture(editor, 'evil.svg', evil)).toMatchObject({ ok: false, status: 400 });
    // A PNG whose bytes after its header are HTML: known as a PNG by its first bytes, but no picture (the build could not
    // read it, and every publish would fail): refused in words, nothing stored.
    const notPng = new Uint8Array(Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), Buffer.from('<html>hi</html>')]));
    const pictures = async () =>
      (await asService(db, (tx) => tx.query<{ n: number }>('select count(*)::int as n from public.catalogue_pictures')))[0]?.n;
    const before = await pictures();
    expect(await uploadPicture(editor, 'jar.png', notPng)).toEqual({
      ok: false,
      status: 400,
      code: 'invalid_picture',
      message: expect.stringMatching(/^This PNG picture cannot be read: /),
    });
    expect(await pictures()).toBe(before);
    const png = new Uint8Array(
      await sharp({ create: { width: 4, height: 3, channels: 3, background: '#c9a063' } })
        .png()
        .toBuffer(),
    );
    const uploaded = await uploadPicture(editor, 'Side View.png', png);
    if (!uploaded.ok) throw new Error(uploaded.message);
    expect(uploaded.name).toMatch(/^side-view-[0-9a-f]{12}\.png$/);
    // The same bytes again: the same name, stored once.
    expect(await uploadPicture(editor, 'Side View.png', png)).toEqual(uploaded);
    const file = '02-turmeric-body-butter.md';
    const form = await asService(db, (tx) => productForm(tx, file));
    expect(form?.pictures).toContain(uploaded.name);
    const images = [...((form?.fields.images as { src: string; alt: string }[]) ?? [])];
    const missing = await saveProduct(editor, file, {
      base: form?.revision ?? 0,
      fields: { images: [...images, { src: './images/not-there.png', alt: 'Side' }] },
    });
    expect(missing).toMatchObject({
      ok: false,
      problems: [
        {
          field: `images.${images.length}.src`,
          message: `Picture ${images.length + 1} (not-there.png) is not among the shop’s pictures: upload it again, or choose another.`,
        },
      ],
    });
    const used = await saveProduct(editor, file, {
      base: form?.revision ?? 0,
      fields: { images: [...images, { src: uploaded.src, alt: 'The jar from the side' }] },
    });
    expect(used).toMatchObject({ ok: true, saved: true, summary: `pictures: added ${uploaded.name}` });
  });

  it('a new product starts as a copy of another, with the next free id, its own name and SKU, no likes or reviews', async () => {
    const { editor } = await team();
    const taken = await createProduct(editor, { from: '07-kojic-acid-soap.md', name: 'Rose Soap', sku: 'AUR-VCBC-8OZ' });
    expect(taken).toMatchObject({ ok: false, status: 400, message: 'This SKU is already used by Vitamin C Body Cream.' });
    const created = await createProduct(editor, { from: '07-kojic-acid-soap.md', name: 'Rose Soap', sku: 'AUR-ROSE-1' });
    expect(created).toMatchObject({ ok: true, file: '10-rose-soap.md', slug: '10-rose-soap', id: 10 });
    const form = await asService(db, (tx) => productForm(tx, '10-rose-soap.md'));
    expect(form).toMatchObject({
      id: 10,
      likes: 0,
      reviews: 0,
      published: false,
      fields: { name: 'Rose Soap', sku: 'AUR-ROSE-1' },
    });
    expect(form?.history.map((h) => h.summary)).toEqual(['created from “Kojic Acid Soap”']);
    expect((await catalogueFiles(db)).has('10-rose-soap.md')).toBe(true);
    // The save that created it has nothing before it to go back to.
    expect(await undoSave(editor, created.ok ? created.revision : 0)).toMatchObject({ ok: false, code: 'cannot_undo' });
  });

  it('final sale: the form’s box marks a product, the publish builds it so, and unticking it takes it back', async () => {
    const { editor, deps, editorJar } = await team();
    const file = '02-turmeric-body-butter.md';
    const form = await asService(db, (tx) => productForm(tx, file));
    if (!form) throw new Error('no form');
    // The seed files say finalSale as Keystatic writes it; one without the field counts as false.
    expect(form.fields.finalSale ?? false).toBe(false);
    // The whole form as the island sends it, the box unticked: nothing is written.
    const inputs = toInputs(form.fields);
    expect(inputs.finalSale).toBe(false);
    const send = (finalSale: boolean, base: number) => {
      const sent = fromInputs({ ...inputs, finalSale }, form.fields);
      if (!('fields' in sent)) throw new Error(sent.problems[0]?.message);
      return saveProduct(editor, file, saveBody.parse({ base, fields: sent.fields }));
    };
    expect(await send(false, form.revision)).toMatchObject({ ok: true, saved: false });
    const marked = await send(true, form.revision);
    expect(marked).toMatchObject({ ok: true, saved: true, summary: 'marked final sale' });
    if (!marked.ok) throw new Error(marked.message);
    // What a publish of that save builds: the build's schema reads it as final sale, and so does the server's index.
    const built = (await catalogueSnapshot(db, marked.revision)).files.get(file) ?? '';
    expect(built).toContain('\nfinalSale: true\n');
    const product = productSchema(z.string()).parse(productData(built));
    expect(product.finalSale).toBe(true);
    expect(
      isFinalSale(
        catalogueIndex([product], () => ''),
        product.id,
      ),
    ).toBe(true);
    // Not a boolean: refused at the endpoint, nothing saved.
    const before = await revisions();
    const res = await catalogueSaveRoute(
      deps,
      post(`/api/admin/catalogue/products/${file.replace('.md', '')}`, { base: marked.revision, fields: { finalSale: 'yes' } }),
      editorJar,
      file.replace('.md', ''),
    );
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      error: {
        code: 'invalid_request',
        message: 'Final sale must be ticked or not ticked.',
        field: 'finalSale',
        problems: [{ field: 'finalSale', message: 'Final sale must be ticked or not ticked.' }],
      },
    });
    expect(await revisions()).toBe(before);
    const unmarked = await send(false, marked.revision);
    expect(unmarked).toMatchObject({ ok: true, saved: true, summary: 'no longer final sale' });
    const after = productSchema(z.string()).parse(productData(await textOf(file)));
    expect(after.finalSale).toBe(false);
  });

  it('colours: one renamed, one added (hasColors follows the list), and a product without colours gains none by a save', async () => {
    const { editor } = await team();
    const form = await asService(db, (tx) => productForm(tx, SCRUBS));
    const colors = [...((form?.fields.colors as { name: string; value: string; hex: string }[]) ?? [])];
    const next = [{ ...colors[0], name: 'Royal Blue' }, ...colors.slice(1), { name: 'Wine', value: 'wine', hex: '#6d1f2f' }];
    const result = await saveProduct(editor, SCRUBS, saveBody.parse({ base: form?.revision ?? 0, fields: { colors: next } }));
    expect(result).toMatchObject({ ok: true, saved: true, summary: 'colours changed' });
    const after = await asService(db, (tx) => productForm(tx, SCRUBS));
    expect(((after?.fields.colors ?? []) as { name: string }[]).map((c) => c.name)).toEqual([
      'Royal Blue',
      'Grey',
      'Powder Blue',
      'Black',
      'Wine',
    ]);
    const cream = await asService(db, (tx) => productForm(tx, '01-vitamin-c-body-cream.md'));
    const none = await saveProduct(
      editor,
      '01-vitamin-c-body-cream.md',
      saveBody.parse({ base: cream?.revision ?? 0, fields: { colors: [] } }),
    );
    expect(none).toMatchObject({ ok: true, saved: false });
    // Colours taken away: hasColors follows, and the build's rule (hasColors exactly when colours are listed) holds.
    const bare = await saveProduct(editor, SCRUBS, saveBody.parse({ base: after?.revision ?? 0, fields: { colors: [] } }));
    expect(bare).toMatchObject({ ok: true, saved: true });
    expect(await textOf(SCRUBS)).toContain('hasColors: false\ncolors: []\n');
  });
});
