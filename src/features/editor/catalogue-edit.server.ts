// Editing the catalogue on the running shop (decision 008): each save is a row of public.catalogue_revisions holding
// the product file's whole text, written only when the catalogue as saved, with it, passes the catalogue guard. Undo is
// a new save of the text before the save undone. Nothing here changes what shoppers see: a publish does.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'astro/zod';
import type { Sql } from '@/server/db/database.server';
import { createWords, nameIn, saveWords, undoWords, uploadWords } from './activity-words';
import {
  liveRevision,
  NO_SEED,
  PICTURES_DIR,
  projectRoot,
  SEED_PRODUCTS_DIR,
  savedCatalogue,
  seedFiles,
} from './catalogue-files.server';
import type { Refusal } from './catalogue-form';
import { fileProblems, IMAGE_NAME, PRODUCT_FILE } from './catalogue-guard';
import { insertRevision, logCatalogueAction } from './catalogue-log.server';
import type { EditorCaller } from './editors.server';
import { rasterProblem } from './picture-decode.server';
import { pictureName, pictureProblem } from './pictures';
import {
  EDITABLE_FIELDS,
  type EditableField,
  editProductText,
  LOCKED_FIELDS,
  productData,
  summariseChange,
  UnwritableText,
} from './product-text';
import { fieldLabel, refusalMessage } from './refusal-words';
import { openChangeFiles, type RepositoryChange, repositoryChange } from './repository-changes.server';
import { REVISION_DAYS_KEPT, REVISIONS_KEPT } from './revision-policy';
import { allPictures, coloursTakenAway, guard, seedPictureExists, uploadedNames } from './save-checks.server';
import { type TextChange, textChanges } from './text-diff';

/** A lock every save takes for its transaction: saves are checked against the catalogue one after the other. */
export const SAVE_LOCK = 'select pg_advisory_xact_lock(2801130)';

// ── What the editor sees ────────────────────────────────────────────────────────────────────────────────────────

/** A product in the editor's list. */
export interface ProductListRow {
  file: string;
  /** The page's address: the file name without `.md`. */
  slug: string;
  id: number | null;
  name: string;
  priceCents: number | null;
  /** Its text differs from what shoppers are served (saved since the last publish, and not undone since). */
  unpublished: boolean;
  /** Why the build would refuse the file as it is (a seed file edited by hand), or null. */
  problem: string | null;
  /** Changed in the repository since editors saved it, and no editor has chosen yet (decision 018). */
  repositoryChanged: boolean;
}

export async function productList(tx: Sql): Promise<ProductListRow[]> {
  const files = await savedCatalogue(tx);
  const live = await savedCatalogue(tx, await liveRevision(tx));
  const changed = await openChangeFiles(tx);
  return [...files].map(([file, { text }]) => {
    const { product, problems } = fileProblems(text);
    return {
      file,
      slug: file.replace(/\.md$/, ''),
      id: product?.id ?? null,
      name: product?.name ?? file,
      priceCents: product?.priceCents ?? null,
      unpublished: live.get(file)?.text !== text,
      problem: product ? null : problems.join('; '),
      repositoryChanged: changed.has(file),
    };
  });
}

/** One save in a product's history. */
export interface HistoryRow {
  id: number;
  by: string;
  at: string;
  summary: string;
  /** The save it undid, when it was an undo. */
  undoes: number | null;
  /** Whether shoppers see it (a publish included it). */
  published: boolean;
  /** The texts it changed, old and new word by word (a short one-line change is quoted whole in the summary). */
  texts: TextChange[];
  /** False when the save before it was pruned (decision 021): what it changed, and so its undo, is no longer known. */
  undoable: boolean;
}

/** A product's newest saves (as many as are always kept: each has the save before it), newest first. */
export async function productHistory(tx: Sql, file: string, limit = REVISIONS_KEPT): Promise<HistoryRow[]> {
  const live = await liveRevision(tx);
  // One save more than shown: the text before the oldest shown (else the seed's).
  const rows = await tx.query<{
    id: string | number;
    author_email: string;
    created_at: Date | string;
    summary: string;
    undoes: string | number | null;
    contents: string;
    earlier_pruned: boolean;
  }>(
    `select id, author_email, created_at, summary, undoes, contents, earlier_pruned from public.catalogue_revisions
      where file = $1 order by id desc limit $2`,
    [file, limit + 1],
  );
  const shown = rows.slice(0, limit);
  const seed = rows.length > limit ? undefined : (await seedFiles()).get(file);
  return shown.map((r, i) => {
    const before = r.earlier_pruned ? undefined : (rows[i + 1]?.contents ?? seed);
    return {
      id: Number(r.id),
      by: r.author_email,
      at: new Date(r.created_at).toISOString(),
      summary: r.summary,
      undoes: r.undoes === null ? null : Number(r.undoes),
      published: Number(r.id) <= live,
      texts: before === undefined ? [] : textChanges(before, r.contents),
      undoable: !r.earlier_pruned,
    };
  });
}

/** What the product's form shows and sends back. */
export interface ProductForm {
  file: string;
  slug: string;
  /** The save the form shows (0: the seed): a save names it, so two editors cannot overwrite each other unseen. */
  revision: number;
  /** Shown, never editable. */
  id: number | null;
  likes: number | null;
  /** The editable fields as saved. */
  fields: Partial<Record<EditableField, unknown>>;
  reviews: number;
  /** Whether shoppers are served this text (what is live is the same). */
  published: boolean;
  /** Pictures a product may use. */
  pictures: string[];
  history: HistoryRow[];
  /** Saves of the product older than those listed were pruned (decision 021): the history says so. */
  olderPruned: boolean;
  /** Changed in the repository since it was saved: both versions, until an editor chooses (decision 018). */
  repository: RepositoryChange | null;
}

/** A product's form, or null when no product file has that name. */
export async function productForm(tx: Sql, file: string): Promise<ProductForm | null> {
  if (!PRODUCT_FILE.test(file)) return null;
  const saved = (await savedCatalogue(tx)).get(file);
  if (!saved) return null;
  const data = productData(saved.text) ?? {};
  const fields: Partial<Record<EditableField, unknown>> = {};
  for (const key of EDITABLE_FIELDS) if (data[key] !== undefined) fields[key] = data[key];
  return {
    file,
    slug: file.replace(/\.md$/, ''),
    revision: saved.revision,
    id: typeof data.id === 'number' ? data.id : null,
    likes: typeof data.likes === 'number' ? data.likes : null,
    fields,
    reviews: Array.isArray(data.reviews) ? data.reviews.length : 0,
    published: (await savedCatalogue(tx, await liveRevision(tx))).get(file)?.text === saved.text,
    pictures: await allPictures(tx),
    history: await productHistory(tx, file),
    olderPruned: await olderPruned(tx, file),
    repository: await repositoryChange(tx, file, saved),
  };
}

/** Whether saves of `file` were pruned: a save left after them is marked (revision-prune.server.ts). */
async function olderPruned(tx: Sql, file: string): Promise<boolean> {
  const [row] = await tx.query<{ yes: boolean }>(
    'select exists (select 1 from public.catalogue_revisions where file = $1 and earlier_pruned) as yes',
    [file],
  );
  return row?.yes === true;
}

// ── Saving ──────────────────────────────────────────────────────────────────────────────────────────────────────

const short = (max: number) => z.string().max(max);
const LOCKED = new Set<string>([...LOCKED_FIELDS, 'file']);

/** The form's fields: any of the editable ones. The build's schema decides what is valid; this only bounds the shape. */
export const productFieldsBody = z
  .object({
    name: short(200),
    category: short(100),
    mainCategories: z.array(short(60)).max(10),
    price: z.number({ error: 'price must be a number' }),
    description: short(1000),
    detailedDescription: short(5000),
    images: z.array(z.object({ src: short(200), alt: short(500) }).strict()).max(20),
    colors: z
      .array(
        z
          .object({
            name: short(60),
            value: short(60),
            hex: short(20),
            image: z
              .object({ src: short(200), alt: short(500) })
              .strict()
              .optional(),
          })
          .strict(),
      )
      .max(20),
    sizes: z.array(short(10)).max(10),
    usage: short(5000),
    specifications: z.record(short(60), z.union([short(500), z.number()])),
    inStock: z.boolean(),
    finalSale: z.boolean({ error: 'finalSale must be true or false' }),
    sku: short(60),
    weight: z.number({ error: 'weight must be a number' }),
    benefits: z.array(short(300)).max(20),
    ingredients: short(3000),
  })
  .partial()
  .catchall(z.unknown())
  .superRefine((fields, ctx) => {
    for (const key of Object.keys(fields)) {
      if ((EDITABLE_FIELDS as readonly string[]).includes(key)) continue;
      ctx.addIssue({
        code: 'custom',
        path: [key],
        message: LOCKED.has(key)
          ? 'The id, the file name and the like count cannot be changed in the editor.'
          : `${key} is not a field the editor changes.`,
      });
    }
  });

export const saveBody = z.object({ base: z.number().int().nonnegative(), fields: productFieldsBody }).strict();
export type SaveBody = z.infer<typeof saveBody>;
export type SaveResult =
  | {
      ok: true;
      saved: boolean;
      revision: number;
      summary: string;
      at: string | null;
      /** What the save does beyond the product, in words (a colour removed: its carts and orders), or null. */
      notice: string | null;
    }
  | Refused;

/** A save refused: the status and code, and, for a product the shop cannot take, each reason beside its field. */
export type Refused = { ok: false; status: 400 | 404 | 409; code: string; message: string; problems?: Refusal[] };

/** A save the shop cannot take, in its words (refusal-words.ts). */
export const invalid = (problems: Refusal[]): Refused => ({
  ok: false,
  status: 400,
  code: 'invalid_product',
  message: refusalMessage(problems),
  problems,
});

const CHANGED_MEANWHILE = {
  ok: false,
  status: 409,
  code: 'changed_meanwhile',
  message:
    'Someone saved this product since you opened it, so yours was not saved over theirs: compare the two, then save again.',
} as const;

/**
 * Saves the form's fields into product `file`: only fields that changed are written (the rest of the file keeps its
 * text), and only when the catalogue as saved, with this file, passes the guard. `base` is the save the form showed.
 */
export function saveProduct(me: EditorCaller, file: string, body: SaveBody): Promise<SaveResult> {
  return me.run(async (tx) => {
    await tx.query(SAVE_LOCK);
    const files = await savedCatalogue(tx);
    const saved = PRODUCT_FILE.test(file) ? files.get(file) : undefined;
    if (!saved) return { ok: false, status: 404, code: 'not_found', message: 'There is no such product.' };
    if (saved.revision !== body.base) return CHANGED_MEANWHILE;
    // hasColors is the schema's way of saying the list is not empty: it follows the list.
    const fields = body.fields.colors ? { ...body.fields, hasColors: body.fields.colors.length > 0 } : body.fields;
    let text: string;
    try {
      text = editProductText(saved.text, fields);
    } catch (error) {
      if (!(error instanceof UnwritableText)) throw error;
      const label = fieldLabel([error.field]);
      return invalid([{ field: error.field, message: `${label} holds characters the shop cannot keep as typed: retype it.` }]);
    }
    if (text === saved.text)
      return { ok: true, saved: false, revision: saved.revision, summary: 'no change', at: null, notice: null };
    const problems = guard(files, await uploadedNames(tx), file, text);
    if (problems.length > 0) return invalid(problems);
    const colours = await coloursTakenAway(tx, saved.text, text);
    if (colours.problem) return invalid([colours.problem]);
    const productId = fileProblems(text).product?.id ?? 0;
    const summary = summariseChange(saved.text, text);
    const line = { action: 'catalogue.save', target: nameIn(saved.text), words: saveWords(saved.text, text) } as const;
    const row = await insertRevision(tx, me, { file, productId, text, summary, undoes: null, seed: saved.seed }, line);
    return { ok: true, saved: true, revision: row.id, summary, at: row.at, notice: colours.notice };
  });
}

/**
 * Undoes save `revisionId`: a new save of its file whose text is the one before that save (an earlier save, or the
 * seed's), `undoes` set. It passes the guard like any save.
 */
export function undoSave(me: EditorCaller, revisionId: number): Promise<SaveResult & { file?: string }> {
  return me.run(async (tx) => {
    await tx.query(SAVE_LOCK);
    const [target] = await tx.query<{ file: string; summary: string; earlier_pruned: boolean }>(
      'select file, summary, earlier_pruned from public.catalogue_revisions where id = $1',
      [revisionId],
    );
    if (!target) return { ok: false, status: 404, code: 'not_found', message: 'There is no such save.' };
    // The save before it was pruned: the older one left (or the seed) is not the text it changed.
    if (target.earlier_pruned)
      return {
        ok: false,
        status: 400,
        code: 'cannot_undo',
        message: `The save before that one is no longer kept (saves are kept for ${REVISION_DAYS_KEPT} days, and the last ${REVISIONS_KEPT} of each product), so it cannot be undone.`,
      };
    const { file } = target;
    const [earlier] = await tx.query<{ contents: string }>(
      'select contents from public.catalogue_revisions where file = $1 and id < $2 order by id desc limit 1',
      [file, revisionId],
    );
    const seed = (await seedFiles()).get(file);
    const before = earlier?.contents ?? seed;
    if (before === undefined)
      return {
        ok: false,
        status: 400,
        code: 'cannot_undo',
        message: 'That save created the product: there is nothing before it.',
      };
    const files = await savedCatalogue(tx);
    const current = files.get(file);
    if (!current) return { ok: false, status: 404, code: 'not_found', message: 'There is no such product.' };
    if (current.text === before)
      return { ok: true, saved: false, revision: current.revision, summary: 'no change', at: null, notice: null, file };
    const problems = guard(files, await uploadedNames(tx), file, before, true);
    const colours = problems.length > 0 ? null : await coloursTakenAway(tx, current.text, before);
    const refusals = colours?.problem ? [colours.problem] : problems;
    if (refusals.length > 0)
      return { ...invalid(refusals), message: `This save cannot be undone now. ${refusalMessage(refusals)}` };
    const notice = colours?.notice ?? null;
    const summary = `undo of “${target.summary}”: ${summariseChange(current.text, before)}`;
    const productId = fileProblems(before).product?.id ?? 0;
    const words = undoWords(current.text, before, target.summary);
    const line = { action: 'catalogue.undo', target: nameIn(current.text), words } as const;
    const row = await insertRevision(
      tx,
      me,
      { file, productId, text: before, summary, undoes: revisionId, seed: current.seed },
      line,
    );
    return { ok: true, saved: true, revision: row.id, summary, at: row.at, notice, file };
  });
}

// ── Pictures ────────────────────────────────────────────────────────────────────────────────────────────────────

export type UploadResult =
  | { ok: true; name: string; src: string }
  | { ok: false; status: 400 | 413; code: string; message: string };

/** Stores an uploaded picture under a name with a digest of its bytes (the same picture twice is stored once). */
export async function uploadPicture(me: EditorCaller, fileName: string, bytes: Uint8Array): Promise<UploadResult> {
  // Known by its bytes and, for PNG, JPEG and WebP, decoded whole: a picture the build cannot read is refused here.
  const problem = pictureProblem(bytes) ?? (await rasterProblem(bytes));
  if (problem) return { ok: false, status: problem.includes('1 MB') ? 413 : 400, code: 'invalid_picture', message: problem };
  const name = pictureName(fileName, bytes);
  await me.run(async (tx) => {
    // Under the saves' lock, which pruning takes too: an upload is never pruned between its answer and its save.
    await tx.query(SAVE_LOCK);
    const added = await tx.query(
      `insert into public.catalogue_pictures (name, bytes, author_id, author_email) values ($1, $2, $3, $4)
       on conflict (name) do nothing returning name`,
      [name, Buffer.from(bytes), me.editor.id, me.editor.email],
    );
    // The same picture again (a retried upload) is stored once, and logged once; it counts as uploaded now, so a
    // picture stored long ago and used by no save is not pruned before the save it is uploaded for (decision 021).
    if (added.length > 0)
      await logCatalogueAction(tx, me.editor, { action: 'catalogue.picture', target: name, words: uploadWords(name) });
    else await tx.query('update public.catalogue_pictures set created_at = now() where name = $1', [name]);
  });
  return { ok: true, name, src: `./${PICTURES_DIR}/${name}` };
}

/** A picture's bytes for the editor's preview: from the seed's folder or the uploaded ones; null when there is none. */
export async function pictureBytes(me: EditorCaller, name: string): Promise<Uint8Array | null> {
  if (!IMAGE_NAME.test(name)) return null;
  if (seedPictureExists(name)) return new Uint8Array(await readFile(join(projectRoot(), SEED_PRODUCTS_DIR, PICTURES_DIR, name)));
  const [row] = await me.run((tx) =>
    tx.query<{ bytes: Uint8Array }>('select bytes from public.catalogue_pictures where name = $1', [name]),
  );
  return row ? new Uint8Array(row.bytes) : null;
}

// ── A new product ───────────────────────────────────────────────────────────────────────────────────────────────

export const createBody = z
  .object({
    /** The product whose file the new one starts from (its pictures, texts, fields). */
    from: z.string().regex(PRODUCT_FILE, { error: 'Choose the product to start from.' }),
    name: z
      .string()
      .trim()
      .min(1, { error: 'Give the new product a name.' })
      .max(200, { error: 'Name can be at most 200 characters.' }),
    sku: z.string().max(60, { error: 'SKU can be at most 60 characters.' }),
  })
  .strict();
export type CreateBody = z.infer<typeof createBody>;

export type CreateResult = { ok: true; file: string; slug: string; id: number; revision: number } | Refused;

/** A file name's slug from a product's name: 'Rose Face Oil' → 'rose-face-oil'. */
const slugOf = (name: string) =>
  name
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60) || 'product';

/**
 * Creates a product as a copy of `from`: the next free id (its address), its own name and SKU, no likes or reviews,
 * in a new file `NN-slug.md` after the others. Saved like any save (guarded, in the history); shoppers see it once
 * published.
 */
export function createProduct(me: EditorCaller, body: CreateBody): Promise<CreateResult> {
  return me.run(async (tx) => {
    await tx.query(SAVE_LOCK);
    const files = await savedCatalogue(tx);
    const source = files.get(body.from);
    if (!source) return { ok: false, status: 404, code: 'not_found', message: 'There is no such product to start from.' };
    const ids = [...files.values()].map((f) => fileProblems(f.text).product?.id ?? 0);
    const id = Math.max(0, ...ids) + 1;
    let file = `${String(id).padStart(2, '0')}-${slugOf(body.name)}.md`;
    for (let n = 2; files.has(file); n++) file = `${String(id).padStart(2, '0')}-${slugOf(body.name)}-${n}.md`;
    const text = editProductText(source.text, { id, name: body.name, sku: body.sku, likes: 0, reviews: [] });
    const problems = guard(files, await uploadedNames(tx), file, text);
    if (problems.length > 0) return invalid(problems);
    const sourceName = fileProblems(source.text).product?.name ?? body.from;
    const line = { action: 'catalogue.create', target: body.name, words: createWords(body.name, id, source.text) } as const;
    const row = await insertRevision(
      tx,
      me,
      { file, productId: id, text, summary: `created from “${sourceName}”`, undoes: null, seed: NO_SEED },
      line,
    );
    return { ok: true, file, slug: file.replace(/\.md$/, ''), id, revision: row.id };
  });
}
