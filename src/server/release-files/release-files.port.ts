import { createHash } from 'node:crypto';
import type { Database, Sql } from '../db/database.server';

// Where the files of the catalogue's releases live: every page and picture once, named by the SHA-256 (hex) of its
// bytes (decisions 019, 020). The manifests that name them, their digests, the leases and the live pointer stay in
// the database whatever this port is: they need its transactions and NOTIFY.

/** Files kept as rows of the shop's database: written and pruned inside the transaction that writes or prunes the manifests. */
export interface TableFiles {
  readonly kind: 'table';
  /** Which adapter answers, for the start-up log line. */
  readonly name: string;
  /** Stores every file not held yet, in `tx` (the transaction the manifest is written in). */
  put(tx: Sql, files: ReadonlyMap<string, Uint8Array>): Promise<void>;
  /** The files asked for that are held, each checked against its name (FileDigestError when one does not match). */
  get(db: Database, hashes: readonly string[]): Promise<Map<string, Uint8Array>>;
  /** Deletes, in `tx`, every file not in `keep`. */
  prune(tx: Sql, keep: ReadonlySet<string>): Promise<number>;
}

/**
 * Files kept outside the database (a bucket): written before the manifest's transaction and pruned after it, so the
 * caller keeps stores and prunes apart (release-store.server.ts: a write claim, a prune lease).
 */
export interface BucketFiles {
  readonly kind: 'bucket';
  readonly name: string;
  /** Stores every file (one already held is written again: its time of writing is now). */
  put(files: ReadonlyMap<string, Uint8Array>): Promise<void>;
  /** The files asked for that are held, each checked against its name (FileDigestError when one does not match). */
  get(hashes: readonly string[]): Promise<Map<string, Uint8Array>>;
  /** Deletes every file not in `keep` written before `options.writtenBefore`; returns how many went. */
  prune(keep: ReadonlySet<string>, options: PruneOptions): Promise<number>;
}

export interface PruneOptions {
  /** Only files written before this moment go: one written since may be a release's whose manifest is not stored yet. */
  writtenBefore: Date;
  /** Asked before each deletion: false stops the pruning there (what is left goes next time). */
  mayDelete(): Promise<boolean>;
}

export type ReleaseFiles = TableFiles | BucketFiles;

/** A file whose bytes are not those its name (their SHA-256) says: it was changed where it was kept, and is not served. */
export class FileDigestError extends Error {
  constructor(readonly hash: string) {
    super(`The file ${hash} does not match its digest.`);
    this.name = 'FileDigestError';
  }
}

/** The SHA-256 of `data`, in hex: a file's name. */
export const fileName = (data: string | Uint8Array) => createHash('sha256').update(data).digest('hex');

/** A file's name as a bucket key or table row may hold it: 64 lower-case hex digits. */
export const FILE_NAME = /^[0-9a-f]{64}$/;

/** `bytes`, read back under the name `hash`, once checked against it. */
export function checkedFile(hash: string, bytes: Uint8Array): Uint8Array {
  if (fileName(bytes) !== hash) throw new FileDigestError(hash);
  return bytes;
}
