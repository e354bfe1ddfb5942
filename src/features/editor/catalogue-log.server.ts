// The editors' changes in the admin's activity log (public.admin_actions), each written in the transaction that makes
// it and only when it made one, so a retried request or a double click records nothing more: a save, an undo and a
// new product with their revision row, an upload with its picture row, a publish with its queued row. What became of
// a publish (live, failed) is recorded by the publisher with the status it sets (publisher.server.ts).
import { recordAction } from '@/features/admin/admin.server';
import type { Sql } from '@/server/db/database.server';
import type { EditorCaller } from './editors.server';

/** The editors' actions, as admin_actions names them (the activity log's labels are in src/features/admin/admin.ts). */
export type CatalogueAction =
  | 'catalogue.save'
  | 'catalogue.undo'
  | 'catalogue.create'
  | 'catalogue.picture'
  | 'catalogue.publish'
  | 'catalogue.published'
  | 'catalogue.published-again'
  | 'catalogue.publish-failed'
  | 'catalogue.publish-scheduled'
  | 'catalogue.schedule-cancelled'
  | 'catalogue.repository-changed'
  | 'catalogue.repository-kept'
  | 'catalogue.repository-taken'
  | 'catalogue.repository-settled';

/** One line of the activity log: what was done to what (a product's name, a picture, the catalogue), in a sentence. */
export interface CatalogueLogLine {
  action: CatalogueAction;
  target: string;
  words: string;
}

/** Records an editor's action; `words` is the sentence the log shows after who did it (kept as the row's `after`). */
export function logCatalogueAction(tx: Sql, by: { id: string | null; email: string }, line: CatalogueLogLine): Promise<void> {
  return recordAction(tx, by, { action: line.action, target: line.target.slice(0, 200) || 'catalogue', after: line.words });
}

/**
 * A save of a product file: its row in public.catalogue_revisions (the whole text, and the seed it descends from:
 * the saved file's own, inherited, unless an editor chose a repository's version, decision 018) and its line in the
 * activity log.
 */
export async function insertRevision(
  tx: Sql,
  by: EditorCaller,
  row: { file: string; productId: number; text: string; summary: string; undoes: number | null; seed: string | null },
  line: CatalogueLogLine,
): Promise<{ id: number; at: string }> {
  const [saved] = await tx.query<{ id: string | number; created_at: Date | string }>(
    `insert into public.catalogue_revisions (file, product_id, contents, author_id, author_email, summary, undoes, seed_sha256)
     values ($1, $2, $3, $4, $5, $6, $7, $8) returning id, created_at`,
    [row.file, row.productId, row.text, by.editor.id, by.editor.email, row.summary, row.undoes, row.seed],
  );
  if (!saved) throw new Error('the save was not recorded');
  await logCatalogueAction(tx, by.editor, line);
  return { id: Number(saved.id), at: new Date(saved.created_at).toISOString() };
}

/** Who asked for a publish (the id is null once their account is gone). */
export interface Requester {
  id: string | null;
  email: string;
}

/**
 * What became of a build (live, failed) in the activity log, on behalf of whoever asked for the publishes it built
 * (publishes pressed together share one build): one line per build. Call it in the transaction that sets their status.
 */
export async function logPublishOutcome(tx: Sql, asked: readonly Requester[], line: CatalogueLogLine): Promise<void> {
  const [first] = asked;
  if (!first) return;
  const emails = [...new Set(asked.map((r) => r.email))].join(', ');
  await logCatalogueAction(tx, { id: first.id, email: emails }, line);
}
