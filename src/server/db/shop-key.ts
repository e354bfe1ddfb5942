/**
 * The shop's key: what binds a backup to the shop that made it. 32 random bytes, written once (at the shop's first start,
 * or its first backup) into `aurelia-shop.key` in the directory that holds the data directory, mode 0600, and never
 * into a backup: a backup names its shop (an id derived from the key) and carries a seal, an HMAC-SHA256 with the key
 * over its manifest (which holds the contents' SHA-256). Someone who can write a backup file but cannot read the key
 * can change the contents and recompute the checksum, or rename another shop's backup as this one's, but cannot make
 * the seal that goes with it: restore refuses such a file, and another shop's backup unless told otherwise.
 *
 * Loaded by Node itself from the scripts (type stripping): erasable TypeScript only, no imports but Node's.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { chmodSync, closeSync, mkdirSync, openSync, readFileSync, statSync, writeSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

/** A shop's key, and the id it is known by (in backups' manifests and in messages). */
export interface ShopKey {
  /** 16 hex digits, derived from the key: it names the shop and gives nothing of the key away. */
  id: string;
  secret: Buffer;
}

/** Where the key of the shop whose data directory is `dataDir` is kept: beside that directory, never in it. */
export function shopKeyPath(dataDir: string): string {
  return join(dirname(resolve(dataDir)), 'aurelia-shop.key');
}

function keyOf(text: string, path: string): ShopKey {
  const hex = text.trim();
  if (!/^[0-9a-f]{64}$/.test(hex)) throw new Error(`The shop's key in ${path} is damaged: it should be 64 hex digits.`);
  const secret = Buffer.from(hex, 'hex');
  return { id: createHmac('sha256', secret).update('aurelia shop id').digest('hex').slice(0, 16), secret };
}

/** The key of the shop in `dataDir`, or null when it has none yet (a shop that has never started there). */
export function readShopKey(dataDir: string): ShopKey | null {
  const path = shopKeyPath(dataDir);
  let text: string;
  try {
    const st = statSync(path);
    const uid = process.getuid?.();
    if (uid !== undefined && st.uid !== uid) {
      throw new Error(`The shop's key ${path} belongs to another user (uid ${st.uid}): give it to the user the shop runs as.`);
    }
    if (st.mode & 0o077) chmodSync(path, 0o600);
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  return keyOf(text, path);
}

/** The key of the shop in `dataDir`, made (once, whoever else is making it at the same moment) when it has none. */
export function shopKey(dataDir: string): ShopKey {
  const known = readShopKey(dataDir);
  if (known) return known;
  const path = shopKeyPath(dataDir);
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const text = `${randomBytes(32).toString('hex')}\n`;
  try {
    const fd = openSync(path, 'wx', 0o600);
    try {
      writeSync(fd, text);
    } finally {
      closeSync(fd);
    }
  } catch (error) {
    // Another process made it first: that one is the shop's.
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    return readShopKey(dataDir) ?? keyOf('', path);
  }
  return keyOf(text, path);
}

/** What a seal covers: a backup's manifest, field by field (its contents through their SHA-256). */
export interface Sealed {
  format: number;
  engine: string;
  createdAt: string;
  migration: string | null;
  bytes: number;
  sha256: string;
  shop?: string | undefined;
}

/** The seal of `manifest` with `key`: HMAC-SHA256, hex. */
export function sealOf(manifest: Sealed, key: ShopKey): string {
  const fields = [
    manifest.format,
    manifest.engine,
    manifest.createdAt,
    manifest.migration ?? '',
    manifest.bytes,
    manifest.sha256,
    manifest.shop ?? '',
  ];
  return createHmac('sha256', key.secret)
    .update(`aurelia-backup-seal 1\n${fields.join('\n')}`)
    .digest('hex');
}

/** Whether `seal` is the seal of `manifest` with `key` (compared in constant time). */
export function sealMatches(manifest: Sealed, seal: string, key: ShopKey): boolean {
  const expected = Buffer.from(sealOf(manifest, key), 'hex');
  const given = /^[0-9a-f]{64}$/.test(seal) ? Buffer.from(seal, 'hex') : Buffer.alloc(0);
  return given.length === expected.length && timingSafeEqual(given, expected);
}
