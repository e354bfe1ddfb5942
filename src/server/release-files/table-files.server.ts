import type { Database, Sql } from '../db/database.server';
import { serviceStatement } from '../db/roles.server';
import { checkedFile, type TableFiles } from './release-files.port';

/** The embedded default: release files as rows of `catalogue_release_files`, committed with their manifest. */
export const tableFiles: TableFiles = {
  kind: 'table',
  name: 'database',
  async put(tx: Sql, files: ReadonlyMap<string, Uint8Array>) {
    for (const [hash, bytes] of files)
      await tx.query('insert into public.catalogue_release_files (hash, bytes) values ($1, $2) on conflict do nothing', [
        hash,
        bytes,
      ]);
  },
  async get(db: Database, hashes: readonly string[]) {
    const rows = await serviceStatement<{ hash: string; bytes: Uint8Array }>(
      db,
      'select hash, bytes from public.catalogue_release_files where hash = any($1::text[])',
      [[...hashes]],
    );
    return new Map(rows.map((row) => [row.hash, checkedFile(row.hash, new Uint8Array(row.bytes))]));
  },
  async prune(tx: Sql, keep: ReadonlySet<string>) {
    const gone = await tx.query<{ hash: string }>(
      'delete from public.catalogue_release_files where not (hash = any($1::text[])) returning hash',
      [[...keep]],
    );
    return gone.length;
  },
};
