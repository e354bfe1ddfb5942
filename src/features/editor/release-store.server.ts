// Releases kept in the database (decision 019), so that one server makes each and every other serves it: the manifest
// (the product files, each picture's size and address, each page's address, headers and digest for every stretch of
// time), and every file once, named by the SHA-256 of its bytes and checked against it when read. A lease names the
// server making a release; the others wait for it, and take it over once its time is past (that server stopped).
//
// The files may live elsewhere (a bucket: decision 020); the manifest, its digest, the leases and the live pointer stay
// here, for their transactions and NOTIFY. A bucket's files are written before the manifest's transaction, so a store
// holds a write claim while it writes, and a prune deletes files only under a lease that no claim overlaps.
import { createHash, randomUUID } from 'node:crypto';
import type { Database, Sql } from '@/server/db/database.server';
import { asService, serviceStatement } from '@/server/db/roles.server';
import { type BucketFiles, FileDigestError, type ReleaseFiles } from '@/server/release-files/release-files.port';
import { tableFiles } from '@/server/release-files/table-files.server';
import type { PictureSize } from './catalogue-read.server';
import { PublishError } from './catalogue-snapshot.server';
import {
  type PictureSource,
  productPictures,
  type Release,
  type ReleaseFile,
  type ReleasePhase,
  readRelease,
} from './release.server';

interface StoredFile {
  path: string;
  headers: Record<string, string>;
  hash: string;
}

interface Manifest {
  v: 1;
  files: Record<string, string>;
  pictures: Record<string, { size: PictureSize; path: string; type: string; hash: string }>;
  phases: { from: number | null; pages: StoredFile[] }[];
  ms: number;
}

const sha256 = (data: string | Uint8Array) => createHash('sha256').update(data).digest('hex');

/** Keeps every release and its files from being pruned while one is written (and the other way round). */
const STORE_LOCK = 2801141;

/** How long a store may take to write a bucket's files: no prune deletes a file written since (LastModified). */
const WRITE_CLAIM_MS = 5 * 60_000;
/** How long a prune may delete a bucket's files for; stores wait for it. */
const PRUNE_LEASE_MS = 2 * 60_000;
/** A prune deletes no more once its lease has less than this left (a deletion is given up after 30 s). */
const PRUNE_MARGIN_MS = 45_000;
/** The lease a prune of a bucket's files holds, and the keys of stores' write claims, among the releases' leases. */
const PRUNE_LEASE = 'prune:files';
const WRITE_CLAIM = 'files:';

/** Writes `release` (made by `server`): its files first, then its manifest, in one transaction (with the files, when they are rows). */
export async function storeRelease(
  db: Database,
  release: Release,
  server: string,
  store: ReleaseFiles = tableFiles,
): Promise<void> {
  const files = new Map<string, Uint8Array>();
  const stored = (file: ReleaseFile): StoredFile => {
    const hash = sha256(file.body);
    files.set(hash, file.body);
    return { path: file.path, headers: file.headers, hash };
  };
  const pictureBytes = new Map(release.pictures.map((p) => [p.path, p.body]));
  const pictures: Manifest['pictures'] = {};
  for (const [name, picture] of release.source.pictures) {
    const bytes = pictureBytes.get(picture.path);
    if (!bytes) continue;
    const hash = sha256(bytes);
    files.set(hash, bytes);
    pictures[name] = { ...picture, hash };
  }
  const manifest: Manifest = {
    v: 1,
    files: Object.fromEntries(release.source.files),
    pictures,
    phases: release.phases.map((phase) => ({ from: phase.from, pages: phase.pages.map(stored) })),
    ms: release.ms,
  };
  const text = JSON.stringify(manifest);
  const insertManifest = (tx: Sql) =>
    tx.query(
      `insert into public.catalogue_releases (key, manifest, digest, made_by, made_ms) values ($1, $2, $3, $4, $5)
       on conflict (key) do nothing`,
      [release.key, text, sha256(text), server, release.ms],
    );
  if (store.kind === 'table') {
    await asService(db, async (tx) => {
      await tx.query('select pg_advisory_xact_lock($1)', [STORE_LOCK]);
      await store.put(tx, files);
      await insertManifest(tx);
    });
    return;
  }
  const claim = await claimWrite(db, server);
  try {
    await store.put(files);
    await asService(db, async (tx) => {
      await tx.query('select pg_advisory_xact_lock($1)', [STORE_LOCK]);
      // Past its time, a prune may have run meanwhile and deleted a file this release holds.
      const [held] = await tx.query<{ live: boolean }>(
        'delete from public.catalogue_release_leases where key = $1 returning expires_at > clock_timestamp() as live',
        [claim],
      );
      if (!held?.live) throw new PublishError('Storing the release took too long: publish again.');
      await insertManifest(tx);
    });
  } catch (error) {
    // Prunes need not wait for the claim to run out.
    await serviceStatement(db, 'delete from public.catalogue_release_leases where key = $1', [claim]).catch(() => {});
    throw error;
  }
}

/**
 * A claim to write a bucket's files for a release, taken when no prune is deleting (else it waits for the prune):
 * while it lasts, no prune deletes any file. Times are the database's clock at the moment (clock_timestamp, not the
 * transaction's start), and both sides decide under STORE_LOCK, so a store and a prune never both go ahead.
 */
async function claimWrite(db: Database, server: string): Promise<string> {
  const claim = `${WRITE_CLAIM}${randomUUID()}`;
  const giveUp = Date.now() + PRUNE_LEASE_MS + 10_000;
  for (;;) {
    const taken = await asService(db, async (tx) => {
      await tx.query('select pg_advisory_xact_lock($1)', [STORE_LOCK]);
      const [pruning] = await tx.query(
        'select 1 from public.catalogue_release_leases where key = $1 and expires_at > clock_timestamp()',
        [PRUNE_LEASE],
      );
      if (pruning) return false;
      await tx.query(
        `insert into public.catalogue_release_leases (key, holder, expires_at)
         values ($1, $2, clock_timestamp() + $3 * interval '1 millisecond')`,
        [claim, server, WRITE_CLAIM_MS],
      );
      return true;
    });
    if (taken) return claim;
    if (Date.now() > giveUp)
      throw new PublishError('The release files are being pruned and the pruning did not end: publish again.');
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/**
 * The release `key` as stored, its files checked against their digests; null when none is stored. A manifest or file
 * that does not match its digest is refused (PublishError): it is not served.
 */
export async function loadRelease(db: Database, key: string, store: ReleaseFiles = tableFiles): Promise<Release | null> {
  const [row] = await serviceStatement<{ manifest: string; digest: string }>(
    db,
    'select manifest, digest from public.catalogue_releases where key = $1',
    [key],
  );
  if (!row) return null;
  if (sha256(row.manifest) !== row.digest) throw new PublishError(`The stored release ${key} does not match its digest.`);
  const manifest = JSON.parse(row.manifest) as Manifest;
  const hashes = new Set([
    ...Object.values(manifest.pictures).map((p) => p.hash),
    ...manifest.phases.flatMap((phase) => phase.pages.map((p) => p.hash)),
  ]);
  const bytes = await (store.kind === 'table' ? store.get(db, [...hashes]) : store.get([...hashes])).catch((error: unknown) => {
    if (error instanceof FileDigestError)
      throw new PublishError(`A file of the stored release ${key} does not match its digest.`, { cause: error });
    throw error;
  });
  const body = (hash: string) => {
    const found = bytes.get(hash);
    if (!found) throw new PublishError(`A file of the stored release ${key} is missing.`);
    return found;
  };
  const sources = new Map<string, PictureSource>(
    Object.entries(manifest.pictures).map(([name, { size, path, type }]) => [name, { size, path, type }]),
  );
  const files = new Map(Object.entries(manifest.files));
  const phases: ReleasePhase[] = manifest.phases.map((phase) => ({
    from: phase.from,
    pages: phase.pages.map((p) => ({ path: p.path, status: 200, headers: p.headers, body: body(p.hash) })),
  }));
  const pictures = Object.values(manifest.pictures).map((p) => ({
    path: p.path,
    status: 200,
    headers: { 'content-type': p.type },
    body: body(p.hash),
  }));
  // Only the pictures the products show, as makeRelease keeps them.
  const catalogue = readRelease(key, files, sources);
  const shown = new Set(catalogue.products.flatMap(productPictures));
  return {
    key,
    catalogue,
    source: { files, pictures: sources },
    phases,
    pictures: pictures.filter((p) => shown.has(p.path)),
    ms: manifest.ms,
  };
}

/** Takes the lease on making release `key` for `ms`: true when this server holds it now (it was free, or past its time). */
export async function takeLease(db: Database, key: string, holder: string, ms: number): Promise<boolean> {
  const rows = await serviceStatement<{ holder: string }>(
    db,
    `insert into public.catalogue_release_leases (key, holder, expires_at)
     values ($1, $2, now() + $3 * interval '1 millisecond')
     on conflict (key) do update set holder = excluded.holder, expires_at = excluded.expires_at
       where public.catalogue_release_leases.expires_at < now() or public.catalogue_release_leases.holder = excluded.holder
     returning holder`,
    [key, holder, ms],
  );
  return rows.length === 1;
}

/** Gives the lease on `key` back (only when `holder` holds it). */
export async function dropLease(db: Database, key: string, holder: string): Promise<void> {
  await serviceStatement(db, 'delete from public.catalogue_release_leases where key = $1 and holder = $2', [key, holder]);
}

/** How many releases are kept besides those live publishes need (decision 019). */
export const RELEASES_KEPT = 20;

/** Deletes the releases not kept (see pruneReleases), in `tx`; returns how many went. */
async function pruneManifests(tx: Sql): Promise<number> {
  const gone = await tx.query<{ key: string }>(
    `delete from public.catalogue_releases where key not in (
       (select key from public.catalogue_releases order by created_at desc limit $1)
       union
       (select digest from public.catalogue_publishes where status = 'live' and digest is not null order by id desc limit $1))
     returning key`,
    [RELEASES_KEPT],
  );
  return gone.length;
}

/** Every file the releases stored now hold. */
async function keptFiles(tx: Sql): Promise<Set<string>> {
  const kept = await tx.query<{ manifest: string }>('select manifest from public.catalogue_releases');
  const hashes = new Set<string>();
  for (const { manifest } of kept) {
    const m = JSON.parse(manifest) as Manifest;
    for (const p of Object.values(m.pictures)) hashes.add(p.hash);
    for (const phase of m.phases) for (const page of phase.pages) hashes.add(page.hash);
  }
  return hashes;
}

/**
 * Prunes releases: kept are the RELEASES_KEPT newest, and the release of every publish a server may be asked to serve
 * again (the last RELEASES_KEPT live ones); the rest go, with every file no kept release holds. Returns how many went.
 * A bucket's files are pruned after the manifests' transaction, under a lease: not while a store holds a write claim
 * (they go next time), and none written in the last WRITE_CLAIM_MS.
 */
export async function pruneReleases(db: Database, store: ReleaseFiles = tableFiles): Promise<number> {
  if (store.kind === 'table') {
    return asService(db, async (tx: Sql) => {
      await tx.query('select pg_advisory_xact_lock($1)', [STORE_LOCK]);
      const gone = await pruneManifests(tx);
      if (gone === 0) return 0;
      await store.prune(tx, await keptFiles(tx));
      await tx.query('delete from public.catalogue_release_leases where expires_at < now()');
      return gone;
    });
  }
  const holder = randomUUID();
  const plan = await asService(db, async (tx: Sql) => {
    await tx.query('select pg_advisory_xact_lock($1)', [STORE_LOCK]);
    const gone = await pruneManifests(tx);
    await tx.query('delete from public.catalogue_release_leases where expires_at < clock_timestamp()');
    const [busy] = await tx.query(
      `select 1 from public.catalogue_release_leases
        where (key = $1 or starts_with(key, $2)) and expires_at > clock_timestamp()`,
      [PRUNE_LEASE, WRITE_CLAIM],
    );
    if (busy) return { gone, keep: null };
    await tx.query(
      `insert into public.catalogue_release_leases (key, holder, expires_at)
       values ($1, $2, clock_timestamp() + $3 * interval '1 millisecond')`,
      [PRUNE_LEASE, holder, PRUNE_LEASE_MS],
    );
    return { gone, keep: await keptFiles(tx) };
  });
  if (plan.keep) await pruneBucket(db, store, plan.keep, holder);
  return plan.gone;
}

/** Deletes the bucket's files `keep` does not name, while the prune lease `holder` holds has time left; then drops it. */
async function pruneBucket(db: Database, store: BucketFiles, keep: Set<string>, holder: string): Promise<void> {
  try {
    await store.prune(keep, {
      writtenBefore: new Date(Date.now() - WRITE_CLAIM_MS),
      mayDelete: async () => {
        const [lease] = await serviceStatement<{ ok: boolean }>(
          db,
          `select expires_at > clock_timestamp() + $3 * interval '1 millisecond' as ok
             from public.catalogue_release_leases where key = $1 and holder = $2`,
          [PRUNE_LEASE, holder, PRUNE_MARGIN_MS],
        );
        return lease?.ok === true;
      },
    });
  } finally {
    await serviceStatement(db, 'delete from public.catalogue_release_leases where key = $1 and holder = $2', [
      PRUNE_LEASE,
      holder,
    ]);
  }
}
