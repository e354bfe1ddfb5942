// The S3 adapter of the release-files port against a local server that speaks S3's wire format (tests/mocks/s3.ts),
// path-style: bytes stored as `<prefix>files/<sha256>` come back as they went; an object changed in the bucket is
// refused; an absent one is reported absent; pruning follows the listing over pages, deletes in batches of at most
// 1000 only what no kept release holds and was written before the moment given, and stops when told; every request is
// signed with SigV4.
import { createServer } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '@/server/config.server';
import { FileDigestError, fileName } from '@/server/release-files/release-files.port';
import { createReleaseFiles } from '@/server/release-files/release-files.server';
import { createS3Files } from '@/server/release-files/s3-files.server';
import { type FakeS3, startFakeS3 } from '../mocks/s3';

let fake: FakeS3;
beforeAll(async () => {
  fake = await startFakeS3();
});
afterAll(() => fake?.stop());
beforeEach(() => {
  fake.objects.clear();
  fake.requests.length = 0;
  fake.pageSize = 1000;
});

const PREFIX = 'shop/releases/';
const files = (endpoint = fake.endpoint, credentials = fake.credentials) =>
  createS3Files({ bucket: fake.bucket, prefix: PREFIX, region: 'us-east-1', endpoint, credentials });
const named = (...texts: string[]) =>
  new Map(texts.map((t) => [fileName(new TextEncoder().encode(t)), new TextEncoder().encode(t)] as const));
const key = (hash: string) => `${PREFIX}files/${hash}`;
const text = (bytes: Uint8Array | undefined) => new TextDecoder().decode(bytes);
const MINUTE = 60_000;

/** Puts `texts` in the bucket directly, written `ageMs` ago; returns their names. */
function seed(ageMs: number, ...texts: string[]): string[] {
  const written = named(...texts);
  for (const [hash, body] of written) fake.objects.set(key(hash), { body, lastModified: new Date(Date.now() - ageMs) });
  return [...written.keys()];
}

describe('S3 release files against a local S3-compatible server', () => {
  it('stores each file as <prefix>files/<sha256>, path-style, and reads the same bytes back', async () => {
    const store = files();
    const written = named('<html>home</html>', '<html>product 3: $45</html>', '\u0000\u00ff binary');
    await store.put(written);

    expect([...fake.objects.keys()].sort()).toEqual([...written.keys()].map(key).sort());
    const puts = fake.requests.filter((r) => r.method === 'PUT');
    expect(puts.map((r) => r.path).sort()).toEqual([...written.keys()].map((h) => `/${fake.bucket}/${key(h)}`).sort());
    const back = await store.get([...written.keys()]);
    expect(new Map([...back].map(([h, b]) => [h, text(b)]))).toEqual(new Map([...written].map(([h, b]) => [h, text(b)])));
  });

  it('signs every request with SigV4 for its access key', async () => {
    const store = files();
    const [hash] = seed(10 * MINUTE, 'signed');
    await store.put(named('another'));
    await store.get([hash as string]);
    await store.prune(new Set(), { writtenBefore: new Date(), mayDelete: async () => true });

    expect(new Set(fake.requests.map((r) => r.method))).toEqual(new Set(['PUT', 'GET', 'POST']));
    for (const request of fake.requests) {
      expect(request.headers.authorization).toMatch(
        new RegExp(
          `^AWS4-HMAC-SHA256 Credential=${fake.credentials.accessKeyId}/\\d{8}/us-east-1/s3/aws4_request, SignedHeaders=[a-z0-9;-]+, Signature=[0-9a-f]{64}$`,
        ),
      );
      expect(request.headers['x-amz-date']).toMatch(/^\d{8}T\d{6}Z$/);
      expect(request.headers['x-amz-content-sha256']).toBeTruthy();
    }
  });

  it('refuses an object whose bytes were changed in the bucket', async () => {
    const store = files();
    const written = named('<html>product 3: $45</html>');
    await store.put(written);
    const [hash] = [...written.keys()] as [string];
    (fake.objects.get(key(hash)) as { body: Uint8Array }).body = new TextEncoder().encode('<html>product 3: $1</html>');

    const refused = await store.get([hash]).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(FileDigestError);
    expect((refused as FileDigestError).hash).toBe(hash);
  });

  it('reports an absent object as absent, and reads the others', async () => {
    const store = files();
    const [there] = seed(0, 'there');
    const missing = fileName('never stored');

    const back = await store.get([there as string, missing]);
    expect([...back.keys()]).toEqual([there]);
    expect(fake.requests.filter((r) => r.method === 'GET')).toHaveLength(2);
  });

  it('prunes what no kept release holds, over every page of the listing, and keeps the rest', async () => {
    fake.pageSize = 2;
    const kept = seed(30 * MINUTE, 'kept 1', 'kept 2', 'kept 3');
    const old = seed(30 * MINUTE, 'old 1', 'old 2', 'old 3', 'old 4');
    // Written a moment ago: maybe a release's whose manifest is not stored yet.
    const young = seed(MINUTE, 'young');
    // Not a file of a release: another name under the prefix, and a key outside it.
    fake.objects.set(`${PREFIX}files/notes.txt`, { body: new Uint8Array([1]), lastModified: new Date(0) });
    fake.objects.set('elsewhere/files/x', { body: new Uint8Array([1]), lastModified: new Date(0) });

    const deleted = await files().prune(new Set(kept), {
      writtenBefore: new Date(Date.now() - 10 * MINUTE),
      mayDelete: async () => true,
    });

    expect(deleted).toBe(4);
    expect([...fake.objects.keys()].sort()).toEqual(
      [...[...kept, ...young].map(key), `${PREFIX}files/notes.txt`, 'elsewhere/files/x'].sort(),
    );
    for (const hash of old) expect(fake.objects.has(key(hash))).toBe(false);
    const lists = fake.requests.filter((r) => r.query.get('list-type') === '2');
    // Nine objects under the prefix, two a page: five pages, each after the first asked for by its token.
    expect(lists).toHaveLength(5);
    expect(lists.every((r) => r.query.get('prefix') === `${PREFIX}files/`)).toBe(true);
    expect(lists.slice(1).every((r) => r.query.has('continuation-token'))).toBe(true);
  });

  it('deletes in batches of at most 1000 keys', async () => {
    const many = seed(30 * MINUTE, ...Array.from({ length: 2300 }, (_, i) => `page ${i}`));
    const kept = many.slice(0, 100);

    const deleted = await files().prune(new Set(kept), { writtenBefore: new Date(), mayDelete: async () => true });

    expect(deleted).toBe(2200);
    expect(fake.objects.size).toBe(100);
    const batches = fake.requests.filter((r) => r.method === 'POST').map((r) => r.deleteKeys);
    expect(batches).toEqual([1000, 1000, 200]);
  });

  it('stops deleting when told (its lease is nearly over): what is left goes next time', async () => {
    seed(30 * MINUTE, ...Array.from({ length: 1500 }, (_, i) => `page ${i}`));
    let asked = 0;
    const deleted = await files().prune(new Set(), { writtenBefore: new Date(), mayDelete: async () => ++asked === 1 });
    expect(deleted).toBe(1000);
    expect(fake.objects.size).toBe(500);
  });

  it('is what RELEASE_STORE=s3 chooses, with the bucket, prefix, endpoint and keys of the configuration', async () => {
    const config = loadConfig({
      RELEASE_STORE: 's3',
      S3_BUCKET: fake.bucket,
      S3_PREFIX: PREFIX,
      S3_ENDPOINT: fake.endpoint,
      S3_ACCESS_KEY_ID: fake.credentials.accessKeyId,
      S3_SECRET_ACCESS_KEY: fake.credentials.secretAccessKey,
    });
    const store = await createReleaseFiles(config.releaseFiles);
    expect(store.kind).toBe('bucket');
    expect(store.name).toBe(`S3 bucket ${fake.bucket} at ${fake.endpoint}`);
    if (store.kind !== 'bucket') return;
    const written = named('configured');
    await store.put(written);
    expect([...fake.objects.keys()]).toEqual([...written.keys()].map(key));
    expect((await createReleaseFiles(loadConfig({}).releaseFiles)).name).toBe('database');
  });

  it('fails in words naming the store when the keys are refused, or when nothing answers', async () => {
    const wrong = files(fake.endpoint, { accessKeyId: 'AKIAWRONG', secretAccessKey: 'x' });
    await expect(wrong.put(named('x'))).rejects.toThrow(
      new RegExp(`^Release files not written to ${fake.endpoint}, bucket ${fake.bucket}: AccessDenied`),
    );
    const port = await closedPort();
    const started = Date.now();
    await expect(files(`http://127.0.0.1:${port}`).get([fileName('x')])).rejects.toThrow(
      new RegExp(`^Release files not read from http://127.0.0.1:${port}, bucket ${fake.bucket}: .*ECONNREFUSED`),
    );
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});

/** A port nothing listens on: taken from the OS, then released. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (typeof address !== 'object' || address === null) throw new Error('no port');
  return address.port;
}
