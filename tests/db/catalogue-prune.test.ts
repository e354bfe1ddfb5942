// Pruning the catalogue's saves (decision 021) on a real database: per product the newest REVISIONS_KEPT saves, every
// save of the last REVISION_DAYS_KEPT days, every save a publish, a stored release or a change from the repository still
// reads, and the save before each of those are kept; the rest go, with the uploaded pictures only they showed. What is
// kept reads and undoes as before, publishing and serving an earlier publish again work, and prunes run together delete
// each save once. Saves are written straight into the table here (the save path checks each against the whole
// catalogue: too slow for hundreds); what is kept is decided by the real prune.
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { serveCatalogue } from '@/features/catalogue/served-catalogue.server';
import { productForm, productHistory, saveProduct, undoSave, uploadPicture } from '@/features/editor/catalogue-edit.server';
import { catalogueFiles } from '@/features/editor/catalogue-files.server';
import { catalogueSnapshot } from '@/features/editor/catalogue-snapshot.server';
import type { EditorCaller } from '@/features/editor/editors.server';
import { publishState, requestPublish } from '@/features/editor/publish.server';
import { servePublishAgain } from '@/features/editor/publish-again.server';
import { type PublishWorker, startPublisher } from '@/features/editor/publisher.server';
import { makeRelease } from '@/features/editor/release.server';
import { REVISION_DAYS_KEPT, REVISIONS_KEPT } from '@/features/editor/revision-policy';
import { pruneRevisions } from '@/features/editor/revision-prune.server';
import type { Database } from '@/server/db/database.server';
import { openPostgres } from '@/server/db/postgres.server';
import { asService } from '@/server/db/roles.server';
import { orderFixtures } from './order-fixtures';
import { recordingSwitch } from './recording-switch';
import { databaseUrl, suiteDatabase, TEST_DATABASE_KIND } from './test-database';

const db = suiteDatabase();

// A project of its own: the seed catalogue, so a test can change it.
const root = mkdtempSync(join(tmpdir(), 'aurelia-prune-'));
cpSync('content/products', join(root, 'content/products'), { recursive: true });
afterAll(() => rmSync(root, { recursive: true, force: true }));

const SCRUBS = '03-clinical-scrubs.md';
const CREAM = '01-vitamin-c-body-cream.md';
const SOAP = '07-kojic-acid-soap.md';
const seed = (file: string) => readFileSync(`content/products/${file}`, 'utf8');
const withPrice = (price: number, file = SCRUBS) => seed(file).replace(/^price: .*$/m, `price: ${price}`);
const withPicture = (text: string, name: string) =>
  text.replace(/^images:\n/m, `images:\n  - src: ./images/${name}\n    alt: Another view of the product\n`);
const range = (n: number) => Array.from({ length: n }, (_, i) => i);

/** Saves of `file`, oldest first, the i-th `daysOld(i)` days old; their ids in the same order. */
async function saves(file: string, texts: string[], daysOld: (i: number) => number): Promise<number[]> {
  const rows = await db.query<{ id: string | number }>(
    `insert into public.catalogue_revisions (file, product_id, contents, author_email, summary, created_at)
     select $1, $2, t.contents, 'editor@example.com', 'save ' || t.n, now() - t.days * interval '1 day'
       from unnest($3::text[], $4::float8[]) with ordinality as t (contents, days, n) order by t.n
     returning id`,
    [file, Number(file.slice(0, 2)), texts, texts.map((_, i) => daysOld(i))],
  );
  return rows.map((r) => Number(r.id)).sort((a, b) => a - b);
}

const kept = async (file: string) =>
  (await db.query<{ id: string | number }>('select id from public.catalogue_revisions where file = $1 order by id', [file])).map(
    (r) => Number(r.id),
  );

const pick = (ids: number[], ...at: number[]) => at.map((i) => ids[i] ?? -1);
const from = (ids: number[], start: number) => ids.slice(start);

async function publish(status: 'live' | 'building', upTo: number, extra: { digest?: string; schedule?: number } = {}) {
  const [row] = await db.query<{ id: string | number }>(
    `insert into public.catalogue_publishes (requested_by_email, status, started_at, finished_at, up_to_revision, digest, schedule_id)
     values ('editor@example.com', $1, now(), case when $1 = 'live' then now() end, $2, $3, $4) returning id`,
    [status, upTo, extra.digest ?? null, extra.schedule ?? null],
  );
  return Number(row?.id);
}

async function picture(name: string, daysOld: number) {
  await db.query(
    `insert into public.catalogue_pictures (name, bytes, author_email, created_at)
     values ($1, $2, 'editor@example.com', now() - $3 * interval '1 day')`,
    [name, Buffer.from(`the bytes of ${name}`), daysOld],
  );
}

const pictures = async () =>
  (await db.query<{ name: string }>('select name from public.catalogue_pictures order by name')).map((r) => r.name);

let editor: EditorCaller;
beforeAll(async () => {
  const person = await orderFixtures(db, 'owner@prune.example').signedIn();
  editor = { editor: { id: person.id, email: person.email, admin: false }, run: (fn) => asService(db, fn) };
}, 60_000);

const workers: PublishWorker[] = [];
beforeEach(async () => {
  await Promise.all(workers.splice(0).map((w) => w.stop()));
  serveCatalogue(null);
  await db.query('delete from public.catalogue_publishes');
  await db.query('delete from public.catalogue_scheduled_publishes');
  await db.query('delete from public.catalogue_releases');
  await db.query('delete from public.catalogue_release_files');
  await db.query('delete from public.catalogue_seed_changes');
  await db.query('delete from public.catalogue_revisions');
  await db.query('delete from public.catalogue_pictures');
});

describe(`pruning the catalogue's saves, on ${TEST_DATABASE_KIND}`, { timeout: 60_000 }, () => {
  it(`keeps each product's newest ${REVISIONS_KEPT} saves, those of the last ${REVISION_DAYS_KEPT} days and the one before each; the rest go`, async () => {
    // 100 saves of the scrubs: 70 from 200 days ago, a day apart, then 30 from 60 days ago.
    const scrubs = await saves(
      SCRUBS,
      range(100).map((i) => withPrice(100 + i)),
      (i) => (i < 70 ? 200 - i : 60 - (i - 70)),
    );
    // 120 of the cream: 10 from 300 days ago, then 110 within the last 90 days.
    const cream = await saves(
      CREAM,
      range(120).map((i) => withPrice(100 + i, CREAM)),
      (i) => (i < 10 ? 300 - i : 80 - (i - 10) / 2),
    );
    // 5 of the soap, a year old: fewer than are kept.
    const soap = await saves(
      SOAP,
      range(5).map((i) => withPrice(10 + i, SOAP)),
      () => 400,
    );

    expect(await pruneRevisions(db, root)).toEqual({ revisions: 49 + 9, pictures: 0 });
    // The scrubs: the newest 50 (#50 to #99), and #49, the text #50 changed and its undo brings back.
    expect(await kept(SCRUBS)).toEqual(from(scrubs, 49));
    // The cream: every save of the last 90 days (#10 to #119), and #9 before them.
    expect(await kept(CREAM)).toEqual(from(cream, 9));
    expect(await kept(SOAP)).toEqual(soap);
    // The saves kept only as the text before a kept one are marked: what came before them is gone.
    const marked = await db.query<{ id: string | number }>(
      'select id from public.catalogue_revisions where earlier_pruned order by id',
    );
    expect(marked.map((r) => Number(r.id))).toEqual([...pick(cream, 9), ...pick(scrubs, 49)].sort((a, b) => a - b));

    // Again: nothing more goes.
    expect(await pruneRevisions(db, root)).toEqual({ revisions: 0, pictures: 0 });
    expect(await kept(SCRUBS)).toEqual(from(scrubs, 49));
    expect(await kept(CREAM)).toEqual(from(cream, 9));
  });

  it('the history of what is kept reads as before and says older saves are gone; undo of a kept save works', async () => {
    const texts = range(80).map((i) =>
      withPrice(100 + i).replace(
        /^description: .*$/m,
        `description: A soft four-way-stretch scrub set, the one of save number ${i}, made to move with you through long shifts.`,
      ),
    );
    const ids = await saves(SCRUBS, texts, (i) => 300 - i);
    await saves(
      SOAP,
      range(3).map((i) => withPrice(20 + i, SOAP)),
      () => 300,
    );
    const before = await asService(db, (tx) => productHistory(tx, SCRUBS));
    expect(before).toHaveLength(REVISIONS_KEPT);
    expect(before.every((row) => row.texts.length > 0)).toBe(true);

    expect(await pruneRevisions(db, root)).toMatchObject({ revisions: 80 - 51 });
    const form = await asService(db, (tx) => productForm(tx, SCRUBS));
    expect(form?.history).toEqual(before);
    expect(form?.olderPruned).toBe(true);
    expect(form?.history.every((row) => row.undoable)).toBe(true);
    expect((await asService(db, (tx) => productForm(tx, SOAP)))?.olderPruned).toBe(false);

    // Undo of the oldest save shown brings back the text before it, which was kept for it.
    const [oldest, base] = pick(ids, 30, 29);
    expect(await undoSave(editor, oldest ?? 0)).toMatchObject({ ok: true, saved: true });
    expect((await catalogueFiles(db)).get(SCRUBS)).toBe(texts[29]);
    // The save kept only as that text: what it changed is unknown now, so it is not undone (not from the seed either).
    expect(await undoSave(editor, base ?? 0)).toMatchObject({
      ok: false,
      status: 400,
      code: 'cannot_undo',
      message: expect.stringMatching(/no longer kept/),
    });
    expect((await catalogueFiles(db)).get(SCRUBS)).toBe(texts[29]);
    const all = await asService(db, (tx) => productHistory(tx, SCRUBS, 100));
    expect(all.find((row) => row.id === base)).toMatchObject({ undoable: false, texts: [] });
  });

  it('keeps what publishes, a stored release, a publish under way and a change from the repository read', async () => {
    const ids = await saves(
      SCRUBS,
      range(100).map((i) => withPrice(100 + i)),
      (i) => 400 - i,
    );
    // A stored release whose publish is no longer among the last 20 live: it may be served as stored, so its saves stay.
    const key = 'abcdef0123456789abcdef01';
    await db.query(
      `insert into public.catalogue_releases (key, manifest, digest, made_by, made_ms)
       values ($1, '{}', repeat('0', 64), 'test', 1)`,
      [key],
    );
    await publish('live', pick(ids, 5)[0] ?? 0, { digest: key });
    // The oldest of the last 20 live publishes: it can be served again.
    await publish('live', pick(ids, 10)[0] ?? 0);
    for (const _ of range(19)) await publish('live', pick(ids, 99)[0] ?? 0);
    // A scheduled publish whose time came: its publish is being made, up to the save that was the newest then.
    const [schedule] = await db.query<{ id: string | number }>(
      `insert into public.catalogue_scheduled_publishes (run_at, scheduled_by_email, status, started_by, started_at)
       values (now() - interval '1 minute', 'editor@example.com', 'started', 'test', now()) returning id`,
    );
    await publish('building', pick(ids, 20)[0] ?? 0, { schedule: Number(schedule?.id) });
    // A change from the repository, found against a save editors have since saved over.
    await db.query(
      `insert into public.catalogue_seed_changes (file, seed_sha256, seed_contents, base_sha256, revision_id)
       values ($1, repeat('a', 64), $2, 'none', $3)`,
      [SCRUBS, withPrice(44), pick(ids, 30)[0]],
    );

    await pruneRevisions(db, root);
    expect(await kept(SCRUBS)).toEqual([...pick(ids, 4, 5, 9, 10, 19, 20, 29, 30), ...from(ids, 49)]);
    // What each of them is made from is as it was.
    expect((await catalogueFiles(db, pick(ids, 10)[0], root)).get(SCRUBS)).toBe(withPrice(110));
    expect((await catalogueFiles(db, pick(ids, 20)[0], root)).get(SCRUBS)).toBe(withPrice(120));

    // Once another publish is live, the 21st back can no longer be served again: its saves go at the next prune;
    // once the publish under way is live (and is among the last 20), its own stay.
    await publish('live', pick(ids, 99)[0] ?? 0);
    await db.query(`update public.catalogue_publishes set status = 'live', finished_at = now() where status = 'building'`);
    await db.query('delete from public.catalogue_releases');
    await db.query('delete from public.catalogue_seed_changes');
    await pruneRevisions(db, root);
    expect(await kept(SCRUBS)).toEqual([...pick(ids, 19, 20), ...from(ids, 49)]);
  });

  it('a publish after pruning goes live, and an earlier publish served again is the catalogue it was', async () => {
    const ids = await saves(
      SCRUBS,
      range(100).map((i) => withPrice(100 + i)),
      (i) => 400 - i,
    );
    const earlier = await publish('live', pick(ids, 10)[0] ?? 0);
    const digest = (await catalogueSnapshot(db, pick(ids, 10)[0] ?? 0, root)).catalogueDigest;
    const served = recordingSwitch();
    const worker = startPublisher(db, { served, checkEveryMs: 3_600_000, root, make: makeRelease, code: 'test-code' });
    workers.push(worker);
    await worker.caughtUp;
    expect(served.prices()).toEqual([11000]);

    // A publish goes live, and the publisher prunes what no publish needs any more.
    const { id } = await requestPublish(db, editor.editor);
    await expect.poll(async () => (await publishState(db)).live?.id, { timeout: 5000 }).toBe(id);
    expect(served.prices().at(-1)).toBe(19900);
    await expect.poll(() => kept(SCRUBS), { timeout: 5000 }).toEqual([...pick(ids, 9, 10), ...from(ids, 49)]);

    // The earlier publish is made of what it was made of.
    expect((await catalogueSnapshot(db, pick(ids, 10)[0] ?? 0, root)).catalogueDigest).toBe(digest);
    await db.query('delete from public.catalogue_releases');
    const result = await servePublishAgain(db, editor.editor, earlier);
    expect(result).toMatchObject({ ok: true });
    worker.nudge();
    await expect.poll(() => served.prices().at(-1), { timeout: 5000 }).toBe(11000);
  });

  it('takes away the uploaded pictures only pruned saves showed; those a kept save, the repository or a recent upload has stay', async () => {
    const project = mkdtempSync(join(tmpdir(), 'aurelia-prune-pictures-'));
    try {
      cpSync('content/products', join(project, 'content/products'), { recursive: true });
      const names = {
        gone: 'gone-0123456789ab.png',
        shared: 'shared-0123456789ab.png',
        current: 'current-0123456789ab.jpeg',
        pinned: 'pinned-0123456789ab.webp',
        unused: 'unused-0123456789ab.png',
        recent: 'recent-0123456789ab.png',
        repository: 'repository-0123456789ab.svg',
      };
      for (const [role, name] of Object.entries(names)) await picture(name, role === 'recent' ? 1 : 200);
      // The repository's soap names an upload (a developer copied a save into the files, not its picture).
      writeFileSync(join(project, 'content/products', SOAP), withPicture(seed(SOAP), names.repository));
      const texts = range(80).map((i) => {
        const text = withPrice(100 + i);
        if (i < 10) return withPicture(text, names.gone);
        if (i === 12) return withPicture(text, names.pinned);
        if (i < 20 || i === 79) return withPicture(i === 79 ? withPicture(text, names.current) : text, names.shared);
        return text;
      });
      const ids = await saves(SCRUBS, texts, (i) => 300 - i);
      await publish('live', pick(ids, 12)[0] ?? 0);

      expect(await pruneRevisions(db, project)).toEqual({ revisions: 80 - 51 - 2, pictures: 2 });
      expect(await pictures()).toEqual([names.current, names.pinned, names.recent, names.repository, names.shared].sort());
    } finally {
      rmSync(project, { recursive: true, force: true });
    }
  });

  it('an upload of a picture stored long ago counts as new: a prune before its save does not take it', async () => {
    const png = new Uint8Array(
      await sharp({ create: { width: 4, height: 3, channels: 3, background: '#2a7f62' } })
        .png()
        .toBuffer(),
    );
    const first = await uploadPicture(editor, 'Back View.png', png);
    if (!first.ok) throw new Error(first.message);
    const age = () =>
      db.query(`update public.catalogue_pictures set created_at = now() - interval '200 days' where name = $1`, [first.name]);
    await age();
    expect(await uploadPicture(editor, 'back view.png', png)).toMatchObject({ ok: true, name: first.name });
    expect(await pruneRevisions(db, root)).toEqual({ revisions: 0, pictures: 0 });
    expect(await pictures()).toEqual([first.name]);
    await age();
    expect(await pruneRevisions(db, root)).toEqual({ revisions: 0, pictures: 1 });
    expect(await pictures()).toEqual([]);
  });

  it('two servers pruning at once both finish, each save going once; a save made meanwhile is kept', async () => {
    const scrubs = await saves(
      SCRUBS,
      range(100).map((i) => withPrice(100 + i)),
      (i) => 400 - i,
    );
    const cream = await saves(
      CREAM,
      range(100).map((i) => withPrice(100 + i, CREAM)),
      (i) => 400 - i,
    );
    const url = databaseUrl(db);
    const other: Database = url ? openPostgres(url, { max: 2 }) : db;
    try {
      const [a, b, saved] = await Promise.all([
        pruneRevisions(db, root),
        pruneRevisions(other, root),
        saveProduct(editor, SOAP, { base: 0, fields: { price: 16 } }),
      ]);
      expect([a.revisions, b.revisions].sort((x, y) => x - y)).toEqual([0, 49 * 2]);
      expect(saved).toMatchObject({ ok: true, saved: true });
      expect(await kept(SCRUBS)).toEqual(from(scrubs, 49));
      expect(await kept(CREAM)).toEqual(from(cream, 49));
      expect(await kept(SOAP)).toHaveLength(1);
    } finally {
      if (other !== db) await other.close();
    }
  });
});
