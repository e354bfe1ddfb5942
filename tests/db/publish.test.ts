// Publishing the catalogue on the database: what a publish is made of (the seed with the saves up to it), that publishes
// requested together make one release, that a failed one changes nothing shoppers see and says why, that another server
// on the database follows what was published, and that a restarted server serves the live publish before it listens.
// Rendering pages is the server's: a recorder stands for it here (tests/e2e/publish.spec.ts publishes through the shop).
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { serveCatalogue, servedCatalogue } from '@/features/catalogue/served-catalogue.server';
import { catalogueSnapshot, PublishError } from '@/features/editor/catalogue-snapshot.server';
import { catalogueHealth, publishState, type ReleaseSwitch, requestPublish } from '@/features/editor/publish.server';
import { servePublishAgain } from '@/features/editor/publish-again.server';
import { type PublishWorker, startPublisher } from '@/features/editor/publisher.server';
import { makeRelease, type Release } from '@/features/editor/release.server';
import { captureLogs } from '@/server/log.server';
import { recordingSwitch } from './recording-switch';
import { suiteDatabase, TEST_DATABASE_KIND } from './test-database';

const db = suiteDatabase();

// A project of its own: the seed catalogue, so a test can change it.
const root = mkdtempSync(join(tmpdir(), 'aurelia-publish-'));
cpSync('content/products', join(root, 'content/products'), { recursive: true });
afterAll(() => rmSync(root, { recursive: true, force: true }));

const seedScrubs = readFileSync('content/products/03-clinical-scrubs.md', 'utf8');
const withPrice = (price: string) => seedScrubs.replace(/^price: 45$/m, `price: ${price}`);

async function save(contents: string, file = '03-clinical-scrubs.md'): Promise<number> {
  const [row] = await db.query<{ id: string | number }>(
    `insert into public.catalogue_revisions (file, product_id, contents, author_email, summary)
     values ($1, 3, $2, 'editor@example.com', 'price') returning id`,
    [file, contents],
  );
  return Number(row?.id);
}

/** Makes releases as the server does, recording the price of product 3 in each, or fails when `fail` says why. */
function recordingMaker(fail?: () => string | null) {
  const releases: string[] = [];
  const make: typeof makeRelease = async (snapshot, options): Promise<Release> => {
    const reason = fail?.();
    if (reason) throw new PublishError(reason);
    const release = await makeRelease(snapshot, options);
    releases.push(String((release.catalogue.products.find((p) => p.id === 3)?.priceCents ?? 0) / 100));
    return release;
  };
  return { releases, make };
}

const workers: PublishWorker[] = [];
function publisher(served: ReleaseSwitch, make: typeof makeRelease): PublishWorker {
  const worker = startPublisher(db, { served, checkEveryMs: 3_600_000, root, make, code: 'test-code' });
  workers.push(worker);
  return worker;
}

const editor = { id: null, email: 'editor@example.com' };

beforeEach(async () => {
  await Promise.all(workers.splice(0).map((w) => w.stop()));
  serveCatalogue(null);
  await db.query('delete from public.catalogue_publishes');
  await db.query('delete from public.catalogue_releases');
  await db.query('delete from public.catalogue_release_files');
  await db.query('delete from public.catalogue_revisions');
});

describe(`publishing the catalogue, on ${TEST_DATABASE_KIND}`, () => {
  it('makes the seed with every save up to the publish: the newest save of a file wins, later saves wait', async () => {
    const first = await save(withPrice('46'));
    const second = await save(withPrice('47'));
    await save(withPrice('48'));
    const at = (upTo: number) => catalogueSnapshot(db, upTo, root);
    expect((await at(0)).files.get('03-clinical-scrubs.md')).toBe(seedScrubs);
    expect((await at(first)).files.get('03-clinical-scrubs.md')).toBe(withPrice('46'));
    expect((await at(second)).files.get('03-clinical-scrubs.md')).toBe(withPrice('47'));
    // The digest names the catalogue: the same saves, the same digest; another price, another.
    expect((await at(second)).catalogueDigest).toBe((await at(second)).catalogueDigest);
    expect((await at(second)).catalogueDigest).not.toBe((await at(first)).catalogueDigest);
    expect([...(await at(0)).files.keys()]).toHaveLength(9);
    expect((await at(0)).pictures.size).toBeGreaterThan(20);
  });

  it('is made of what the products use: a picture uploaded but used by no product changes neither the release nor its key', async () => {
    const before = await catalogueSnapshot(db, 0, root);
    const name = 'side-view-0123456789ab.png';
    await db.query(`insert into public.catalogue_pictures (name, bytes, author_email) values ($1, $2, 'editor@example.com')`, [
      name,
      Buffer.from('a picture no product shows'),
    ]);
    try {
      const unused = await catalogueSnapshot(db, 0, root);
      expect(unused.pictures.has(name)).toBe(false);
      expect([...unused.pictures.keys()]).toEqual([...before.pictures.keys()]);
      // The same key as before the upload: a server that starts, or follows the live publish, reuses the build it has.
      expect(unused.catalogueDigest).toBe(before.catalogueDigest);
      // Once a product shows it (saved, and up to that save), it is built, and the key is another.
      const showing = await save(seedScrubs.replace(/^images:\n/m, `images:\n  - src: ./images/${name}\n    alt: The side\n`));
      const used = await catalogueSnapshot(db, showing, root);
      expect(used.pictures.has(name)).toBe(true);
      expect(used.catalogueDigest).not.toBe(before.catalogueDigest);
      // A seed picture no product shows any more is left out too.
      const others = [...before.files].filter(([file]) => file !== '03-clinical-scrubs.md').map(([, text]) => text);
      const seedOnly = [...before.pictures.keys()].find(
        (p) => seedScrubs.includes(`./images/${p}`) && !others.some((text) => text.includes(`./images/${p}`)),
      );
      if (!seedOnly) throw new Error('no seed picture only the scrubs show');
      const without = await save(seedScrubs.replaceAll(`./images/${seedOnly}`, `./images/${name}`));
      expect((await catalogueSnapshot(db, without, root)).pictures.has(seedOnly)).toBe(false);
    } finally {
      await db.query('delete from public.catalogue_pictures where name = $1', [name]);
    }
  });

  it('publishes requested together make one release with both changes, and the server switches to it', async () => {
    const served = recordingSwitch();
    const { releases, make } = recordingMaker();
    const worker = publisher(served, make);
    await worker.caughtUp;
    // The seed, before anything is published: served from the first look on.
    expect(served.prices()).toEqual([4500]);
    await save(withPrice('46'));
    await save(withPrice('49.5'), '03-clinical-scrubs.md');
    // Two editors press Publish at the same moment: both requests are queued before the publisher looks.
    const [a, b] = await Promise.all([requestPublish(db, editor), requestPublish(db, { id: null, email: 'b@example.com' })]);
    await expect.poll(async () => (await publishState(db)).latest?.status, { timeout: 5000 }).toBe('live');
    expect(releases).toEqual(['45', '49.5']);
    expect(served.prices()).toEqual([4500, 4950]);
    // The app reads the same catalogue the pages show: the checkout charges what the page says.
    expect(servedCatalogue()?.products.find((p) => p.id === 3)?.priceCents).toBe(4950);
    // Every page a shopper may open, the sitemap, and the pictures the products show, at addresses named by their bytes.
    const paths = served.files.map((f) => f.path);
    expect(paths).toEqual(expect.arrayContaining(['/', '/about', '/contact', '/sitemap-0.xml', '/product/1', '/product/9']));
    expect(
      paths.filter((p) => p.startsWith('/pictures/')).every((p) => /^\/pictures\/[a-z0-9-]+\.[0-9a-f]{12}\.svg$/.test(p)),
    ).toBe(true);
    const rows = await db.query<{ id: string | number; status: string }>(
      'select id, status from public.catalogue_publishes order by id',
    );
    // Both live, whichever of the two inserts committed first (on PostgreSQL they race on a pool of connections).
    expect(rows.map((r) => [Number(r.id), r.status])).toEqual(
      [
        [a.id, 'live'],
        [b.id, 'live'],
      ].sort(([x], [y]) => Number(x) - Number(y)),
    );
    const state = await publishState(db);
    expect(state.unpublishedSaves).toBe(0);
    expect(state.live?.upToRevision).toBeGreaterThan(0);
  });

  it('a publish that fails changes nothing shoppers see and tells the editor why; the next publish goes live', async () => {
    const served = recordingSwitch();
    let failing = false;
    const { releases, make } = recordingMaker(() =>
      failing ? 'The shop could not make the page of product 3 (it answered 500): publish again.' : null,
    );
    const worker = publisher(served, make);
    await worker.caughtUp;
    failing = true;
    await save(withPrice('46'));
    const logs = captureLogs('error');
    try {
      await requestPublish(db, editor);
      await expect.poll(async () => (await publishState(db)).latest?.status, { timeout: 5000 }).toBe('failed');
      expect(logs.text()).toMatch(/could not make the page of product 3/);
    } finally {
      logs.restore();
    }
    const failed = await publishState(db);
    expect(failed.latest?.error).toBe('The shop could not make the page of product 3 (it answered 500): publish again.');
    expect(failed.live).toBeNull();
    expect(failed.unpublishedSaves).toBe(1);
    expect(served.prices()).toEqual([4500]);

    failing = false;
    await requestPublish(db, editor);
    await expect.poll(async () => (await publishState(db)).latest?.status, { timeout: 5000 }).toBe('live');
    expect(releases).toEqual(['45', '46']);
    expect(served.prices()).toEqual([4500, 4600]);
  });

  it('a catalogue the schema refuses is not published: the editor reads which file and field, in words', async () => {
    const served = recordingSwitch();
    const worker = publisher(served, makeRelease);
    await worker.caughtUp;
    await save(withPrice('29.999'));
    const logs = captureLogs('error');
    try {
      await requestPublish(db, editor);
      await expect.poll(async () => (await publishState(db)).latest?.status, { timeout: 5000 }).toBe('failed');
    } finally {
      logs.restore();
    }
    expect((await publishState(db)).latest?.error).toBe(
      'The catalogue cannot be published: 03-clinical-scrubs.md: price: price must have at most two decimals',
    );
    expect(servedCatalogue()?.products.find((p) => p.id === 3)?.priceCents).toBe(4500);
  });

  it('a failed publish tells the editor why in words, never with a path on the server; the log keeps the detail', async () => {
    const served = recordingSwitch();
    const place = join(root, 'content', 'products', 'state', 'release.json');
    const worker = publisher(served, async () => {
      throw new Error(`ENOENT: no such file or directory, open '${place}'`);
    });
    await worker.caughtUp.catch(() => {});
    await save(withPrice('46'));
    const logs = captureLogs('error');
    try {
      await requestPublish(db, editor);
      await expect.poll(async () => (await publishState(db)).latest?.status, { timeout: 5000 }).toBe('failed');
      expect(logs.text()).toContain(place);
    } finally {
      logs.restore();
    }
    const { latest } = await publishState(db);
    expect(latest?.error).toBe(
      'The catalogue could not be published: ENOENT: no such file or directory, open a file on the server',
    );
    expect(latest?.error).not.toContain(root);
  });

  it('one server makes a release and the others serve it: three servers, one release per publish, and a restart', async () => {
    const servers = [recordingSwitch(), recordingSwitch(), recordingSwitch()];
    const makers = servers.map(() => recordingMaker());
    const started = servers.map((served, i) => publisher(served, (makers[i] as ReturnType<typeof recordingMaker>).make));
    await Promise.all(started.map((w) => w.caughtUp));
    // The seed: made once, by whichever took its lease first; the others fetched it.
    expect(makers.flatMap((m) => m.releases)).toEqual(['45']);
    for (const served of servers) expect(served.prices()).toEqual([4500]);
    for (const price of ['51', '52.5']) {
      await save(withPrice(price));
      await requestPublish(db, editor);
      await expect.poll(async () => (await publishState(db)).latest?.status, { timeout: 5000 }).toBe('live');
      for (const w of started) w.nudge();
      const page = Math.round(Number(price) * 100);
      await expect.poll(() => servers.map((s) => s.prices().at(-1)), { timeout: 5000 }).toEqual([page, page, page]);
    }
    expect(makers.flatMap((m) => m.releases).sort()).toEqual(['45', '51', '52.5']);
    // Each release is stored once, its files named by their bytes and checked when read.
    const stored = await db.query<{ n: string | number }>('select count(*) as n from public.catalogue_releases');
    expect(Number(stored[0]?.n)).toBe(3);

    // A server that starts now serves the live publish once caughtUp settles (it then listens), without making it.
    const restarted = recordingSwitch();
    const again = recordingMaker();
    await publisher(restarted, again.make).caughtUp;
    expect(restarted.prices()).toEqual([5250]);
    expect(again.releases).toEqual([]);
  });

  it('a stored release whose bytes were changed is not served: the server says so, and serves what it had', async () => {
    const served = recordingSwitch();
    await publisher(served, recordingMaker().make).caughtUp;
    await save(withPrice('53'));
    await requestPublish(db, editor);
    await expect.poll(async () => (await publishState(db)).latest?.status, { timeout: 5000 }).toBe('live');
    await db.query(`update public.catalogue_release_files set bytes = convert_to('1', 'UTF8')
                     where bytes = convert_to('5300', 'UTF8')`);
    const logs = captureLogs('error');
    try {
      const other = recordingSwitch();
      await publisher(other, recordingMaker().make).caughtUp;
      expect(other.prices()).toEqual([]);
      expect(catalogueHealth()).toMatch(/could not switch to it .*does not match its digest/);
    } finally {
      logs.restore();
    }
  });

  it('a server that cannot switch to the live publish says so in its readiness, until it can', async () => {
    const here = recordingSwitch();
    await publisher(here, recordingMaker().make).caughtUp;
    await save(withPrice('52'));
    await requestPublish(db, editor);
    await expect.poll(async () => (await publishState(db)).latest?.status, { timeout: 5000 }).toBe('live');
    expect(catalogueHealth()).toBe('ok');

    // The release is not stored any more (pruned, or made by servers of another code): this server must make it.
    await db.query('delete from public.catalogue_releases');
    const logs = captureLogs('error');
    try {
      const broken = recordingMaker(() => 'The catalogue cannot be published: out of memory');
      await publisher(recordingSwitch(), broken.make).caughtUp;
      expect(catalogueHealth()).toMatch(
        /^failed: publish \d+ is live but this server could not switch to it \(it tries again every 5 minutes\): The catalogue cannot be published: out of memory$/,
      );
    } finally {
      logs.restore();
    }
    await publisher(recordingSwitch(), recordingMaker().make).caughtUp;
    expect(catalogueHealth()).toBe('ok');
  });

  it('serves an earlier publish again on every server, in the activity log; what was saved since waits to be published', async () => {
    const here = recordingSwitch();
    const there = recordingSwitch();
    const workers = [publisher(here, recordingMaker().make), publisher(there, recordingMaker().make)];
    await Promise.all(workers.map((w) => w.caughtUp));
    const publishAt = async (price: string) => {
      await save(withPrice(price));
      const { id } = await requestPublish(db, editor);
      await expect.poll(async () => (await publishState(db)).live?.id, { timeout: 5000 }).toBe(id);
      return id;
    };
    const first = await publishAt('46');
    const second = await publishAt('47');
    // Refused: the publish live now, one that never was, and one while a publish is under way.
    expect(await servePublishAgain(db, editor, second)).toMatchObject({ ok: false, status: 409, code: 'already_live' });
    expect(await servePublishAgain(db, editor, second + 100)).toMatchObject({ ok: false, status: 404 });
    await save(withPrice('48'));
    const [queued] = await db.query<{ id: string | number }>(
      `insert into public.catalogue_publishes (requested_by_email) values ('x@example.com') returning id`,
    );
    expect(await servePublishAgain(db, editor, first)).toMatchObject({ ok: false, status: 409, code: 'publish_underway' });
    await db.query('delete from public.catalogue_publishes where id = $1', [queued?.id]);
    const before = await db.query<{ id: string | number }>('select coalesce(max(id), 0) as id from public.admin_actions');

    const again = await servePublishAgain(db, editor, first);
    if (!again.ok) throw new Error(again.message);
    for (const w of workers) w.nudge();
    await expect.poll(() => [here.prices().at(-1), there.prices().at(-1)], { timeout: 5000 }).toEqual([4600, 4600]);
    const state = await publishState(db);
    expect(state.live).toMatchObject({ id: again.publish.id, againOf: first, upToRevision: again.publish.upToRevision });
    // The saves after the first publish (47, 48) are not what shoppers see.
    expect(state.unpublishedSaves).toBe(2);
    expect(state.earlier.map((p) => p.id)).toEqual([second, first]);
    const lines = await db.query<{ action: string; after: string }>(
      'select action, after from public.admin_actions where id > $1 order by id',
      [before[0]?.id],
    );
    expect(lines).toEqual([
      { action: 'catalogue.published-again', after: `served publish ${first} again: 1 product changed (Clinical Scrubs)` },
    ]);
  });

  it('a publish its server was making when it stopped is marked failed when it starts again', async () => {
    await db.query(
      `insert into public.catalogue_publishes (requested_by_email, status, started_at, built_by)
       values ('editor@example.com', 'building', now(), $1)`,
      [`${(await import('node:os')).hostname()}:${process.env.PORT ?? ''}`],
    );
    const worker = publisher(recordingSwitch(), recordingMaker().make);
    await worker.caughtUp;
    const state = await publishState(db);
    expect(state.latest?.status).toBe('failed');
    expect(state.latest?.error).toBe('The server stopped before the release was made: publish again.');
  });
});
