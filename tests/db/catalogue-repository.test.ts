// The repository and the shop agree (decision 018), on PGlite and PostgreSQL: a deploy whose markdown changed a product
// editors saved is found once (one row, one activity-log line, however many servers start at once), shown with both
// versions, and an editor keeps the saved version or takes the repository's, once; the catalogue as saved is exported
// byte for byte as the next publish builds it, by the command and the editor's download, and to nobody else.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import { type AdminDeps, adminOf } from '@/features/admin/admin.server';
import { productForm, productList, saveProduct, uploadPicture } from '@/features/editor/catalogue-edit.server';
import { catalogueExport, writeExport } from '@/features/editor/catalogue-export.server';
import { catalogueFiles, seedDigest } from '@/features/editor/catalogue-files.server';
import { catalogueExportRoute, catalogueRepositoryChoiceRoute } from '@/features/editor/catalogue-routes.server';
import { catalogueSnapshot } from '@/features/editor/catalogue-snapshot.server';
import { type EditorCaller, editorOf, setEditorRole } from '@/features/editor/editors.server';
import { findRepositoryChanges } from '@/features/editor/repository-changes.server';
import type { CookieJar } from '@/server/auth/auth.port';
import { createBuiltInAuth } from '@/server/auth/builtin.server';
import type { Database } from '@/server/db/database.server';
import { migrate } from '@/server/db/migrate.server';
import { openPglite } from '@/server/db/pglite.server';
import { openPostgres } from '@/server/db/postgres.server';
import { asService } from '@/server/db/roles.server';
import { browser } from './browser';
import { databaseUrl, suiteDatabase, TEST_DATABASE_KIND } from './test-database';
import { unzip } from './unzip';

const db = suiteDatabase();
const auth = () => createBuiltInAuth({ db, secureCookies: false });
const SHOP = 'http://shop.test';
const PROJECT = resolve('.');
const work = mkdtempSync(join(tmpdir(), 'aurelia-repository-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

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

interface Team {
  deps: AdminDeps;
  editor: EditorCaller;
  editorJar: CookieJar;
  other: EditorCaller;
  otherJar: CookieJar;
  shopperJar: CookieJar;
}
let people: Promise<Team> | undefined;
function team() {
  people ??= (async () => {
    const owner = await signedIn('owner');
    const deps: AdminDeps = { db, auth: auth(), adminEmails: [owner.email] };
    const admin = await adminOf(deps, owner.jar);
    if (!admin) throw new Error('no admin');
    const [one, two, shopper] = [await signedIn('editor'), await signedIn('editor'), await signedIn('shopper')];
    await setEditorRole(admin, one.email, true);
    await setEditorRole(admin, two.email, true);
    const editor = await editorOf(deps, one.jar);
    const other = await editorOf(deps, two.jar);
    if (!editor || !other) throw new Error('no editor');
    return { deps, editor, editorJar: one.jar, other, otherJar: two.jar, shopperJar: shopper.jar };
  })();
  return people;
}

/** The repository as last deployed (each deploy builds on the one before). */
let deployed = PROJECT;
/** A deploy: a copy of the last deployed content/products where `change` rewrote some product files. */
function deploy(name: string, change: Record<string, (text: string) => string>): string {
  const root = join(work, name);
  cpSync(join(deployed, 'content/products'), join(root, 'content/products'), { recursive: true });
  deployed = root;
  for (const [file, edit] of Object.entries(change)) {
    const path = join(root, 'content/products', file);
    const before = readFileSync(path, 'utf8');
    const after = edit(before);
    if (after === before) throw new Error(`${file}: the deploy changed nothing`);
    writeFileSync(path, after);
  }
  return root;
}
const seedOf = (file: string) => readFileSync(join(PROJECT, 'content/products', file), 'utf8');

const formOf = async (file: string) => {
  const form = await asService(db, (tx) => productForm(tx, file));
  if (!form) throw new Error(`no ${file}`);
  return form;
};
const save = async (who: EditorCaller, file: string, fields: Record<string, unknown>) => {
  const result = await saveProduct(who, file, { base: (await formOf(file)).revision, fields });
  if (!result.ok || !result.saved) throw new Error(`not saved: ${JSON.stringify(result)}`);
  return result.revision;
};
const lastId = async () =>
  Number(
    (await asService(db, (tx) => tx.query<{ id: string | null }>('select max(id) as id from public.admin_actions')))[0]?.id ?? 0,
  );
async function logSince(after: number) {
  const rows = await asService(db, (tx) =>
    tx.query<{ admin_email: string; action: string; after: string }>(
      `select admin_email, action, after #>> '{}' as after from public.admin_actions
        where id > $1 and action like 'catalogue.repository%' order by id`,
      [after],
    ),
  );
  return rows.map((r) => ({ who: r.admin_email, action: r.action, words: r.after }));
}
const changesOf = (file: string) =>
  asService(db, (tx) =>
    tx.query<{ id: string; resolution: string | null; resolved_by_email: string | null }>(
      'select id, resolution, resolved_by_email from public.catalogue_seed_changes where file = $1 order by id',
      [file],
    ),
  );
const post = (path: string, body: unknown) =>
  new Request(`${SHOP}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: SHOP },
    body: JSON.stringify(body),
  });
const choose = (jar: CookieJar, slug: string, body: unknown) =>
  team().then(({ deps }) =>
    catalogueRepositoryChoiceRoute(deps, post(`/api/admin/catalogue/products/${slug}/repository`, body), jar, slug),
  );

const OIL = '06-turmeric-body-oil.md';
const SCRUBS = '03-clinical-scrubs.md';
const SOAP = '07-kojic-acid-soap.md';
const BUTTER = '02-turmeric-body-butter.md';
const oilDeploy = (text: string) =>
  text.replace(/^price: 35$/m, 'price: 32').replace('A lightweight, golden dry-touch', 'A lightweight, golden, fast-absorbing');

describe(`a deploy that changed a product editors saved, on ${TEST_DATABASE_KIND}`, { timeout: 60_000 }, () => {
  it('a save records the seed it was made over, and a save over a save inherits it; a new product has none', async () => {
    const { editor } = await team();
    const first = await save(editor, OIL, { price: 29.99 });
    const second = await save(editor, OIL, { name: 'Golden Turmeric Body Oil' });
    const rows = await asService(db, (tx) =>
      tx.query<{ id: string; seed_sha256: string }>(
        'select id, seed_sha256 from public.catalogue_revisions where id = any($1::bigint[]) order by id',
        [[first, second]],
      ),
    );
    expect(rows.map((r) => r.seed_sha256)).toEqual([seedDigest(seedOf(OIL)), seedDigest(seedOf(OIL))]);
    // Nothing is found while the repository is the one the saves were made over.
    expect(await findRepositoryChanges(db)).toEqual({ found: [], settled: [], adopted: [] });
  });

  it('is found once, with one line in the activity log, however many servers start on it at once', async () => {
    const start = await lastId();
    const root = deploy('oil', { [OIL]: oilDeploy });
    const url = databaseUrl(db);
    const servers: Database[] = url ? [openPostgres(url, { max: 4 }), openPostgres(url, { max: 4 })] : [db, db];
    try {
      const results = await Promise.all(Array.from({ length: 12 }, (_, i) => findRepositoryChanges(servers[i % 2] ?? db, root)));
      expect(results.flatMap((r) => r.found)).toEqual([OIL]);
    } finally {
      if (url) await Promise.all(servers.map((s) => s.close()));
    }
    // A server that starts again later finds it open already: nothing more.
    expect((await findRepositoryChanges(db, root)).found).toEqual([]);
    expect(await changesOf(OIL)).toHaveLength(1);
    expect(await logSince(start)).toEqual([
      {
        who: 'the repository (a deploy)',
        action: 'catalogue.repository-changed',
        words:
          'changed Golden Turmeric Body Oil, which editors had saved: name “Golden Turmeric Body Oil” → “Turmeric Body Oil”; price $29.99 → $32.00; description changed (saved → repository). The shop keeps the saved version until an editor chooses.',
      },
    ]);
  });

  it('the list marks it and its form shows both versions, word by word, and what shoppers see meanwhile', async () => {
    const list = await asService(db, productList);
    expect(list.filter((p) => p.repositoryChanged).map((p) => p.file)).toEqual([OIL]);
    const form = await formOf(OIL);
    expect(form.fields).toMatchObject({ price: 29.99, name: 'Golden Turmeric Body Oil' });
    expect(form.repository).toMatchObject({
      savedText: expect.stringContaining('price: 29.99'),
      repositoryText: oilDeploy(seedOf(OIL)),
      summary: 'name “Golden Turmeric Body Oil” → “Turmeric Body Oil”; price $29.99 → $32.00; description changed',
      // Nothing is published, and this test's server reads the repository from before the deploy: its shoppers see that.
      served: 'Shoppers see an earlier published version. Publishing before you choose publishes the saved version.',
    });
    expect(form.repository?.texts).toEqual([
      {
        label: 'Short description',
        parts: [
          { kind: 'same', text: 'A lightweight, ' },
          { kind: 'removed', text: 'golden dry-touch' },
          { kind: 'added', text: 'golden, fast-absorbing' },
          { kind: 'same', text: ' body oil with turmeric, jojoba' },
          { kind: 'gap', text: ' …' },
        ],
      },
    ]);
    // Until chosen, what is saved, previewed and published is the saved version.
    expect((await catalogueFiles(db)).get(OIL)).toBe(form.repository?.savedText);
  });

  it('a save meanwhile keeps it open; a stale choice and another product’s change are refused, changing nothing', async () => {
    const { editor, editorJar } = await team();
    const stale = (await formOf(OIL)).revision;
    await save(editor, OIL, { weight: 0.6 });
    expect((await formOf(OIL)).repository).not.toBeNull();
    const change = Number((await changesOf(OIL))[0]?.id);
    const before = await asService(db, (tx) => tx.query('select count(*)::int as n from public.catalogue_revisions'));
    const refused = await choose(editorJar, '06-turmeric-body-oil', { change, base: stale, choice: 'take' });
    expect(refused.status).toBe(409);
    expect(await refused.json()).toMatchObject({ error: { code: 'changed_meanwhile' } });
    const elsewhere = await choose(editorJar, '03-clinical-scrubs', { change, base: 0, choice: 'take' });
    expect(elsewhere.status).toBe(404);
    for (const body of [{ change, base: 0, choice: 'merge' }, { change, base: 0, choice: 'keep', file: '../x.md' }, {}]) {
      expect((await choose(editorJar, '06-turmeric-body-oil', body)).status, JSON.stringify(body)).toBe(400);
    }
    expect((await choose(editorJar, '..%2F..%2Fpackage', { change, base: 0, choice: 'keep' })).status).toBe(404);
    expect(await asService(db, (tx) => tx.query('select count(*)::int as n from public.catalogue_revisions'))).toEqual(before);
    expect((await changesOf(OIL))[0]?.resolution).toBeNull();
  });

  it('a shopper and a stranger cannot choose: the admin’s 404, nothing changed', async () => {
    const { shopperJar } = await team();
    const change = Number((await changesOf(OIL))[0]?.id);
    const base = (await formOf(OIL)).revision;
    for (const jar of [shopperJar, browser()]) {
      const res = await choose(jar, '06-turmeric-body-oil', { change, base, choice: 'take' });
      expect(res.status).toBe(404);
      expect(await res.json()).toEqual({ error: { code: 'not_found', message: 'Not found.' } });
    }
    expect((await changesOf(OIL))[0]?.resolution).toBeNull();
  });

  it('two editors choosing at once make one choice: the other is told who chose what', async () => {
    const { editorJar, otherJar } = await team();
    const start = await lastId();
    const change = Number((await changesOf(OIL))[0]?.id);
    const form = await formOf(OIL);
    const [a, b] = await Promise.all([
      choose(editorJar, '06-turmeric-body-oil', { change, base: form.revision, choice: 'keep' }),
      choose(otherJar, '06-turmeric-body-oil', { change, base: form.revision, choice: 'take' }),
    ]);
    const answers = [await a.json(), await b.json()];
    const won = [a, b].findIndex((r) => r.status === 200);
    expect([a.status, b.status].sort()).toEqual([200, 409]);
    expect(answers[1 - won]).toMatchObject({
      error: { code: 'already_chosen', message: expect.stringMatching(/^Already chosen: editor\./) },
    });
    const [row] = await changesOf(OIL);
    expect(row?.resolution).toBe(won === 0 ? 'kept' : 'taken');
    expect(await logSince(start)).toHaveLength(1);
    const after = await formOf(OIL);
    expect(after.repository).toBeNull();
    expect(after.history[0]?.summary).toMatch(
      won === 0 ? /^kept the saved version over the repository’s/ : /^took the repository’s version: /,
    );
    // Chosen: a server starting on the same repository finds nothing more.
    expect(await findRepositoryChanges(db, deployed)).toMatchObject({ found: [] });
  });

  it('keep: the saved text stays, the history and the log say so', async () => {
    const { editor, editorJar } = await team();
    await save(editor, SCRUBS, { price: 44 });
    const root = deploy('scrubs', { [SCRUBS]: (t) => t.replace(/^price: \d+(\.\d+)?$/m, 'price: 49') });
    expect((await findRepositoryChanges(db, root)).found).toEqual([SCRUBS]);
    const start = await lastId();
    const before = await formOf(SCRUBS);
    const res = await choose(editorJar, '03-clinical-scrubs', {
      change: before.repository?.id,
      base: before.revision,
      choice: 'keep',
    });
    expect(res.status).toBe(200);
    const answer = (await res.json()) as { message: string; form: { fields: { price: number }; repository: unknown } };
    expect(answer).toMatchObject({ message: 'Kept the saved version', form: { fields: { price: 44 }, repository: null } });
    expect((await catalogueFiles(db)).get(SCRUBS)).toBe(before.repository?.savedText);
    expect(await logSince(start)).toEqual([
      {
        who: editor.editor.email,
        action: 'catalogue.repository-kept',
        words: 'kept the saved version of Clinical Scrubs over the repository’s change (price $44.00 → $49.00 not taken)',
      },
    ]);
    expect((await findRepositoryChanges(db, root)).found).toEqual([]);
  });

  it('take: the repository’s text becomes the newest save, byte for byte', async () => {
    const { editor, editorJar } = await team();
    await save(editor, BUTTER, { inStock: false });
    const root = deploy('butter', { [BUTTER]: (t) => t.replace(/^name: .*$/m, 'name: Turmeric Body Butter, Whipped') });
    expect((await findRepositoryChanges(db, root)).found).toEqual([BUTTER]);
    const start = await lastId();
    const before = await formOf(BUTTER);
    const res = await choose(editorJar, '02-turmeric-body-butter', {
      change: before.repository?.id,
      base: before.revision,
      choice: 'take',
    });
    expect(res.status).toBe(200);
    const repository = readFileSync(join(root, 'content/products', BUTTER), 'utf8');
    expect((await catalogueFiles(db)).get(BUTTER)).toBe(repository);
    expect(await logSince(start)).toEqual([
      {
        who: editor.editor.email,
        action: 'catalogue.repository-taken',
        words:
          'took the repository’s version of Turmeric Body Butter: name “Turmeric Body Butter” → “Turmeric Body Butter, Whipped”; back in stock',
      },
    ]);
    expect((await findRepositoryChanges(db, root)).found).toEqual([]);
  });

  it('an export committed is no change; a repository that goes back before anyone chose settles it, once', async () => {
    const { editor } = await team();
    await save(editor, SOAP, { price: 16 });
    const saved = (await catalogueFiles(db)).get(SOAP) ?? '';
    const committed = deploy('soap-committed', { [SOAP]: () => saved });
    expect((await findRepositoryChanges(db, committed)).found).toEqual([]);
    const changed = deploy('soap-changed', { [SOAP]: (t) => t.replace(/^category: .*$/m, 'category: Face Soap') });
    expect((await findRepositoryChanges(db, changed)).found).toEqual([SOAP]);
    const start = await lastId();
    // The deploy is rolled back: the repository holds the saved text again.
    const back = deploy('soap-back', { [SOAP]: () => saved });
    const [one, two] = await Promise.all([findRepositoryChanges(db, back), findRepositoryChanges(db, back)]);
    expect([...one.settled, ...two.settled]).toEqual([SOAP]);
    expect([...one.found, ...two.found]).toEqual([]);
    expect((await changesOf(SOAP)).map((c) => c.resolution)).toEqual(['settled']);
    expect(await logSince(start)).toEqual([
      {
        who: 'the repository (a deploy)',
        action: 'catalogue.repository-settled',
        words: 'agrees again with what editors saved of Kojic Acid Soap: nothing to choose.',
      },
    ]);
  });

  it('saves made before seeds were recorded are taken as made over the repository the first server starts with', async () => {
    const { editor } = await team();
    await save(editor, '08-turmeric-face-soap.md', { price: 13 });
    await asService(db, (tx) =>
      tx.query(`update public.catalogue_revisions set seed_sha256 = null where file = '08-turmeric-face-soap.md'`),
    );
    const root = deploy('face-soap', { '08-turmeric-face-soap.md': (t) => t.replace(/^price: .*$/m, 'price: 14') });
    expect(await findRepositoryChanges(db, root)).toMatchObject({ found: [], adopted: ['08-turmeric-face-soap.md'] });
    // From then on, a deploy that changes it is found.
    const next = deploy('face-soap-2', { '08-turmeric-face-soap.md': (t) => t.replace(/^price: .*$/m, 'price: 15') });
    expect((await findRepositoryChanges(db, next)).found).toEqual(['08-turmeric-face-soap.md']);
  });
});

describe(`the catalogue as saved, exported, on ${TEST_DATABASE_KIND}`, { timeout: 120_000 }, () => {
  const png = () =>
    sharp({ create: { width: 8, height: 8, channels: 3, background: '#c8a040' } })
      .png()
      .toBuffer();

  it('is byte for byte what the next publish builds: the seed with the saves laid over, and the uploaded pictures shown', async () => {
    const { editor } = await team();
    const uploaded = await uploadPicture(editor, 'oil bottle.png', new Uint8Array(await png()));
    if (!uploaded.ok) throw new Error(uploaded.message);
    const form = await formOf(OIL);
    const images = [
      ...((form.fields.images as { src: string; alt: string }[]) ?? []),
      { src: uploaded.src, alt: 'The bottle in the sun' },
    ];
    await save(editor, OIL, { images });
    // An upload no product shows is left out, as the build leaves it out.
    const unused = await uploadPicture(
      editor,
      'unused.png',
      new Uint8Array(
        await sharp({ create: { width: 4, height: 4, channels: 3, background: '#000' } })
          .png()
          .toBuffer(),
      ),
    );
    const exported = await catalogueExport(db);
    const [{ upTo } = { upTo: 0 }] = await asService(db, (tx) =>
      tx.query<{ upTo: number }>('select max(id)::int as "upTo" from public.catalogue_revisions'),
    );
    const snapshot = await catalogueSnapshot(db, upTo);
    expect(exported.upTo).toBe(upTo);
    expect(exported.files).toEqual(snapshot.files);
    expect([...exported.pictures.keys()]).toEqual([uploaded.name]);
    expect(exported.pictures.get(uploaded.name)).toEqual(snapshot.pictures.get(uploaded.name));
    expect(unused.ok && exported.pictures.has(unused.name)).toBe(false);

    const dir = join(work, 'export', 'content/products');
    cpSync(join(PROJECT, 'content/products'), dir, { recursive: true });
    const written = await writeExport(exported, dir);
    expect(written.written).toEqual(
      expect.arrayContaining([OIL, SCRUBS, BUTTER, SOAP, '08-turmeric-face-soap.md', `images/${uploaded.name}`]),
    );
    expect(written.written.filter((f) => f.endsWith('.md'))).toHaveLength(5);
    for (const [file, text] of snapshot.files) expect(readFileSync(join(dir, file), 'utf8'), file).toBe(text);
    expect((await writeExport(exported, dir)).written).toEqual([]);
  });

  it('downloads as a .zip for editors, with the same bytes; a shopper and a stranger get the admin’s 404', async () => {
    const { deps, editorJar, shopperJar } = await team();
    const res = await catalogueExportRoute(deps, editorJar);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/zip');
    expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename="aurelia-catalogue-\d{4}-\d{2}-\d{2}\.zip"$/);
    expect(res.headers.get('cache-control')).toBe('private, no-store');
    const entries = unzip(new Uint8Array(await res.arrayBuffer()));
    const exported = await catalogueExport(db);
    expect([...entries.keys()].filter((p) => p.endsWith('.md'))).toEqual(
      [...exported.files.keys()].map((f) => `content/products/${f}`),
    );
    for (const [file, text] of exported.files) expect(entries.get(`content/products/${file}`)?.toString('utf8')).toBe(text);
    for (const [name, bytes] of exported.pictures)
      expect(new Uint8Array(entries.get(`content/products/images/${name}`) ?? [])).toEqual(bytes);
    expect([...entries.keys()].every((p) => /^content\/products\/(images\/)?[a-z0-9][a-z0-9._-]*$/.test(p))).toBe(true);
    for (const jar of [shopperJar, browser()]) {
      const refused = await catalogueExportRoute(deps, jar);
      expect(refused.status).toBe(404);
      expect(await refused.json()).toEqual({ error: { code: 'not_found', message: 'Not found.' } });
    }
  });

  it('a name that climbs out of content/products cannot be saved, so can never be exported', async () => {
    const { editor } = await team();
    for (const [table, sql] of [
      [
        'catalogue_revisions',
        `insert into public.catalogue_revisions (file, product_id, contents, author_email) values ('../../evil.md', 1, 'x', 'e')`,
      ],
      [
        'catalogue_pictures',
        `insert into public.catalogue_pictures (name, bytes, author_email) values ('../evil.png', '\\x00', 'e')`,
      ],
    ] as const)
      await expect(
        asService(db, (tx) => tx.query(sql)),
        table,
      ).rejects.toThrow(/check constraint/);
    expect(editor.editor.email).toContain('@');
  });

  it('npm run catalogue:export writes it from a stopped shop’s embedded database or from DATABASE_URL, and says what it wrote', async () => {
    const url = databaseUrl(db);
    const oilText = seedOf(OIL).replace(/^price: 35$/m, 'price: 29.99');
    let env: Record<string, string>;
    if (url) env = { DATABASE_URL: url };
    else {
      // A stopped shop's data directory with one save in it.
      const dataDir = join(work, 'stopped-shop');
      const shop = await openPglite(dataDir);
      await migrate(shop);
      await asService(shop, (tx) =>
        tx.query(
          `insert into public.catalogue_revisions (file, product_id, contents, author_email, seed_sha256)
           values ($1, 6, $2, 'editor@example.com', $3)`,
          [OIL, oilText, seedDigest(seedOf(OIL))],
        ),
      );
      await shop.close();
      env = { PGLITE_DIR: dataDir };
    }
    const to = join(work, 'script-export');
    mkdirSync(to);
    const run = spawnSync(process.execPath, [join(PROJECT, 'scripts/catalogue-export.mjs'), '--to', to], {
      cwd: PROJECT,
      encoding: 'utf8',
      env: { PATH: process.env.PATH ?? '', ...env },
      timeout: 100_000,
    });
    const output = `${run.stdout}${run.stderr}`;
    expect(run.status, output).toBe(0);
    expect(output).toContain(
      `Exported the catalogue as saved in ${url ? 'PostgreSQL (DATABASE_URL)' : 'the embedded database in '}`,
    );
    expect(output).toContain(`wrote ${OIL}`);
    expect(output).toContain('Review with `git diff`, then commit.');
    const expected = url ? (await catalogueExport(db)).files.get(OIL) : oilText;
    expect(readFileSync(join(to, OIL), 'utf8')).toBe(expected);
    // The same again writes nothing.
    const again = spawnSync(process.execPath, [join(PROJECT, 'scripts/catalogue-export.mjs'), '--to', to], {
      cwd: PROJECT,
      encoding: 'utf8',
      env: { PATH: process.env.PATH ?? '', ...env },
      timeout: 100_000,
    });
    expect(`${again.stdout}${again.stderr}`).toContain('nothing changed: the folder already holds the catalogue as saved.');
  });
});
