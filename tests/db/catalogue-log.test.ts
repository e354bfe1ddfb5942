// What editors do, in the owner's activity log, once per action (a retried request, a double click, a second server
// record nothing more); the role's e-mail, once per grant; and what an editor meets in the rest of the admin (told they
// have catalogue access only) while a guest and a shopper still meet the stranger's 404.
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import { type AdminCaller, type AdminDeps, adminOf, sessionUserOf } from '@/features/admin/admin.server';
import { createProduct, productForm, saveProduct, undoSave, uploadPicture } from '@/features/editor/catalogue-edit.server';
import { editorsListRoute } from '@/features/editor/catalogue-routes.server';
import { PublishError } from '@/features/editor/catalogue-snapshot.server';
import { editorRoleEmailJob } from '@/features/editor/editor-email.server';
import { type EditorCaller, editorOf, setEditorRole } from '@/features/editor/editors.server';
import { publishState, requestPublish } from '@/features/editor/publish.server';
import { type PublishWorker, startPublisher } from '@/features/editor/publisher.server';
import { makeRelease } from '@/features/editor/release.server';
import type { CookieJar } from '@/server/auth/auth.port';
import { createBuiltInAuth } from '@/server/auth/builtin.server';
import { asService } from '@/server/db/roles.server';
import { captureLogs } from '@/server/log.server';
import type { MailMessage } from '@/server/mail/mail.port';
import { browser } from './browser';
import { suiteDatabase, TEST_DATABASE_KIND } from './test-database';

const db = suiteDatabase();
const auth = () => createBuiltInAuth({ db, secureCookies: false });
const SHOP = 'http://shop.test';
const OIL = '06-turmeric-body-oil.md';

let n = 0;
async function signedIn(name: string): Promise<{ id: string; email: string; jar: CookieJar }> {
  const email = `${name}.${++n}.${Date.now()}@example.com`;
  await auth().signUp({ email, password: 'lavender-fields', firstName: 'Ann', lastName: 'Lee' }, { origin: SHOP });
  await asService(db, (tx) => tx.query('update auth.users set email_confirmed_at = now() where email = $1', [email]));
  const jar = browser();
  const login = await auth().signIn({ email, password: 'lavender-fields' }, jar);
  if (!login.ok) throw new Error(login.error.message);
  return { id: login.value.id, email, jar };
}

let people: Promise<{ admin: AdminCaller; editor: EditorCaller; editorJar: CookieJar; deps: AdminDeps }> | undefined;
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

/** The activity log's catalogue lines since `after` (an id), oldest first: who, what, the sentence. */
async function logSince(after: number) {
  const rows = await asService(db, (tx) =>
    tx.query<{ admin_email: string; action: string; target: string; after: unknown }>(
      `select admin_email, action, target, after #>> '{}' as after from public.admin_actions
        where id > $1 and action like 'catalogue.%' order by id`,
      [after],
    ),
  );
  return rows.map((r) => ({ who: r.admin_email, action: r.action, target: r.target, words: r.after }));
}
const lastId = async () =>
  Number(
    (await asService(db, (tx) => tx.query<{ id: string | null }>('select max(id) as id from public.admin_actions')))[0]?.id ?? 0,
  );

describe(`editors’ actions in the activity log, on ${TEST_DATABASE_KIND}`, { timeout: 30_000 }, () => {
  it('a save is one line in words, however many times it is sent at once; an unchanged save is none', async () => {
    const { editor } = await team();
    const start = await lastId();
    const base = (await asService(db, (tx) => productForm(tx, OIL)))?.revision ?? -1;
    // A retried request and a double click: the same save, sent six times at once.
    const results = await Promise.all(
      Array.from({ length: 6 }, () => saveProduct(editor, OIL, { base, fields: { price: 29.99 } })),
    );
    expect(results.filter((r) => r.ok && r.saved)).toHaveLength(1);
    expect(results.filter((r) => !r.ok).map((r) => !r.ok && r.code)).toEqual(Array(5).fill('changed_meanwhile'));
    const saved = (await asService(db, (tx) => productForm(tx, OIL)))?.revision ?? -1;
    expect(await saveProduct(editor, OIL, { base: saved, fields: { price: 29.99 } })).toMatchObject({ saved: false });
    expect(await logSince(start)).toEqual([
      {
        who: editor.editor.email,
        action: 'catalogue.save',
        target: 'Turmeric Body Oil',
        words: 'changed the price of Turmeric Body Oil $35.00 → $29.99',
      },
    ]);
  });

  it('an undo is one line; undoing it again changes and records nothing', async () => {
    const { editor } = await team();
    const [save] = await asService(db, (tx) =>
      tx.query<{ id: string }>('select id from public.catalogue_revisions where file = $1 order by id desc limit 1', [OIL]),
    );
    const start = await lastId();
    const [first, again] = await Promise.all([undoSave(editor, Number(save?.id)), undoSave(editor, Number(save?.id))]);
    expect([first?.ok && first.saved, again?.ok && again.saved].filter(Boolean)).toHaveLength(1);
    expect(await logSince(start)).toEqual([
      {
        who: editor.editor.email,
        action: 'catalogue.undo',
        target: 'Turmeric Body Oil',
        words: 'undid “price $35.00 → $29.99” on Turmeric Body Oil: price $29.99 → $35.00',
      },
    ]);
  });

  it('a new product and an uploaded picture are a line each; the same picture again is none', async () => {
    const { editor } = await team();
    const start = await lastId();
    const created = await createProduct(editor, { from: OIL, name: 'Rose Body Oil', sku: 'AUR-ROSE-OIL' });
    expect(created).toMatchObject({ ok: true, id: 10 });
    const png = new Uint8Array(
      await sharp({ create: { width: 4, height: 3, channels: 3, background: '#c9a063' } })
        .png()
        .toBuffer(),
    );
    const uploads = await Promise.all([uploadPicture(editor, 'Rose.png', png), uploadPicture(editor, 'Rose.png', png)]);
    const name = uploads[0]?.ok ? uploads[0].name : '';
    expect(await uploadPicture(editor, 'Rose.png', png)).toMatchObject({ ok: true, name });
    expect(await logSince(start)).toEqual([
      {
        who: editor.editor.email,
        action: 'catalogue.create',
        target: 'Rose Body Oil',
        words: 'created Rose Body Oil (/product/10), a copy of Turmeric Body Oil',
      },
      { who: editor.editor.email, action: 'catalogue.picture', target: name, words: `uploaded the picture ${name}` },
    ]);
  });
});

// ── Publishing ─────────────────────────────────────────────────────────────────────────────────────────────────────

const root = mkdtempSync(join(tmpdir(), 'aurelia-publish-log-'));
cpSync('content/products', join(root, 'content/products'), { recursive: true });
afterAll(() => rmSync(root, { recursive: true, force: true }));

const workers: PublishWorker[] = [];
afterAll(() => Promise.all(workers.map((w) => w.stop())));
function publisher(fail?: string): PublishWorker {
  const served = {
    code: 'test-code',
    render: async (path: string) => ({ path, status: 200, headers: {}, body: new Uint8Array() }),
    prepare: async () => () => {},
  };
  const make: typeof makeRelease = async (snapshot, options) => {
    if (fail) throw new PublishError(fail);
    return makeRelease(snapshot, options);
  };
  const worker = startPublisher(db, { served, checkEveryMs: 3_600_000, root, make });
  workers.push(worker);
  return worker;
}
const stopAll = () => Promise.all(workers.splice(0).map((w) => w.stop()));

describe(`publishes in the activity log, on ${TEST_DATABASE_KIND}`, { timeout: 30_000 }, () => {
  it('a request is one line naming what it changes: pressed twice at once while queued, one publish and one line', async () => {
    const { editor } = await team();
    const base = (await asService(db, (tx) => productForm(tx, OIL)))?.revision ?? -1;
    await saveProduct(editor, OIL, { base, fields: { price: 29.99 } });
    const start = await lastId();
    const by = { id: editor.editor.id, email: editor.editor.email };
    const [a, b] = await Promise.all([requestPublish(db, by), requestPublish(db, by)]);
    expect(a.id).toBe(b.id);
    expect(await logSince(start)).toEqual([
      {
        who: editor.editor.email,
        action: 'catalogue.publish',
        target: 'catalogue',
        words: 'publish requested: 2 products changed (Turmeric Body Oil, Rose Body Oil)',
      },
    ]);
  });

  it('what became of it is one line, however many servers look: live, with the products it changed', async () => {
    const { editor } = await team();
    const start = await lastId();
    const servers = [publisher(), publisher()];
    await Promise.all(servers.map((s) => s.caughtUp));
    servers.forEach((s) => {
      s.nudge();
    });
    await expect.poll(async () => (await publishState(db)).latest?.status, { timeout: 10_000 }).toBe('live');
    // Both servers look again: the one that did not build it follows it, and records nothing.
    await Promise.all(servers.map((s) => s.caughtUp));
    servers.forEach((s) => {
      s.nudge();
    });
    await new Promise((resolve) => setTimeout(resolve, 500));
    await stopAll();
    expect(await logSince(start)).toEqual([
      {
        who: editor.editor.email,
        action: 'catalogue.published',
        target: 'catalogue',
        words: 'published: 2 products changed (Turmeric Body Oil, Rose Body Oil)',
      },
    ]);
  });

  it('a failed build is one line with the reason the editor is told; so is a build its server stopped in', async () => {
    const { editor } = await team();
    const start = await lastId();
    // No release stored for this catalogue: the broken server must make it.
    await db.query('delete from public.catalogue_releases');
    const logs = captureLogs('error');
    try {
      const broken = publisher('The build could not finish: price must be positive');
      await broken.caughtUp;
      await requestPublish(db, { id: editor.editor.id, email: editor.editor.email });
      await expect.poll(async () => (await publishState(db)).latest?.status, { timeout: 10_000 }).toBe('failed');
      await stopAll();
    } finally {
      logs.restore();
    }
    // A publish this server was building when it stopped: two servers starting at once record it once.
    await db.query(
      `insert into public.catalogue_publishes (requested_by_email, status, started_at, built_by)
       values ('other.editor@example.com', 'building', now(), $1)`,
      [`${hostname()}:${process.env.PORT ?? ''}`],
    );
    await Promise.all([publisher().caughtUp, publisher().caughtUp]);
    await stopAll();
    const lines = await logSince(start);
    expect(lines.filter((l) => l.action === 'catalogue.publish-failed')).toEqual([
      {
        who: editor.editor.email,
        action: 'catalogue.publish-failed',
        target: 'catalogue',
        words: 'publish failed: The build could not finish: price must be positive',
      },
      {
        who: 'other.editor@example.com',
        action: 'catalogue.publish-failed',
        target: 'catalogue',
        words: 'publish failed: The server stopped before the release was made: publish again.',
      },
    ]);
  });
});

// ── The role: its e-mail, and what an editor meets in the rest of the admin ─────────────────────────────────────────

describe(`the editor role, on ${TEST_DATABASE_KIND}`, { timeout: 30_000 }, () => {
  const jobs = (userId: string) =>
    asService(db, (tx) =>
      tx.query<{ dedupe_key: string }>(
        `select dedupe_key from public.outbox where kind = 'editor-role-email' and payload ->> 'userId' = $1 order by id`,
        [userId],
      ),
    );

  it('a grant e-mails the person the link once; granted again after a removal, once more', async () => {
    const { admin } = await team();
    const person = await signedIn('new-editor');
    const granted = await Promise.all(Array.from({ length: 4 }, () => setEditorRole(admin, person.email, true)));
    expect(granted.filter((g) => g.ok && g.changed)).toHaveLength(1);
    expect(await jobs(person.id)).toHaveLength(1);
    const sent: MailMessage[] = [];
    const send = editorRoleEmailJob({ db, mail: { name: 'test', send: async (m) => void sent.push(m) }, publicOrigin: SHOP });
    await send({ userId: person.id });
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({ to: person.email, subject: 'You can now edit the Aurelia catalogue' });
    expect(sent[0]?.text).toContain(`${admin.admin.email} gave your Aurelia account (${person.email}) the editor role`);
    expect(sent[0]?.text).toContain(`Open the catalogue editor: ${SHOP}/admin/catalogue`);
    expect(sent[0]?.html).toContain(`href="${SHOP}/admin/catalogue"`);
    // Taken away before the e-mail went: it is not sent. Granted again: a second e-mail.
    await setEditorRole(admin, person.email, false);
    await send({ userId: person.id });
    expect(sent).toHaveLength(1);
    await setEditorRole(admin, person.email, true);
    expect(await jobs(person.id)).toHaveLength(2);
  });

  it('an editor is told they have catalogue access only; a guest and a shopper still get the stranger’s 404', async () => {
    const { deps, editorJar } = await team();
    const shopper = await signedIn('shopper');
    for (const jar of [browser(), shopper.jar]) {
      const res = await editorsListRoute(deps, jar);
      expect(res.status).toBe(404);
      expect(await res.json()).toEqual({ error: { code: 'not_found', message: 'Not found.' } });
    }
    const res = await editorsListRoute(deps, editorJar);
    expect(res.status).toBe(403);
    expect(await res.json()).toEqual({
      error: {
        code: 'catalogue_only',
        message:
          'You have catalogue access only: this part of the admin is for the shop’s owner. The catalogue editor is at /admin/catalogue.',
      },
    });
  });

  it('the browser is told an editor may open /admin, as an admin (the header’s Admin link); a shopper is not', async () => {
    const { deps, editor, admin } = await team();
    const shopper = await signedIn('plain-shopper');
    const user = (id: string, email: string) => ({ id, email, firstName: 'Ann', lastName: 'Lee' });
    const of = (id: string, email: string) => sessionUserOf(deps, user(id, email));
    expect(await of(editor.editor.id, editor.editor.email)).toMatchObject({ admin: true });
    expect(await of(admin.admin.id, admin.admin.email)).toMatchObject({ admin: true });
    expect(await of(shopper.id, shopper.email)).not.toHaveProperty('admin');
  });
});
