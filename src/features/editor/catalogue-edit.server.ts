// Editing the catalogue on the running shop (decision 008): each save is a row of public.catalogue_revisions holding
// the product file's whole text, written only when the catalogue as saved, with it, passes the catalogue guard. Undo is
// a new save of the text before the save undone. Nothing here changes what shoppers see: a publish does.
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'astro/zod';
import type { Sql } from '@/server/db/database.server';
import {
  liveRevision,
  PICTURES_DIR,
  projectRoot,
  type SavedFile,
  SEED_PRODUCTS_DIR,
  savedCatalogue,
  seedFiles,
} from './catalogue-files.server';
import {
  catalogueProblem,
  colourChange,
  fileProblems,
  type GuardedColour,
  IMAGE_NAME,
  PRODUCT_FILE,
  PRODUCTS_DIR,
} from './catalogue-guard';
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
} from './product-text';

/** A lock every save takes for its transaction: saves are checked against the catalogue one after the other. */
const SAVE_LOCK = 'select pg_advisory_xact_lock(2801130)';

/** The names of the pictures editors uploaded. */
async function uploadedNames(tx: Sql): Promise<Set<string>> {
  const rows = await tx.query<{ name: string }>('select name from public.catalogue_pictures');
  return new Set(rows.map((r) => r.name));
}

const seedPictureExists = (name: string) =>
  IMAGE_NAME.test(name) && existsSync(join(projectRoot(), SEED_PRODUCTS_DIR, PICTURES_DIR, name));

/** Every picture a product may name: the seed's and the uploaded ones, sorted. */
async function allPictures(tx: Sql): Promise<string[]> {
  const seed = (await readdir(join(projectRoot(), SEED_PRODUCTS_DIR, PICTURES_DIR))).filter((n) => IMAGE_NAME.test(n));
  return [...new Set([...seed, ...(await uploadedNames(tx))])].sort();
}

/** The guard's question for the shop: the catalogue as saved, pictures in the seed's folder or uploaded. */
function guard(files: Map<string, SavedFile>, uploaded: Set<string>, file: string, text: string): string | null {
  const paths = new Map([...files].map(([name, f]) => [`${PRODUCTS_DIR}/${name}`, f.text]));
  const path = `${PRODUCTS_DIR}/${file}`;
  const problem = catalogueProblem(
    { files: paths, pictureExists: (name) => uploaded.has(name) || seedPictureExists(name) },
    { additions: [{ path, contents: new TextEncoder().encode(text) }], deletions: [] },
  );
  // The editor is on that product's form: the field and the message are enough.
  return problem?.startsWith(`${path}: `) ? problem.slice(path.length + 2) : problem;
}

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/**
 * What taking colours away from a product does to what names them by their key, or why it may not. A colour whose
 * stock the shop counts stays: its counts would apply to nothing, and the owner sets them, not the editor. A colour in
 * shoppers' saved carts or in past orders may go: once published, carts drop it with a word to the shopper (as they
 * drop anything the catalogue no longer sells), and orders keep it as bought; the save says so.
 */
async function colourRemoval(
  tx: Sql,
  productId: number,
  removed: readonly GuardedColour[],
): Promise<{ problem: string | null; notice: string | null }> {
  if (removed.length === 0) return { problem: null, notice: null };
  const keys = JSON.stringify(removed.map((c) => c.value));
  const [counted, carts, orders] = await Promise.all([
    tx.query<{ color: string; on_hand: number }>(
      `select color, sum(on_hand)::int as on_hand from public.stock_levels
        where product_id = $1 and color in (select jsonb_array_elements_text($2::text::jsonb)) group by color`,
      [productId, keys],
    ),
    tx.query<{ color: string; n: number }>(
      `select selected_color as color, count(distinct user_id)::int as n from public.user_carts
        where product_id = $1 and selected_color in (select jsonb_array_elements_text($2::text::jsonb))
        group by selected_color`,
      [productId, keys],
    ),
    tx.query<{ color: string; n: number }>(
      `select selected_color as color, count(distinct order_id)::int as n from public.order_items
        where product_id = $1 and selected_color in (select jsonb_array_elements_text($2::text::jsonb))
        group by selected_color`,
      [productId, keys],
    ),
  ]);
  const colour = (value: string) => removed.find((c) => c.value === value)?.name ?? value;
  const [count] = counted;
  if (count) {
    return {
      problem: `colours: “${colour(count.color)}” cannot be removed while the shop counts its stock (${count.on_hand} on hand): the counts would apply to nothing. Ask the shop’s owner to clear its counts on the Stock page first, then remove it.`,
      notice: null,
    };
  }
  const notes = removed.flatMap(({ name, value }) => {
    const inCarts = carts.find((r) => r.color === value)?.n ?? 0;
    const inOrders = orders.find((r) => r.color === value)?.n ?? 0;
    if (inCarts === 0 && inOrders === 0) return [];
    const what = [
      ...(inCarts > 0
        ? [
            `it is taken out of the ${plural(inCarts, 'saved cart that holds it', 'saved carts that hold it')} (${inCarts === 1 ? 'its shopper is' : 'their shoppers are'} told)`,
          ]
        : []),
      ...(inOrders > 0 ? [`the ${plural(inOrders, 'order of it keeps', 'orders of it keep')} it as bought`] : []),
    ];
    return [`${name} was removed. Once published: ${what.join(', and ')}.`];
  });
  return { problem: null, notice: notes.length > 0 ? notes.join(' ') : null };
}

/** The colours going from `before` to `after` take away, judged against what names them (see colourRemoval). */
async function coloursTakenAway(
  tx: Sql,
  before: string,
  after: string,
): Promise<{ problem: string | null; notice: string | null }> {
  const was = fileProblems(before).product;
  const now = fileProblems(after).product;
  if (!was || !now) return { problem: null, notice: null };
  return colourRemoval(tx, was.id, colourChange(was.colors, now.colors).removed);
}

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
}

export async function productList(tx: Sql): Promise<ProductListRow[]> {
  const files = await savedCatalogue(tx);
  const live = await savedCatalogue(tx, await liveRevision(tx));
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
}

export async function productHistory(tx: Sql, file: string, limit = 50): Promise<HistoryRow[]> {
  const live = await liveRevision(tx);
  const rows = await tx.query<{
    id: string | number;
    author_email: string;
    created_at: Date | string;
    summary: string;
    undoes: string | number | null;
  }>(
    `select id, author_email, created_at, summary, undoes from public.catalogue_revisions
      where file = $1 order by id desc limit $2`,
    [file, limit],
  );
  return rows.map((r) => ({
    id: Number(r.id),
    by: r.author_email,
    at: new Date(r.created_at).toISOString(),
    summary: r.summary,
    undoes: r.undoes === null ? null : Number(r.undoes),
    published: Number(r.id) <= live,
  }));
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
  };
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
  | { ok: false; status: 400 | 404 | 409; code: string; message: string };

const CHANGED_MEANWHILE = {
  ok: false,
  status: 409,
  code: 'changed_meanwhile',
  message: 'Someone saved this product since you opened it. Reload the page to see their change, then make yours again.',
} as const;

async function insertRevision(
  tx: Sql,
  by: EditorCaller,
  row: { file: string; productId: number; text: string; summary: string; undoes: number | null },
): Promise<{ id: number; at: string }> {
  const [saved] = await tx.query<{ id: string | number; created_at: Date | string }>(
    `insert into public.catalogue_revisions (file, product_id, contents, author_id, author_email, summary, undoes)
     values ($1, $2, $3, $4, $5, $6, $7) returning id, created_at`,
    [row.file, row.productId, row.text, by.editor.id, by.editor.email, row.summary, row.undoes],
  );
  if (!saved) throw new Error('the save was not recorded');
  return { id: Number(saved.id), at: new Date(saved.created_at).toISOString() };
}

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
      return { ok: false, status: 400, code: 'invalid_product', message: (error as Error).message };
    }
    if (text === saved.text)
      return { ok: true, saved: false, revision: saved.revision, summary: 'no change', at: null, notice: null };
    const problem = guard(files, await uploadedNames(tx), file, text);
    if (problem) return { ok: false, status: 400, code: 'invalid_product', message: problem };
    const colours = await coloursTakenAway(tx, saved.text, text);
    if (colours.problem) return { ok: false, status: 400, code: 'invalid_product', message: colours.problem };
    const productId = fileProblems(text).product?.id ?? 0;
    const summary = summariseChange(saved.text, text);
    const row = await insertRevision(tx, me, { file, productId, text, summary, undoes: null });
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
    const [target] = await tx.query<{ file: string; summary: string }>(
      'select file, summary from public.catalogue_revisions where id = $1',
      [revisionId],
    );
    if (!target) return { ok: false, status: 404, code: 'not_found', message: 'There is no such save.' };
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
    const problem = guard(files, await uploadedNames(tx), file, before);
    const colours = problem ? null : await coloursTakenAway(tx, current.text, before);
    const refusal = problem ?? colours?.problem;
    if (refusal)
      return { ok: false, status: 400, code: 'invalid_product', message: `This save cannot be undone now: ${refusal}` };
    const notice = colours?.notice ?? null;
    const summary = `undo of “${target.summary}”: ${summariseChange(current.text, before)}`;
    const productId = fileProblems(before).product?.id ?? 0;
    const row = await insertRevision(tx, me, { file, productId, text: before, summary, undoes: revisionId });
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
  await me.run((tx) =>
    tx.query(
      `insert into public.catalogue_pictures (name, bytes, author_id, author_email) values ($1, $2, $3, $4)
       on conflict (name) do nothing`,
      [name, Buffer.from(bytes), me.editor.id, me.editor.email],
    ),
  );
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
    name: z.string().trim().min(1, { error: 'Give the new product a name.' }).max(200),
    sku: short(60),
  })
  .strict();
export type CreateBody = z.infer<typeof createBody>;

export type CreateResult =
  | { ok: true; file: string; slug: string; id: number; revision: number }
  | { ok: false; status: 400 | 404; code: string; message: string };

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
    const problem = guard(files, await uploadedNames(tx), file, text);
    if (problem) return { ok: false, status: 400, code: 'invalid_product', message: problem };
    const sourceName = fileProblems(source.text).product?.name ?? body.from;
    const row = await insertRevision(tx, me, {
      file,
      productId: id,
      text,
      summary: `created from “${sourceName}”`,
      undoes: null,
    });
    return { ok: true, file, slug: file.replace(/\.md$/, ''), id, revision: row.id };
  });
}
