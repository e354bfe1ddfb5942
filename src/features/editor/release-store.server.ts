// Releases kept in the database (decision 019), so that one server makes each and every other serves it: the manifest
// (the product files, each picture's size and address, each page's address, headers and digest for every stretch of
// time), and every file once, named by the SHA-256 of its bytes and checked against it when read. A lease names the
// server making a release; the others wait for it, and take it over once its time is past (that server stopped).
import { createHash } from 'node:crypto';
import type { Database, Sql } from '@/server/db/database.server';
import { asService, serviceStatement } from '@/server/db/roles.server';
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

/** Writes `release` (made by `server`): its files first, then its manifest, in one transaction. */
export async function storeRelease(db: Database, release: Release, server: string): Promise<void> {
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
  await asService(db, async (tx) => {
    await tx.query('select pg_advisory_xact_lock($1)', [STORE_LOCK]);
    for (const [hash, bytes] of files)
      await tx.query('insert into public.catalogue_release_files (hash, bytes) values ($1, $2) on conflict do nothing', [
        hash,
        bytes,
      ]);
    await tx.query(
      `insert into public.catalogue_releases (key, manifest, digest, made_by, made_ms) values ($1, $2, $3, $4, $5)
       on conflict (key) do nothing`,
      [release.key, text, sha256(text), server, release.ms],
    );
  });
}

/**
 * The release `key` as stored, its files checked against their digests; null when none is stored. A manifest or file
 * that does not match its digest is refused (PublishError): it is not served.
 */
export async function loadRelease(db: Database, key: string): Promise<Release | null> {
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
  const rows = await serviceStatement<{ hash: string; bytes: Uint8Array }>(
    db,
    'select hash, bytes from public.catalogue_release_files where hash = any($1::text[])',
    [[...hashes]],
  );
  const bytes = new Map<string, Uint8Array>();
  for (const file of rows) {
    const body = new Uint8Array(file.bytes);
    if (sha256(body) !== file.hash) throw new PublishError(`A file of the stored release ${key} does not match its digest.`);
    bytes.set(file.hash, body);
  }
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

/**
 * Prunes releases: kept are the RELEASES_KEPT newest, and the release of every publish a server may be asked to serve
 * again (the last RELEASES_KEPT live ones); the rest go, with every file no kept release holds. Returns how many went.
 */
export async function pruneReleases(db: Database): Promise<number> {
  return asService(db, async (tx: Sql) => {
    await tx.query('select pg_advisory_xact_lock($1)', [STORE_LOCK]);
    const gone = await tx.query<{ key: string }>(
      `delete from public.catalogue_releases where key not in (
         (select key from public.catalogue_releases order by created_at desc limit $1)
         union
         (select digest from public.catalogue_publishes where status = 'live' and digest is not null order by id desc limit $1))
       returning key`,
      [RELEASES_KEPT],
    );
    if (gone.length === 0) return 0;
    const kept = await tx.query<{ manifest: string }>('select manifest from public.catalogue_releases');
    const hashes = new Set<string>();
    for (const { manifest } of kept) {
      const m = JSON.parse(manifest) as Manifest;
      for (const p of Object.values(m.pictures)) hashes.add(p.hash);
      for (const phase of m.phases) for (const page of phase.pages) hashes.add(page.hash);
    }
    await tx.query('delete from public.catalogue_release_files where not (hash = any($1::text[]))', [[...hashes]]);
    await tx.query('delete from public.catalogue_release_leases where expires_at < now()');
    return gone.length;
  });
}
