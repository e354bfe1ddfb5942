// Publishing the catalogue on the database: what a publish builds (the seed with the saves up to it), that publishes
// requested together run one build, that a failed build changes nothing shoppers see and says why, that another server
// on the database follows what was published, and that a restarted server serves the live publish before it listens.
// The build itself is replaced by a recorder here (tests/e2e/publish.spec.ts runs real builds through the shop).
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import {
  catalogueHealth,
  type PublishWorker,
  publishState,
  requestPublish,
  type ServedBuild,
  startPublisher,
} from '@/features/editor/publish.server';
import {
  type Build,
  buildFailure,
  buildShop,
  type CatalogueSnapshot,
  catalogueSnapshot,
  PublishError,
} from '@/features/editor/publish-build.server';
import { captureLogs } from '@/server/log.server';
import { suiteDatabase, TEST_DATABASE_KIND } from './test-database';

const db = suiteDatabase();

// A project of its own: the seed catalogue and a little code, so a test can change either.
const root = mkdtempSync(join(tmpdir(), 'aurelia-publish-'));
cpSync('content/products', join(root, 'content/products'), { recursive: true });
mkdirSync(join(root, 'src'));
writeFileSync(join(root, 'src/shop.ts'), 'export const shop = 1;\n');
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

/** A server's build switch that records what it was switched to. */
function recordingServer(): ServedBuild & { switches: string[] } {
  const served = {
    dir: 'dist',
    switches: [] as string[],
    async switchTo(dir: string) {
      served.switches.push(dir);
      served.dir = dir;
    },
  };
  return served;
}

/** A build that records the catalogue it was given (its price of product 3), or fails when `fail` says why. */
function recordingBuilder(fail?: () => string | null) {
  const builds: string[] = [];
  const build = async (snapshot: CatalogueSnapshot): Promise<Build> => {
    const price = /^price: (.*)$/m.exec(snapshot.files.get('03-clinical-scrubs.md') ?? '')?.[1] ?? '?';
    const reason = fail?.();
    if (reason) throw new PublishError(reason);
    builds.push(price);
    return { dir: `build-${snapshot.digest.slice(0, 8)}`, key: snapshot.digest.slice(0, 24), ms: 1, reused: false };
  };
  return { builds, build };
}

const workers: PublishWorker[] = [];
function publisher(served: ServedBuild, build: ReturnType<typeof recordingBuilder>['build']): PublishWorker {
  const worker = startPublisher(db, { served, checkEveryMs: 3_600_000, buildsDir: '.builds', root, build });
  workers.push(worker);
  return worker;
}

const editor = { id: null, email: 'editor@example.com' };

beforeEach(async () => {
  await Promise.all(workers.splice(0).map((w) => w.stop()));
  await db.query('delete from public.catalogue_publishes');
  await db.query('delete from public.catalogue_revisions');
});

describe(`publishing the catalogue, on ${TEST_DATABASE_KIND}`, () => {
  it('builds the seed with every save up to the publish: the newest save of a file wins, later saves wait', async () => {
    const first = await save(withPrice('46'));
    const second = await save(withPrice('47'));
    await save(withPrice('48'));
    const at = (upTo: number) => catalogueSnapshot(db, upTo, root);
    expect((await at(0)).files.get('03-clinical-scrubs.md')).toBe(seedScrubs);
    expect((await at(first)).files.get('03-clinical-scrubs.md')).toBe(withPrice('46'));
    expect((await at(second)).files.get('03-clinical-scrubs.md')).toBe(withPrice('47'));
    // The digest names the catalogue: the same saves, the same digest; another price, another.
    expect((await at(second)).digest).toBe((await at(second)).digest);
    expect((await at(second)).digest).not.toBe((await at(first)).digest);
    expect([...(await at(0)).files.keys()]).toHaveLength(9);
    expect((await at(0)).pictures.size).toBeGreaterThan(20);
  });

  it('builds by what the products use: a picture uploaded but used by no product changes neither the build nor its key', async () => {
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
      expect(unused.digest).toBe(before.digest);
      // Once a product shows it (saved, and up to that save), it is built, and the key is another.
      const showing = await save(seedScrubs.replace(/^images:\n/m, `images:\n  - src: ./images/${name}\n    alt: The side\n`));
      const used = await catalogueSnapshot(db, showing, root);
      expect(used.pictures.has(name)).toBe(true);
      expect(used.digest).not.toBe(before.digest);
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

  it('publishes requested together run one build with both changes, and the server switches to it', async () => {
    const served = recordingServer();
    const { builds, build } = recordingBuilder();
    const worker = publisher(served, build);
    await worker.caughtUp;
    await save(withPrice('46'));
    await save(withPrice('49.5'), '03-clinical-scrubs.md');
    // Two editors press Publish at the same moment: both requests are queued before the publisher looks.
    const [a, b] = await Promise.all([requestPublish(db, editor), requestPublish(db, { id: null, email: 'b@example.com' })]);
    await expect.poll(async () => (await publishState(db)).latest?.status, { timeout: 5000 }).toBe('live');
    expect(builds).toEqual(['49.5']);
    expect(served.switches).toHaveLength(1);
    const rows = await db.query<{ id: string | number; status: string }>(
      'select id, status from public.catalogue_publishes order by id',
    );
    expect(rows.map((r) => [Number(r.id), r.status])).toEqual([
      [a.id, 'live'],
      [b.id, 'live'],
    ]);
    const state = await publishState(db);
    expect(state.unpublishedSaves).toBe(0);
    expect(state.live?.upToRevision).toBeGreaterThan(0);
  });

  it('a build that fails changes nothing shoppers see and tells the editor why; the next publish goes live', async () => {
    const served = recordingServer();
    let failing = true;
    const { builds, build } = recordingBuilder(() => (failing ? 'The build failed: images: ./images/x.svg is missing' : null));
    const worker = publisher(served, build);
    await worker.caughtUp;
    await save(withPrice('46'));
    const logs = captureLogs('error');
    try {
      await requestPublish(db, editor);
      await expect.poll(async () => (await publishState(db)).latest?.status, { timeout: 5000 }).toBe('failed');
      expect(logs.text()).toMatch(/The build failed: images/);
    } finally {
      logs.restore();
    }
    const failed = await publishState(db);
    expect(failed.latest?.error).toBe('The build failed: images: ./images/x.svg is missing');
    expect(failed.live).toBeNull();
    expect(failed.unpublishedSaves).toBe(1);
    expect(served.switches).toEqual([]);

    failing = false;
    await requestPublish(db, editor);
    await expect.poll(async () => (await publishState(db)).latest?.status, { timeout: 5000 }).toBe('live');
    expect(builds).toEqual(['46']);
    expect(served.switches).toHaveLength(1);
  });

  it('a failed publish tells the editor why in words, never with a path on the server; the log keeps the detail', async () => {
    const served = recordingServer();
    const place = join(root, '.builds', 'abc-123', 'out', 'server', 'entry.mjs');
    const { build } = recordingBuilder(() => {
      throw new Error(`ENOENT: no such file or directory, open '${place}'`);
    });
    const worker = publisher(served, build);
    await worker.caughtUp;
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
    expect(latest?.error).toBe('The build could not finish: ENOENT: no such file or directory, open a file on the server');
    expect(latest?.error).not.toContain(root);
  });

  it('a builds folder it cannot write to is named by its setting, not its path', async () => {
    const blocked = join(root, 'not-a-folder');
    writeFileSync(blocked, 'a file where the builds folder should be');
    const snapshot = await catalogueSnapshot(db, 0, root);
    const failure = buildShop(snapshot, { root, buildsDir: blocked, code: 'x', signal: new AbortController().signal });
    await expect(failure).rejects.toThrow(PublishError);
    await expect(failure).rejects.toThrow(
      'The server cannot write the build into its builds folder (BUILDS_DIR): a file is in the way of the folder.',
    );
    await expect(failure).rejects.toSatisfy((error: Error) => !error.message.includes(root));
  });

  it('another server on the database follows the live publish, and a restarted one serves it before it listens', async () => {
    const here = recordingServer();
    const there = recordingServer();
    const builderHere = recordingBuilder();
    const builderThere = recordingBuilder();
    const workerHere = publisher(here, builderHere.build);
    const workerThere = publisher(there, builderThere.build);
    await Promise.all([workerHere.caughtUp, workerThere.caughtUp]);
    await save(withPrice('51'));
    await requestPublish(db, editor);
    await expect.poll(async () => (await publishState(db)).latest?.status, { timeout: 5000 }).toBe('live');
    // One server built it; the other looks (every PUBLISH_CHECK_EVERY; here, at once) and builds the same catalogue.
    workerHere.nudge();
    workerThere.nudge();
    await expect.poll(() => [here.switches.length, there.switches.length], { timeout: 5000 }).toEqual([1, 1]);
    expect(there.dir).toBe(here.dir);
    expect([...builderHere.builds, ...builderThere.builds]).toEqual(['51', '51']);

    // A server that starts now has switched to the live publish once caughtUp settles (the server then listens).
    const restarted = recordingServer();
    const afterRestart = recordingBuilder();
    await publisher(restarted, afterRestart.build).caughtUp;
    expect(restarted.dir).toBe(here.dir);
    expect(afterRestart.builds).toEqual(['51']);
  });

  it('a server that cannot switch to the live publish says so in its readiness, until it can', async () => {
    const here = recordingServer();
    await publisher(here, recordingBuilder().build).caughtUp;
    await save(withPrice('52'));
    await requestPublish(db, editor);
    await expect.poll(async () => (await publishState(db)).latest?.status, { timeout: 5000 }).toBe('live');
    expect(catalogueHealth()).toBe('ok');

    const logs = captureLogs('error');
    try {
      const broken = recordingBuilder(() => 'The build failed: out of memory');
      await publisher(recordingServer(), broken.build).caughtUp;
      expect(catalogueHealth()).toMatch(
        /^failed: publish \d+ is live but this server could not switch to it \(it tries again every 5 minutes\): The build failed: out of memory$/,
      );
    } finally {
      logs.restore();
    }
    await publisher(recordingServer(), recordingBuilder().build).caughtUp;
    expect(catalogueHealth()).toBe('ok');
  });

  it('refuses to publish once the code on the server changed since it started, with what to do', async () => {
    const served = recordingServer();
    const { builds, build } = recordingBuilder();
    const worker = publisher(served, build);
    await worker.caughtUp;
    writeFileSync(join(root, 'src/shop.ts'), 'export const shop = 2;\n');
    const logs = captureLogs('error');
    try {
      await save(withPrice('46'));
      await requestPublish(db, editor);
      await expect.poll(async () => (await publishState(db)).latest?.status, { timeout: 5000 }).toBe('failed');
      expect((await publishState(db)).latest?.error).toBe(
        "The shop's code on this server changed since it started (an update was installed): restart the shop, then publish again.",
      );
      expect(builds).toEqual([]);
    } finally {
      logs.restore();
      writeFileSync(join(root, 'src/shop.ts'), 'export const shop = 1;\n');
    }
  });

  it('a publish its server was building when it stopped is marked failed when it starts again', async () => {
    await db.query(
      `insert into public.catalogue_publishes (requested_by_email, status, started_at, built_by)
       values ('editor@example.com', 'building', now(), $1)`,
      [`${(await import('node:os')).hostname()}:${process.env.PORT ?? ''}`],
    );
    const worker = publisher(recordingServer(), recordingBuilder().build);
    await worker.caughtUp;
    const state = await publishState(db);
    expect(state.latest?.status).toBe('failed');
    expect(state.latest?.error).toBe('The server stopped before the build finished: publish again.');
  });
});

describe('what a failed build says', () => {
  it('is the error and the lines after it, without colours, times, code names, stacks or developers’ pointers', () => {
    const output = [
      '07:21:57 [build] output: "static"',
      '\u001b[31m07:21:58 [ERROR] [InvalidContentEntryDataError] products → 03-clinical-scrubs data does not match collection schema.\u001b[39m',
      '  price: price must have at most two decimals',
      '    at parseData (file:///x.js:1:1)',
      '  Hint: See https://docs.astro.build/en/guides/content-collections/',
      '  Location: /srv/shop/.builds/x/catalogue/products/03-clinical-scrubs.md:0:0',
    ].join('\n');
    expect(buildFailure(output)).toBe(
      'The build failed: products → 03-clinical-scrubs data does not match collection schema. price: price must have at most two decimals',
    );
    expect(buildFailure('')).toBe('The build failed: it stopped without saying why.');
  });

  it('names a picture or a product file the build could not read by its name, and no other file on the server', () => {
    const output = [
      '\u001b[31m09:12:01 [ERROR] [NoImageMetadata] Could not process image metadata for `/srv/my shop/.builds/ab-12/catalogue/products/images/jar-64d14e0fc1a8.png`.\u001b[39m',
      '  Cannot read file:///srv/shop/node_modules/astro/dist/x.js:12:7 or C:\\shop\\.builds\\y\\03-clinical-scrubs.md',
      '  see https://docs.astro.build/en/reference/errors/ and ./images/x.svg',
      '  Hint: This is often caused by a corrupted or malformed image.',
    ].join('\n');
    expect(buildFailure(output, ['/srv/my shop'])).toBe(
      'The build failed: Could not process image metadata for `jar-64d14e0fc1a8.png`. Cannot read a file on the server or 03-clinical-scrubs.md see https://docs.astro.build/en/reference/errors/ and ./images/x.svg',
    );
  });
});
