// Releases whose files live in an S3 bucket (decision 020), end to end on the database: the manifest and its digest
// stay in the database and the pages and pictures go to the bucket (a local server speaking S3's wire format,
// tests/mocks/s3.ts); a release reads back the same, and is refused when a file was changed or is gone. Pruning
// deletes the files no kept release holds, none written in the last minutes, none while a release is being stored;
// and a store waits while a prune deletes, so a file a new release shares with a pruned one is never lost.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { serveCatalogue } from '@/features/catalogue/served-catalogue.server';
import { catalogueSnapshot, PublishError } from '@/features/editor/catalogue-snapshot.server';
import type { ReleaseSwitch } from '@/features/editor/publish.server';
import { startPublisher } from '@/features/editor/publisher.server';
import { makeRelease, type Release } from '@/features/editor/release.server';
import { loadRelease, pruneReleases, storeRelease } from '@/features/editor/release-store.server';
import type { BucketFiles } from '@/server/release-files/release-files.port';
import { createS3Files } from '@/server/release-files/s3-files.server';
import { type FakeS3, startFakeS3 } from '../mocks/s3';
import { suiteDatabase, TEST_DATABASE_KIND } from './test-database';

const db = suiteDatabase();
let fake: FakeS3;
let bucket: BucketFiles;
beforeAll(async () => {
  fake = await startFakeS3({ bucket: 'aurelia-releases' });
  bucket = createS3Files({
    bucket: fake.bucket,
    prefix: 'shop/',
    region: 'us-east-1',
    endpoint: fake.endpoint,
    credentials: fake.credentials,
  });
});
afterAll(() => fake?.stop());
beforeEach(async () => {
  fake.objects.clear();
  fake.requests.length = 0;
  fake.pageSize = 1000;
  await db.query('delete from public.catalogue_releases');
  await db.query('delete from public.catalogue_release_files');
  await db.query('delete from public.catalogue_release_leases');
});

const MINUTE = 60_000;
const text = (bytes: Uint8Array | undefined) => new TextDecoder().decode(bytes);

/** A release of the seed catalogue made with code `code`: its pages say the code, its pictures are the seed's. */
async function release(code: string): Promise<Release> {
  return makeRelease(await catalogueSnapshot(db, 0, process.cwd()), {
    code,
    render: async (path) => ({
      path,
      status: 200,
      headers: { 'content-type': 'text/html' },
      body: new TextEncoder().encode(`${code} ${path}`),
    }),
  });
}

/** The keys of the bucket objects a release holds. */
function objectsOf(r: Release): string[] {
  const hashes = new Set<string>();
  for (const file of [...r.phases.flatMap((p) => p.pages), ...r.pictures])
    hashes.add(createHash('sha256').update(file.body).digest('hex'));
  return [...hashes].map((h) => `shop/files/${h}`);
}

/** `n` releases newer than any stored, holding no files (20: the ones stored before go at the next prune). */
async function newer(n: number): Promise<void> {
  await db.query(`update public.catalogue_releases set created_at = now() - interval '1 day'`);
  for (let i = 0; i < n; i++) {
    await db.query(
      `insert into public.catalogue_releases (key, manifest, digest, made_by, made_ms, created_at)
       values ($1, '{"v":1,"files":{},"pictures":{},"phases":[],"ms":0}', $2, 'test', 0, now() - interval '1 hour')`,
      [`${i}`.padStart(24, 'f'), '0'.repeat(64)],
    );
  }
}

const count = async (table: string) =>
  Number((await db.query<{ n: string | number }>(`select count(*) as n from public.${table}`))[0]?.n);

describe(`releases with their files in an S3 bucket, on ${TEST_DATABASE_KIND}`, () => {
  it('keeps the manifest in the database and the files in the bucket, and reads the release back the same', async () => {
    const made = await release('code-a');
    await storeRelease(db, made, 'server-1', bucket);

    expect(await count('catalogue_releases')).toBe(1);
    expect(await count('catalogue_release_files')).toBe(0);
    expect([...fake.objects.keys()].sort()).toEqual(objectsOf(made).sort());
    expect(made.pictures.length).toBeGreaterThan(0);

    const back = await loadRelease(db, made.key, bucket);
    expect(back?.catalogue).toEqual(made.catalogue);
    expect(back?.phases.map((p) => p.pages.map((f) => [f.path, text(f.body)]))).toEqual(
      made.phases.map((p) => p.pages.map((f) => [f.path, text(f.body)])),
    );
    expect(back?.pictures.map((f) => [f.path, Buffer.from(f.body).toString('base64')])).toEqual(
      made.pictures.map((f) => [f.path, Buffer.from(f.body).toString('base64')]),
    );
    // The database's own table knows nothing of it.
    await expect(loadRelease(db, made.key)).rejects.toThrow(/is missing/);
  });

  it('refuses a release whose file was changed in the bucket, or is gone from it', async () => {
    const made = await release('code-a');
    await storeRelease(db, made, 'server-1', bucket);
    const home = objectsOf(made).find((k) => text(fake.objects.get(k)?.body) === 'code-a /') as string;
    const stored = fake.objects.get(home) as { body: Uint8Array };

    stored.body = new TextEncoder().encode('code-a / at $1');
    const changed = await loadRelease(db, made.key, bucket).catch((e: unknown) => e);
    expect(changed).toBeInstanceOf(PublishError);
    expect((changed as Error).message).toBe(`A file of the stored release ${made.key} does not match its digest.`);

    fake.objects.delete(home);
    await expect(loadRelease(db, made.key, bucket)).rejects.toThrow(`A file of the stored release ${made.key} is missing.`);
  });

  it('prunes the files no kept release holds, over pages of the listing, once they are minutes old', async () => {
    fake.pageSize = 3;
    const old = await release('code-old');
    const kept = await release('code-kept');
    await storeRelease(db, old, 'server-1', bucket);
    await storeRelease(db, kept, 'server-1', bucket);
    await db.query(`update public.catalogue_releases set created_at = now() - interval '2 days' where key = $1`, [old.key]);
    await newer(19);
    await db.query(`update public.catalogue_releases set created_at = now() where key = $1`, [kept.key]);
    const onlyOld = objectsOf(old).filter((k) => !objectsOf(kept).includes(k));
    expect(onlyOld.length).toBeGreaterThan(0);

    // The old release goes; its files were written a moment ago, as a release being stored may have: they stay.
    expect(await pruneReleases(db, bucket)).toBe(1);
    expect(await loadRelease(db, old.key, bucket)).toBeNull();
    for (const key of onlyOld) expect(fake.objects.has(key)).toBe(true);

    // Minutes later they go; every file the kept release holds, pictures shared with the old one too, stays.
    fake.age(10 * MINUTE);
    fake.requests.length = 0;
    expect(await pruneReleases(db, bucket)).toBe(0);
    expect([...fake.objects.keys()].sort()).toEqual(objectsOf(kept).sort());
    expect((await loadRelease(db, kept.key, bucket))?.pictures.length).toBe(kept.pictures.length);
    const lists = fake.requests.filter((r) => r.query.get('list-type') === '2');
    expect(lists.length).toBeGreaterThan(2);
    expect(lists.slice(1).every((r) => r.query.has('continuation-token'))).toBe(true);
    // The prune's lease is given back.
    expect(await count('catalogue_release_leases')).toBe(0);
  });

  it('deletes no file while a release is being stored: its files may be ones a pruned release held', async () => {
    const old = await release('code-old');
    await storeRelease(db, old, 'server-1', bucket);
    await newer(20);
    fake.age(10 * MINUTE);
    // The new release's upload is held halfway: its manifest is not stored yet.
    const held = fake.gate((r) => r.method === 'PUT');
    const next = await release('code-next');
    const storing = storeRelease(db, next, 'server-2', bucket);
    await held.arrived;

    expect(await pruneReleases(db, bucket)).toBe(1);
    expect(fake.requests.filter((r) => r.method === 'POST')).toEqual([]);
    held.open();
    await storing;
    expect((await loadRelease(db, next.key, bucket))?.pictures.length).toBe(next.pictures.length);

    // Once it is stored, the next prune deletes what only the pruned release held.
    fake.age(10 * MINUTE);
    await pruneReleases(db, bucket);
    expect([...fake.objects.keys()].sort()).toEqual(objectsOf(next).sort());
  });

  it('a store waits while a prune deletes, so a picture it shares with the pruned release is not lost', async () => {
    const old = await release('code-old');
    await storeRelease(db, old, 'server-1', bucket);
    await newer(20);
    fake.age(10 * MINUTE);
    // The prune has listed the bucket (the old release's pictures among what it deletes) and is deleting.
    fake.requests.length = 0;
    const deleting = fake.gate((r) => r.method === 'POST');
    const pruning = pruneReleases(db, bucket);
    await deleting.arrived;

    const next = await release('code-next');
    const shared = objectsOf(next).filter((k) => objectsOf(old).includes(k));
    expect(shared.length).toBe(next.pictures.length);
    const storing = storeRelease(db, next, 'server-2', bucket);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(fake.requests.filter((r) => r.method === 'PUT')).toEqual([]);

    deleting.open();
    expect(await pruning).toBe(1);
    await storing;
    for (const key of shared) expect(fake.objects.has(key)).toBe(true);
    expect((await loadRelease(db, next.key, bucket))?.pictures.length).toBe(next.pictures.length);
  });

  it('a store that outlasts its write claim is refused: a prune may have run meanwhile', async () => {
    const held = fake.gate((r) => r.method === 'PUT');
    const made = await release('code-slow');
    const storing = storeRelease(db, made, 'server-1', bucket).catch((e: unknown) => e);
    await held.arrived;
    await db.query(`update public.catalogue_release_leases set expires_at = now() - interval '1 second'`);
    held.open();

    const refused = await storing;
    expect(refused).toBeInstanceOf(PublishError);
    expect((refused as Error).message).toBe('Storing the release took too long: publish again.');
    expect(await loadRelease(db, made.key, bucket)).toBeNull();
    expect(await count('catalogue_release_leases')).toBe(0);
  });

  it('a server’s publisher stores the release it makes in the bucket, and another server serves it from there', async () => {
    const made: string[] = [];
    const served: string[][] = [];
    const server = (): ReleaseSwitch => ({
      render: async (path) => ({ path, status: 200, headers: {}, body: new TextEncoder().encode(`s3 ${path}`) }),
      prepare: async (files) => () => void served.push(files.map((f) => f.path)),
    });
    const start = () =>
      startPublisher(db, {
        served: server(),
        checkEveryMs: 3_600_000,
        root: process.cwd(),
        code: 'code-s3',
        files: bucket,
        make: async (snapshot, options) => {
          const release = await makeRelease(snapshot, options);
          made.push(release.key);
          return release;
        },
      });
    const first = start();
    const second = start();
    try {
      await first.caughtUp;
      await second.caughtUp;
      expect(made).toHaveLength(1);
      expect(served).toHaveLength(2);
      expect(await count('catalogue_release_files')).toBe(0);
      expect(fake.objects.size).toBeGreaterThan(0);
      expect(fake.requests.filter((r) => r.method === 'GET').length).toBeGreaterThan(0);
    } finally {
      await Promise.all([first.stop(), second.stop()]);
      serveCatalogue(null);
    }
  });
});
