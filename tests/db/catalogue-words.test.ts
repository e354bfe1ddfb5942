import { describe, expect, it } from 'vitest';
import { type AdminDeps, adminOf } from '@/features/admin/admin.server';
import { productForm } from '@/features/editor/catalogue-edit.server';
import { type FormInputs, fromInputs, toInputs } from '@/features/editor/catalogue-form';
import {
  catalogueCreateRoute,
  catalogueProductRoute,
  catalogueSaveRoute,
  catalogueUndoRoute,
} from '@/features/editor/catalogue-routes.server';
import { setEditorRole } from '@/features/editor/editors.server';
import { differences, merged } from '@/features/editor/save-conflict';
import type { CookieJar } from '@/server/auth/auth.port';
import { createBuiltInAuth } from '@/server/auth/builtin.server';
import { asService } from '@/server/db/roles.server';
import { browser } from './browser';
import { suiteDatabase, TEST_DATABASE_KIND } from './test-database';

// What the editor's endpoints answer when the shop cannot take a save, on a real database: a 400 whose body names each
// field the form shows and says what is wrong in the shop's words (error.problems), and nothing saved.

const db = suiteDatabase();
const auth = () => createBuiltInAuth({ db, secureCookies: false });
const SHOP = 'http://shop.test';
const SCRUBS = '03-clinical-scrubs';

let n = 0;
async function signedIn(name: string): Promise<{ email: string; jar: CookieJar }> {
  const email = `${name}.${++n}.${Date.now()}@example.com`;
  await auth().signUp({ email, password: 'lavender-fields', firstName: 'Ann', lastName: 'Lee' }, { origin: SHOP });
  await asService(db, (tx) => tx.query('update auth.users set email_confirmed_at = now() where email = $1', [email]));
  const jar = browser();
  const login = await auth().signIn({ email, password: 'lavender-fields' }, jar);
  if (!login.ok) throw new Error(login.error.message);
  return { email, jar };
}

let people: Promise<{ deps: AdminDeps; jar: CookieJar }> | undefined;
/** An editor the suite's admin granted the role, signed in. */
function editor() {
  people ??= (async () => {
    const owner = await signedIn('owner');
    const deps: AdminDeps = { db, auth: auth(), adminEmails: [owner.email] };
    const admin = await adminOf(deps, owner.jar);
    if (!admin) throw new Error('no admin');
    const person = await signedIn('editor');
    await setEditorRole(admin, person.email, true);
    return { deps, jar: person.jar };
  })();
  return people;
}

const post = (path: string, body: unknown) =>
  new Request(`${SHOP}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: SHOP },
    body: JSON.stringify(body),
  });

const revisions = async () =>
  (await asService(db, (tx) => tx.query<{ n: number }>('select count(*)::int as n from public.catalogue_revisions')))[0]?.n;

const formOf = async (slug: string) => {
  const form = await asService(db, (tx) => productForm(tx, `${slug}.md`));
  if (!form) throw new Error(`no ${slug}`);
  return form;
};

/** The save the island sends for `slug` with `typed` changed on its form: every field, as the page holds them. */
async function saveAsTyped(slug: string, typed: (inputs: FormInputs) => FormInputs, base?: number) {
  const form = await formOf(slug);
  const sent = fromInputs(typed(toInputs(form.fields)), form.fields);
  if (!('fields' in sent)) throw new Error(sent.problems[0]?.message);
  const { deps, jar } = await editor();
  const res = await catalogueSaveRoute(
    deps,
    post(`/api/admin/catalogue/products/${slug}`, { base: base ?? form.revision, fields: sent.fields }),
    jar,
    slug,
  );
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe(`the editor's refusals, as its endpoints answer them, on ${TEST_DATABASE_KIND}`, { timeout: 30_000 }, () => {
  it('a price of nothing, an undescribed picture and another product’s SKU: one 400 naming each field, in words', async () => {
    const before = await revisions();
    const answer = await saveAsTyped(SCRUBS, (inputs) => ({
      ...inputs,
      price: '0',
      sku: 'AUR-VCBC-8OZ',
      images: inputs.images.map((im, i) => (i === 2 ? { ...im, alt: ' ' } : im)),
    }));
    const problems = [
      { field: 'price', message: 'Price must be more than $0.00.' },
      { field: 'images.2.alt', message: 'Picture 3 needs a description for people who cannot see it.' },
      { field: 'sku', message: 'This SKU is already used by Vitamin C Body Cream.' },
    ];
    expect(answer).toEqual({
      status: 400,
      body: {
        error: {
          code: 'invalid_product',
          message: problems.map((p) => p.message).join(' '),
          field: 'price',
          problems,
        },
      },
    });
    expect(await revisions()).toBe(before);
  });

  it('a colour’s hex code and a missing name are said beside that colour, once a field', async () => {
    const answer = await saveAsTyped(SCRUBS, (inputs) => ({
      ...inputs,
      colors: [...inputs.colors, { name: '', value: '', hex: 'wine', image: null }],
    }));
    expect(answer.status).toBe(400);
    expect((answer.body.error as { problems: unknown }).problems).toEqual([
      { field: 'colors.4.name', message: 'Colour 5 needs a name.' },
      { field: 'colors.4.hex', message: 'Colour 5’s hex code must look like #1f5fa8: a # and six digits or letters a to f.' },
    ]);
  });

  it('text longer than the form takes, and a field no form sends, are refused by field before the product is read', async () => {
    const { deps, jar } = await editor();
    const before = await revisions();
    const send = async (fields: Record<string, unknown>) => {
      const res = await catalogueSaveRoute(
        deps,
        post(`/api/admin/catalogue/products/${SCRUBS}`, { base: 0, fields }),
        jar,
        SCRUBS,
      );
      return { status: res.status, body: await res.json() };
    };
    expect(await send({ name: 'N'.repeat(201), description: 'd'.repeat(1001) })).toEqual({
      status: 400,
      body: {
        error: {
          code: 'invalid_request',
          message:
            'Name can be at most 200 characters: it has 201. Shorten it. Short description can be at most 1000 characters: it has 1001. Shorten it.',
          field: 'name',
          problems: [
            { field: 'name', message: 'Name can be at most 200 characters: it has 201. Shorten it.' },
            { field: 'description', message: 'Short description can be at most 1000 characters: it has 1001. Shorten it.' },
          ],
        },
      },
    });
    expect(await send({ likes: 5 })).toMatchObject({
      status: 400,
      body: { error: { field: 'likes', message: 'The id, the file name and the like count cannot be changed in the editor.' } },
    });
    // Not a form at all: the one error shape, no fields to name.
    const res = await catalogueSaveRoute(deps, post(`/api/admin/catalogue/products/${SCRUBS}`, { fields: {} }), jar, SCRUBS);
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { problems?: unknown } }).error.problems).toBeUndefined();
    expect(await revisions()).toBe(before);
  });

  it('a new product with a SKU in use is refused beside its SKU', async () => {
    const { deps, jar } = await editor();
    const res = await catalogueCreateRoute(
      deps,
      post('/api/admin/catalogue/products', { from: '07-kojic-acid-soap.md', name: 'Rose Soap', sku: 'AUR-SCRB-SET' }),
      jar,
    );
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({
      error: { field: 'sku', problems: [{ field: 'sku', message: 'This SKU is already used by Clinical Scrubs.' }] },
    });
  });
});

describe(`the history's words, on ${TEST_DATABASE_KIND}`, { timeout: 30_000 }, () => {
  it('a text change is shown old and new, word by word, for the save and for its undo; markup stays text', async () => {
    const slug = '05-vitamin-c-body-butter';
    const form = await formOf(slug);
    const about = String(form.fields.detailedDescription);
    const typed = about.replace('dry skin', 'dry skin <b>and</b> hands');
    expect(typed).not.toBe(about);
    const saved = await saveAsTyped(slug, (inputs) => ({ ...inputs, detailedDescription: typed }));
    expect(saved.status).toBe(200);
    const [row] = (await formOf(slug)).history;
    expect(row?.summary).toBe('detailed description changed');
    expect(row?.texts).toEqual([
      {
        label: 'About this product',
        parts: expect.arrayContaining([{ kind: 'added', text: '<b>and</b> hands ' }, expect.objectContaining({ kind: 'gap' })]),
      },
    ]);
    const { deps, jar } = await editor();
    const undone = await catalogueUndoRoute(deps, post('/api/admin/catalogue/undo', { revision: row?.id }), jar);
    expect(undone.status).toBe(200);
    const [undo] = (await formOf(slug)).history;
    expect(undo?.texts[0]?.parts).toContainEqual({ kind: 'removed', text: '<b>and</b> hands ' });
  });
});

describe(`two tabs on one product, on ${TEST_DATABASE_KIND}`, { timeout: 30_000 }, () => {
  it('the second save is refused (409) and keeps what was typed: saved over the newer one, both changes are kept', async () => {
    const slug = '06-turmeric-body-oil';
    const { deps, jar } = await editor();
    // Both tabs open the form at the same save.
    const opened = await formOf(slug);
    const base = toInputs(opened.fields);
    // The first tab changes the price and the name.
    const first = await saveAsTyped(
      slug,
      (inputs) => ({ ...inputs, price: '29.99', name: 'Golden Turmeric Oil' }),
      opened.revision,
    );
    expect(first.status).toBe(200);
    // The second tab typed a description and a name of its own over the form it opened: refused, nothing saved.
    const mine: FormInputs = { ...base, description: 'A warm turmeric oil for dry elbows and knees.', name: 'Turmeric Glow Oil' };
    const before = await revisions();
    const crossed = await saveAsTyped(slug, () => mine, opened.revision);
    expect(crossed).toEqual({
      status: 409,
      body: {
        error: {
          code: 'changed_meanwhile',
          message:
            'Someone saved this product since you opened it, so yours was not saved over theirs: compare the two, then save again.',
        },
      },
    });
    expect(await revisions()).toBe(before);

    // The form fetches the newer save and compares: the price is theirs, the description mine, the name both's.
    const res = await catalogueProductRoute(deps, jar, slug);
    const newer = (await res.json()) as { revision: number; fields: Record<string, unknown>; history: { summary: string }[] };
    expect(newer.revision).toBeGreaterThan(opened.revision);
    const found = differences(base, mine, toInputs(newer.fields));
    expect(found.map((d) => [d.key, d.changedByMe, d.changedByThem])).toEqual([
      ['name', true, true],
      ['price', false, true],
      ['description', true, false],
    ]);
    // The editor keeps their own name and description, takes the newer price, and saves over the newer save.
    const typed = merged(mine, toInputs(newer.fields), new Set(['name', 'description'] as const));
    const over = await saveAsTyped(slug, () => typed, newer.revision);
    expect(over.status).toBe(200);
    const saved = await formOf(slug);
    expect(saved.fields).toMatchObject({
      price: 29.99,
      name: 'Turmeric Glow Oil',
      description: 'A warm turmeric oil for dry elbows and knees.',
    });
    expect(saved.history.slice(0, 2).map((h) => h.summary)).toEqual([
      'name “Golden Turmeric Oil” → “Turmeric Glow Oil”; description changed',
      expect.stringMatching(/^name “.+” → “Golden Turmeric Oil”; price \$35\.00 → \$29\.99$/),
    ]);
  });
});
