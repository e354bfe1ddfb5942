/**
 * The embedded database's backup files: how one is written (atomically, with a manifest and a checksum), how one is
 * read back (refused, with the reason, when it is not whole), and the work on a stopped shop's directory that
 * `npm run backup` and `npm run restore` do. A running shop writes its backups through backup.server.ts, with the same
 * format.
 *
 * A file is a header line, a manifest line (JSON), then the gzipped tar of the data directory:
 *
 *     AURELIA-BACKUP 1
 *     {"format":1,"engine":"pglite","createdAt":"…","migration":"20261129…","bytes":123,"sha256":"…","shop":"…","seal":"…"}
 *     <bytes of gzip>
 *
 * `shop` names the shop that made it and `seal` is an HMAC of the manifest with that shop's key (shop-key.ts): restore
 * takes only this shop's backups, unless the operator says the file comes from another shop on purpose.
 *
 * Loaded by Node itself from the scripts (type stripping): erasable TypeScript only, relative imports with their `.ts`.
 */
import { createHash } from 'node:crypto';
import {
  chmodSync,
  closeSync,
  existsSync,
  fchmodSync,
  fsyncSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { basename, join } from 'node:path';
import { promisify } from 'node:util';
import { gunzip, gzip } from 'node:zlib';
import { PGlite } from '@electric-sql/pglite';
import { lockDataDir, lockHolder } from './data-dir-lock.ts';
import { type Closed, keepPrivate, makePrivateDir } from './private-dir.ts';
import { readShopKey, type ShopKey, sealMatches, sealOf, shopKey, shopKeyPath } from './shop-key.ts';

const MAGIC = 'AURELIA-BACKUP';
export const BACKUP_FORMAT = 1;

/** What a backup file says about itself. */
export interface Manifest {
  format: number;
  engine: 'pglite';
  /** When the copy was taken (ISO 8601): what was committed before this is in it. */
  createdAt: string;
  /** The newest migration applied to the copied database (its timestamp), or null before any. */
  migration: string | null;
  /** The length and SHA-256 (hex) of the gzipped tar that follows the manifest. */
  bytes: number;
  sha256: string;
  /** The id of the shop that made it (shop-key.ts); absent in a backup made before backups were bound to their shop. */
  shop?: string;
  /** HMAC-SHA256 of the fields above with that shop's key (sealOf). */
  seal?: string;
}

/** A backup file that cannot be restored, and why, in words for the shop owner. */
export class BackupRefused extends Error {
  override name = 'BackupRefused';
}

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/** The backup file's bytes for the uncompressed tar `tar` of a database at `migration`, sealed with `key` when given. */
export async function encodeBackup(
  tar: Uint8Array,
  migration: string | null,
  createdAt = new Date(),
  key?: ShopKey,
): Promise<Buffer> {
  const payload = await promisify(gzip)(tar);
  const manifest: Manifest = {
    format: BACKUP_FORMAT,
    engine: 'pglite',
    createdAt: createdAt.toISOString(),
    migration,
    bytes: payload.length,
    sha256: sha256(payload),
  };
  if (key) {
    manifest.shop = key.id;
    manifest.seal = sealOf(manifest, key);
  }
  return Buffer.concat([Buffer.from(`${MAGIC} ${BACKUP_FORMAT}\n${JSON.stringify(manifest)}\n`), payload]);
}

/** Reads a backup file's bytes: its manifest and the tar, or BackupRefused saying what is wrong with it. */
export async function decodeBackup(file: Uint8Array): Promise<{ manifest: Manifest; tar: Uint8Array }> {
  const bytes = Buffer.from(file.buffer, file.byteOffset, file.byteLength);
  if (!bytes.subarray(0, MAGIC.length + 1).equals(Buffer.from(`${MAGIC} `))) {
    throw new BackupRefused('This is not a backup made by this shop (npm run backup): it does not start as one does.');
  }
  const firstEnd = bytes.indexOf(10);
  const secondEnd = firstEnd < 0 ? -1 : bytes.indexOf(10, firstEnd + 1);
  if (secondEnd < 0 || secondEnd > 64 * 1024) throw new BackupRefused('The backup is cut short: its manifest is incomplete.');
  const format = Number(bytes.subarray(MAGIC.length + 1, firstEnd).toString('latin1'));
  if (!Number.isInteger(format) || format < 1) throw new BackupRefused('The backup is damaged: its header is unreadable.');
  if (format > BACKUP_FORMAT) {
    throw new BackupRefused(`The backup is in format ${format}, made by a newer version of the shop: upgrade the shop first.`);
  }
  let manifest: Manifest;
  try {
    manifest = JSON.parse(bytes.subarray(firstEnd + 1, secondEnd).toString('utf8')) as Manifest;
  } catch {
    throw new BackupRefused('The backup is damaged: its manifest is unreadable.');
  }
  if (manifest.engine !== 'pglite' || !Number.isInteger(manifest.bytes) || typeof manifest.sha256 !== 'string') {
    throw new BackupRefused('The backup is damaged: its manifest is not one this shop writes.');
  }
  const payload = bytes.subarray(secondEnd + 1);
  if (payload.length < manifest.bytes) {
    throw new BackupRefused(`The backup is cut short: ${payload.length} of its ${manifest.bytes} bytes are there.`);
  }
  if (payload.length > manifest.bytes || sha256(payload) !== manifest.sha256) {
    throw new BackupRefused('The backup is damaged: its contents do not match its checksum.');
  }
  try {
    return { manifest, tar: new Uint8Array(await promisify(gunzip)(payload)) };
  } catch {
    throw new BackupRefused('The backup is damaged: its contents do not unpack.');
  }
}

/** Writes `bytes` to `path` so that `path` is either absent, as before, or whole: a temporary file, synced, renamed. */
export function writeFileAtomically(path: string, bytes: Uint8Array): void {
  const temporary = `${path}.partial-${process.pid}`;
  const fd = openSync(temporary, 'w', 0o600);
  try {
    // The shop's alone, even over a temporary file left behind with another mode.
    fchmodSync(fd, 0o600);
    let at = 0;
    while (at < bytes.length) at += writeSync(fd, bytes, at);
    fsyncSync(fd);
  } catch (error) {
    closeSync(fd);
    rmSync(temporary, { force: true });
    throw error;
  }
  closeSync(fd);
  renameSync(temporary, path);
}

/** Scheduled backups are pruned; a backup taken by hand (npm run backup) is the owner's to delete. */
export type BackupKind = 'manual' | 'scheduled';

/** A backup's file name: its kind and the time, so names sort as the backups were taken. */
export function backupName(kind: BackupKind, at: Date): string {
  return `aurelia-${kind}-${at.toISOString().replace(/[:.]/g, '-')}.backup`;
}

const SCHEDULED = /^aurelia-scheduled-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z\.backup$/;

/** Deletes the scheduled backups in `dir` beyond the newest `keep`; returns the names deleted. */
export function pruneBackups(dir: string, keep: number): string[] {
  const scheduled = readdirSync(dir)
    .filter((name) => SCHEDULED.test(name))
    .sort()
    .reverse();
  const old = scheduled.slice(keep);
  for (const name of old) unlinkSync(join(dir, name));
  return old;
}

/**
 * The backup directory, created as the shop's alone when it is not there, and closed to others when it is (a backup
 * is the whole database: its files are 0600 anyway). One the shop does not own (a mount point, say) is left as it is.
 */
function privateBackupDir(dir: string): void {
  makePrivateDir(dir);
  const st = statSync(dir);
  if (st.mode & 0o077 && st.uid === process.getuid?.()) chmodSync(dir, 0o700);
}

/** Writes a backup of the tar `tar`, sealed with the shop's `key`, into `dir` (created if need be); returns its path. */
export async function writeBackup(
  dir: string,
  tar: Uint8Array,
  { migration, kind, key, at = new Date() }: { migration: string | null; kind: BackupKind; key: ShopKey; at?: Date },
): Promise<string> {
  privateBackupDir(dir);
  const path = join(dir, backupName(kind, at));
  writeFileAtomically(path, await encodeBackup(tar, migration, at, key));
  return path;
}

const NEWEST_MIGRATION = 'select max(version) as version from supabase_migrations.schema_migrations';

/** The newest migration applied in `pg`, or null before any. */
async function newestMigration(pg: PGlite): Promise<string | null> {
  const { rows: tables } = await pg.query<{ found: boolean }>(
    `select to_regclass('supabase_migrations.schema_migrations') is not null as found`,
  );
  if (!tables[0]?.found) return null;
  const { rows } = await pg.query<{ version: string | null }>(NEWEST_MIGRATION);
  return rows[0]?.version ?? null;
}

/** Told when a data directory others could read or write was made the shop's alone (see private-dir.ts). */
export type OnClosed = (dir: string, closed: Closed) => void;

/**
 * A backup of a stopped shop's database in `dataDir`, written into `backupDir`: the directory is locked meanwhile, so
 * the shop cannot start on it halfway. Like a start, it makes the directory the shop's alone, before and after
 * (`onClosed` is told when it was open to others). Returns the file's path.
 */
export async function backupStoppedShop(
  dataDir: string,
  backupDir: string,
  { onClosed = () => {} }: { onClosed?: OnClosed } = {},
): Promise<string> {
  if (!existsSync(join(dataDir, 'PG_VERSION'))) throw new Error(`There is no embedded database in ${dataDir}.`);
  const release = lockDataDir(dataDir);
  try {
    const closed = keepPrivate(dataDir);
    if (closed.opened > 0) onClosed(dataDir, closed);
    const pg = await PGlite.create(dataDir);
    try {
      const migration = await newestMigration(pg);
      await pg.exec('checkpoint');
      const tar = new Uint8Array(await (await pg.dumpDataDir('none')).arrayBuffer());
      return await writeBackup(backupDir, tar, { migration, kind: 'manual', key: shopKey(dataDir) });
    } finally {
      await pg.close();
      keepPrivate(dataDir);
    }
  } finally {
    release();
  }
}

/**
 * Refuses a backup that is not this shop's (the shop whose data directory is `dataDir`): one that names another shop,
 * one whose seal this shop's key did not make (changed since, its checksum recomputed or its shop renamed), one with
 * no seal, and any when this shop has no key yet (it has never started here). With `fromAnotherShop` (the operator
 * moving a shop here on purpose) only a file that names this shop must carry its seal.
 */
function checkOrigin(manifest: Manifest, dataDir: string, fromAnotherShop: boolean): void {
  const key = readShopKey(dataDir);
  const onPurpose = 'To move a shop here on purpose, run npm run restore -- --from-another-shop <file>.';
  if (key && manifest.shop === key.id) {
    if (!sealMatches(manifest, manifest.seal ?? '', key)) {
      throw new BackupRefused(
        `This backup names this shop (shop ${key.id}) but its seal does not match this shop's key: it was changed after it was made, so it is not restored.`,
      );
    }
    return;
  }
  if (fromAnotherShop) return;
  if (!manifest.shop || !manifest.seal) {
    throw new BackupRefused(
      `This backup is not sealed by the shop that made it (it was made before backups were bound to their shop, or its seal was removed), so it cannot be told from another shop's. ${onPurpose}`,
    );
  }
  if (!key) {
    throw new BackupRefused(
      `This is a backup of shop ${manifest.shop}, and this shop has no key yet (${shopKeyPath(dataDir)}: it has never started here), so it is another shop's. ${onPurpose}`,
    );
  }
  throw new BackupRefused(
    `This is a backup of another shop (shop ${manifest.shop}), not of this one (shop ${key.id}): restoring it would put that shop's database, its accounts and admins, in place of this one's. ${onPurpose}`,
  );
}

/**
 * Restores the backup in `file` as the stopped shop's database in `dataDir`: `knownMigrations` are the migrations this
 * version of the shop has (a backup from a newer one is refused). Only this shop's backups are restored (checkOrigin),
 * unless `fromAnotherShop`: the restored database then becomes this shop's, whose key stays as it was. The backup is checked whole, unpacked and opened
 * beside the directory first; only then is the current directory moved aside (kept, its path returned) and the
 * restored one put in its place. Anything wrong before that changes nothing. Both are the shop's alone (PGlite unpacks
 * a backup's files 0666): the restored directory, and the one kept aside (`onClosed` is told when it was open).
 */
export async function restoreBackup(
  file: string,
  dataDir: string,
  {
    knownMigrations,
    fromAnotherShop = false,
    onClosed = () => {},
  }: { knownMigrations: readonly string[]; fromAnotherShop?: boolean; onClosed?: OnClosed },
): Promise<{ manifest: Manifest; keptAside: string | null }> {
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch (error) {
    throw new BackupRefused(`Cannot read ${file}: ${(error as Error).message}`);
  }
  const { manifest, tar } = await decodeBackup(bytes);
  checkOrigin(manifest, dataDir, fromAnotherShop);
  const newestKnown = [...knownMigrations].sort().at(-1) ?? '';
  if (manifest.migration && manifest.migration > newestKnown) {
    throw new BackupRefused(
      `The backup's database has migration ${manifest.migration}, which this version of the shop does not know: restore it with the version that made it.`,
    );
  }
  const holder = lockHolder(dataDir);
  if (holder) throw new BackupRefused(`The shop is running on ${dataDir} (process ${holder}): stop it before restoring.`);
  const release = lockDataDir(dataDir);
  const staging = `${dataDir}.restoring-${process.pid}`;
  try {
    rmSync(staging, { recursive: true, force: true });
    makePrivateDir(staging);
    try {
      const pg = await PGlite.create(staging, { loadDataDir: new Blob([tar as Uint8Array<ArrayBuffer>]) });
      try {
        const migration = await newestMigration(pg);
        if (migration !== manifest.migration) throw new Error(`it holds migration ${migration}, not ${manifest.migration}`);
      } finally {
        await pg.close();
      }
    } catch (error) {
      throw new BackupRefused(`The backup's database does not open: ${(error as Error).message}`);
    }
    keepPrivate(staging);
    let keptAside: string | null = null;
    if (existsSync(dataDir)) {
      const closed = keepPrivate(dataDir);
      if (closed.opened > 0) onClosed(dataDir, closed);
      keptAside = `${dataDir}.before-restore-${new Date().toISOString().replace(/[:.]/g, '-')}`;
      renameSync(dataDir, keptAside);
    }
    try {
      renameSync(staging, dataDir);
    } catch (error) {
      if (keptAside) renameSync(keptAside, dataDir);
      throw error;
    }
    return { manifest, keptAside };
  } finally {
    rmSync(staging, { recursive: true, force: true });
    release();
  }
}

/** The timestamps of the migrations in `dir` (supabase/migrations): what this version of the shop knows. */
export function migrationsIn(dir: string): string[] {
  return readdirSync(dir)
    .filter((name) => name.endsWith('.sql'))
    .map((name) => basename(name).split('_')[0] ?? name);
}
