// Products changed in the repository since editors saved them (decision 018). A server that starts compares each
// saved product's seed (the repository's content/products/<file>, as deployed with it) with the seed its saves were
// made over; a product whose repository text moved, and is not the saved text, is "changed in the repository": a row of
// public.catalogue_seed_changes, found once (the partial unique index on open rows; its activity-log line is written
// only by the insert that made the row), shown to editors with both versions until one of them chooses
// (repository-choice.server.ts). Until then the saved version stays what is saved, previewed and published.
import type { Database, Sql } from '@/server/db/database.server';
import { asService } from '@/server/db/roles.server';
import { nameIn } from './activity-words';
import { liveRevision, projectRoot, type SavedFile, savedCatalogue, seedDigest, seedFiles } from './catalogue-files.server';
import { logCatalogueAction } from './catalogue-log.server';
import { summariseChange } from './product-text';
import { seedState, servedWords } from './repository-rules';
import { type TextChange, textChanges } from './text-diff';

/** Who the activity log says found a change: the deploy, not a person. */
export const REPOSITORY = { id: null, email: 'the repository (a deploy)' } as const;

/** What a server found as it started: products newly changed in the repository, and changes settled by it. */
export interface FoundChanges {
  found: string[];
  settled: string[];
  adopted: string[];
}

/** The words of a change found, for the activity log. */
export function foundWords(saved: string, repository: string): string {
  return `changed ${nameIn(saved)}, which editors had saved: ${summariseChange(saved, repository)} (saved → repository). The shop keeps the saved version until an editor chooses.`;
}

/**
 * Compares every saved product with this server's repository (`root`): records each product changed in the repository
 * (once, whichever servers start together), records as settled an open change the repository now agrees with (it went
 * back, or committed the saved text), and takes the repository as the base of saves made before bases were recorded.
 */
export async function findRepositoryChanges(db: Database, root = projectRoot()): Promise<FoundChanges> {
  const seeds = await seedFiles(root);
  return asService(db, async (tx) => {
    const result: FoundChanges = { found: [], settled: [], adopted: [] };
    for (const [file, saved] of await savedCatalogue(tx, undefined, root)) {
      const seedText = seeds.get(file);
      const digest = seedText === undefined ? undefined : seedDigest(seedText);
      const state = seedState(saved, seedText, digest);
      if (state === 'adopt' && digest) {
        await tx.query('update public.catalogue_revisions set seed_sha256 = $2 where file = $1 and seed_sha256 is null', [
          file,
          digest,
        ]);
        result.adopted.push(file);
      } else if (state === 'agrees') {
        if (await settle(tx, file, saved)) result.settled.push(file);
      } else if (state === 'changed' && seedText !== undefined && digest) {
        if (await record(tx, file, saved, seedText, digest)) result.found.push(file);
      }
    }
    return result;
  });
}

/** Records a change found; true when this call recorded it (a second server finding it adds nothing). */
async function record(tx: Sql, file: string, saved: SavedFile, seedText: string, digest: string): Promise<boolean> {
  const inserted = await tx.query(
    `insert into public.catalogue_seed_changes (file, seed_sha256, seed_contents, base_sha256, revision_id)
     values ($1, $2, $3, $4, $5)
     on conflict (file) where resolved_at is null do nothing returning id`,
    [file, digest, seedText, saved.seed ?? 'none', saved.revision],
  );
  // Still open from an earlier deploy, and the repository moved again: the editor now chooses against this text.
  const moved =
    inserted.length > 0
      ? inserted
      : await tx.query(
          `update public.catalogue_seed_changes set seed_sha256 = $2, seed_contents = $3, revision_id = $4, found_at = now()
            where file = $1 and resolved_at is null and seed_sha256 <> $2 returning id`,
          [file, digest, seedText, saved.revision],
        );
  if (moved.length === 0) return false;
  const words = foundWords(saved.text, seedText);
  await logCatalogueAction(tx, REPOSITORY, { action: 'catalogue.repository-changed', target: nameIn(saved.text), words });
  return true;
}

/** Settles an open change the repository now agrees with; true when this call settled it. */
async function settle(tx: Sql, file: string, saved: SavedFile): Promise<boolean> {
  const rows = await tx.query(
    `update public.catalogue_seed_changes set resolved_at = now(), resolution = 'settled'
      where file = $1 and resolved_at is null returning id`,
    [file],
  );
  if (rows.length === 0) return false;
  const words = `agrees again with what editors saved of ${nameIn(saved.text)}: nothing to choose.`;
  await logCatalogueAction(tx, REPOSITORY, { action: 'catalogue.repository-settled', target: nameIn(saved.text), words });
  return true;
}

/** A product changed in the repository, as its form shows it: both versions, what differs, what shoppers see. */
export interface RepositoryChange {
  /** The change's id: a choice names it. */
  id: number;
  foundAt: string;
  /** The repository's file, whole, and the saved one. */
  repositoryText: string;
  savedText: string;
  /** From the saved version to the repository's, in words ('price $35.00 → $32.00'). */
  summary: string;
  /** Their texts word by word: taken out = only in the saved version, put in = only in the repository's. */
  texts: TextChange[];
  /** What shoppers are served meanwhile, in words. */
  served: string;
}

/** The files changed in the repository that no editor has chosen for yet, file → change id. */
export async function openChangeFiles(tx: Sql): Promise<Map<string, number>> {
  const rows = await tx.query<{ file: string; id: string | number }>(
    'select file, id from public.catalogue_seed_changes where resolved_at is null',
  );
  return new Map(rows.map((r) => [r.file, Number(r.id)]));
}

/** The open change of `file` with both versions, or null when there is none. */
export async function repositoryChange(tx: Sql, file: string, saved: SavedFile): Promise<RepositoryChange | null> {
  const [row] = await tx.query<{ id: string | number; found_at: Date | string; seed_contents: string }>(
    'select id, found_at, seed_contents from public.catalogue_seed_changes where file = $1 and resolved_at is null',
    [file],
  );
  if (!row) return null;
  const live = (await savedCatalogue(tx, await liveRevision(tx))).get(file)?.text;
  return {
    id: Number(row.id),
    foundAt: new Date(row.found_at).toISOString(),
    repositoryText: row.seed_contents,
    savedText: saved.text,
    summary: summariseChange(saved.text, row.seed_contents),
    texts: textChanges(saved.text, row.seed_contents),
    served: servedWords(live, saved.text, row.seed_contents),
  };
}
