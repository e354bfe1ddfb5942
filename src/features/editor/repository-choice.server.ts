// An editor's choice for a product changed in the repository (decision 018): keep the saved version, or take the
// repository's. Either is a save (a row of public.catalogue_revisions, in the history, undoable) whose seed is the
// repository's text, so the change is not found again; the change is closed by one conditional update in the same
// transaction, so two editors choosing at once make one choice, and the activity log says which.
import { z } from 'astro/zod';
import { nameIn } from './activity-words';
import { invalid, SAVE_LOCK, type SaveResult } from './catalogue-edit.server';
import { savedCatalogue } from './catalogue-files.server';
import { fileProblems, PRODUCT_FILE } from './catalogue-guard';
import { insertRevision } from './catalogue-log.server';
import type { EditorCaller } from './editors.server';
import { summariseChange } from './product-text';
import { coloursTakenAway, guard, uploadedNames } from './save-checks.server';

export const choiceBody = z
  .object({
    /** The change the editor saw. */
    change: z.number().int().positive(),
    /** The save the form showed: a save made since is seen before choosing. */
    base: z.number().int().nonnegative(),
    choice: z.enum(['keep', 'take'], { error: 'Choose keep or take.' }),
  })
  .strict();
export type ChoiceBody = z.infer<typeof choiceBody>;

const resolution = { keep: 'kept', take: 'taken' } as const;

/** Keeps the saved version of `file`, or takes the repository's, for the open change `body.change`. */
export function chooseVersion(me: EditorCaller, file: string, body: ChoiceBody): Promise<SaveResult> {
  return me.run(async (tx) => {
    await tx.query(SAVE_LOCK);
    if (!PRODUCT_FILE.test(file)) return { ok: false, status: 404, code: 'not_found', message: 'There is no such product.' };
    const [change] = await tx.query<{
      seed_sha256: string;
      seed_contents: string;
      resolution: string | null;
      resolved_by_email: string | null;
    }>(
      `select seed_sha256, seed_contents, resolution, resolved_by_email from public.catalogue_seed_changes
        where id = $1 and file = $2 for update`,
      [body.change, file],
    );
    if (!change) return { ok: false, status: 404, code: 'not_found', message: 'There is no such change from the repository.' };
    if (change.resolution) {
      const who = change.resolved_by_email ?? 'a later deploy';
      const what = {
        kept: 'kept the saved version',
        taken: 'took the repository’s version',
        settled: 'brought the repository back in line with the saves',
      }[change.resolution];
      return { ok: false, status: 409, code: 'already_chosen', message: `Already chosen: ${who} ${what}. Reload to see it.` };
    }
    const files = await savedCatalogue(tx);
    const saved = files.get(file);
    if (!saved) return { ok: false, status: 404, code: 'not_found', message: 'There is no such product.' };
    if (saved.revision !== body.base)
      return {
        ok: false,
        status: 409,
        code: 'changed_meanwhile',
        message: 'Someone saved this product since you opened it: look at both versions again, then choose.',
      };
    const repository = change.seed_contents;
    const difference = summariseChange(saved.text, repository);
    const name = nameIn(saved.text);
    let text = saved.text;
    let notice: string | null = null;
    let summary = `kept the saved version over the repository’s (${difference})`;
    let words = `kept the saved version of ${name} over the repository’s change (${difference} not taken)`;
    if (body.choice === 'take') {
      text = repository;
      const problems = guard(files, await uploadedNames(tx), file, text);
      if (problems.length > 0)
        return { ...invalid(problems), message: `The repository’s version cannot be taken: ${invalid(problems).message}` };
      const colours = await coloursTakenAway(tx, saved.text, text);
      if (colours.problem) return invalid([colours.problem]);
      notice = colours.notice;
      summary = `took the repository’s version: ${difference}`;
      words = `took the repository’s version of ${name}: ${difference}`;
    }
    const productId = fileProblems(text).product?.id ?? 0;
    const action = body.choice === 'keep' ? 'catalogue.repository-kept' : 'catalogue.repository-taken';
    const row = await insertRevision(
      tx,
      me,
      { file, productId, text, summary, undoes: null, seed: change.seed_sha256 },
      { action, target: name, words },
    );
    await tx.query(
      `update public.catalogue_seed_changes
          set resolved_at = now(), resolution = $2, resolved_by_id = $3, resolved_by_email = $4, resolution_revision_id = $5
        where id = $1 and resolved_at is null`,
      [body.change, resolution[body.choice], me.editor.id, me.editor.email, row.id],
    );
    return { ok: true, saved: true, revision: row.id, summary, at: row.at, notice };
  });
}
