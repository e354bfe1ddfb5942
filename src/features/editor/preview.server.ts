// Previews of the catalogue as saved (decision 014): the product files exactly as the next publish would build them
// (the seed with every save laid over it: catalogueFiles up to the newest save, as publishQueued claims it), read
// through the build's own schema into the products the shop's page components render, with pictures measured as
// astro:assets measures them and served from /preview/pictures. Rendered on demand, for an editor by their session or
// for anyone holding a signed link (preview-link.server.ts); never a way into anything else.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { AdminDeps } from '@/features/admin/admin.server';
import { catalogueIndex } from '@/features/catalogue/catalogue';
import type { Product } from '@/features/catalogue/catalogue.server';
import { pricedAt } from '@/features/catalogue/sale';
import { dateFormat } from '@/lib/dates';
import type { CookieJar } from '@/server/auth/auth.port';
import type { Database } from '@/server/db/database.server';
import { asService } from '@/server/db/roles.server';
import {
  liveRevision,
  PICTURES_DIR,
  projectRoot,
  type SavedFile,
  SEED_PRODUCTS_DIR,
  savedCatalogue,
  uploadedPictures,
} from './catalogue-files.server';
import { IMAGE_NAME } from './catalogue-guard';
import { measurePicture, type PictureSize, readCatalogue } from './catalogue-read.server';
import { picturesShown } from './catalogue-snapshot.server';
import { type Editor, editorFor, editorOf } from './editors.server';
import { PREVIEW_REFUSALS } from './preview';
import { checkPreviewLink, type PreviewGrant, previewKey } from './preview-link.server';

/** The catalogue a preview shows. */
export interface PreviewCatalogue {
  /** Every product the next publish would build, by id, as the product and home pages take them. */
  products: Product[];
  /** The newest save it holds (0: none, the seed alone). */
  upTo: number;
  /** When it was read. */
  madeAt: Date;
  /** Products whose file differs from what shoppers are served (saved since the last publish). */
  changed: Set<number>;
  /** Why a publish now would fail ('file: reason'), when it would: those products are left out. */
  problems: string[];
  /** The pictures it shows, by name. */
  pictures: Set<string>;
  /** Each product's file (its form in the editor is /admin/catalogue/<file without .md>). */
  fileOf: Map<number, string>;
}

/** A picture's size and kind as astro:assets reads them, by name: a name never changes its bytes (see the migration). */
const measured = new Map<string, PictureSize>();

async function measure(db: Database, names: Iterable<string>, root: string): Promise<void> {
  const missing = [...names].filter((name) => !measured.has(name) && IMAGE_NAME.test(name));
  const uploaded: string[] = [];
  for (const name of missing) {
    const bytes = await readFile(join(root, SEED_PRODUCTS_DIR, PICTURES_DIR, name)).catch(() => null);
    if (bytes) await remember(name, bytes);
    else uploaded.push(name);
  }
  if (uploaded.length > 0) for (const [name, bytes] of await uploadedPictures(db, uploaded)) await remember(name, bytes);
}

async function remember(name: string, bytes: Uint8Array): Promise<void> {
  // Left unmeasured when it cannot be read: the product showing it is refused, as a publish would refuse it.
  const size = await measurePicture(name, bytes);
  if (size) measured.set(name, size);
}

const text = (files: Map<string, SavedFile>) => new Map([...files].map(([name, f]) => [name, f.text]));

/**
 * The catalogue as the next publish would build it, with pictures at `pictureUrl(name)`; `upTo` reads it as of another
 * save (tests: what was live).
 */
export async function previewCatalogue(
  db: Database,
  { pictureUrl, upTo, root = projectRoot() }: { pictureUrl: (name: string) => string; upTo?: number; root?: string },
): Promise<PreviewCatalogue> {
  const madeAt = new Date();
  const read = await asService(db, async (tx) => {
    const [newest] = await tx.query<{ id: string | number }>('select coalesce(max(id), 0) as id from public.catalogue_revisions');
    const at = upTo ?? Number(newest?.id ?? 0);
    return { at, files: await savedCatalogue(tx, at, root), live: await savedCatalogue(tx, await liveRevision(tx), root) };
  });
  const files = text(read.files);
  const pictures = picturesShown(files);
  await measure(db, pictures, root);
  const { problems, fileOf, ...catalogue } = readCatalogue(files, { sizeOf: (name) => measured.get(name), url: pictureUrl });
  // Priced as a publish now would be: a sale that runs now shows (and is what the checkout would charge).
  const products: Product[] = catalogue.products.map((p) => pricedAt(p, madeAt));
  const changed = new Set<number>();
  for (const [id, file] of fileOf) if (read.live.get(file)?.text !== files.get(file)) changed.add(id);
  return { products, upTo: read.at, madeAt, changed, problems, pictures, fileOf };
}

/** What the checkout charges for product `id` once this catalogue is published: the same index the checkout prices from. */
export function checkoutPriceCents(catalogue: Pick<PreviewCatalogue, 'products'>, id: number): number | null {
  return catalogueIndex(catalogue.products, (p) => p.images[0]?.src.src ?? '').get(id)?.priceCents ?? null;
}

/** A picture a preview shows, from the seed's folder or the uploaded ones; null when the preview shows no such picture. */
export async function previewPictureBytes(
  db: Database,
  name: string,
  shown: ReadonlySet<string>,
  root = projectRoot(),
): Promise<Uint8Array | null> {
  if (!IMAGE_NAME.test(name) || !shown.has(name)) return null;
  const seed = await readFile(join(root, SEED_PRODUCTS_DIR, PICTURES_DIR, name)).catch(() => null);
  if (seed) return new Uint8Array(seed);
  return (await uploadedPictures(db, [name])).get(name) ?? null;
}

// Who may see a preview ---------------------------------------------------------------------------------------------

/** Who is looking: an editor (or admin) by their session, or whoever holds a signed link. */
export type PreviewViewer = { editor: Editor; link: null } | { editor: null; link: { token: string; grant: PreviewGrant } };

export type PreviewAccess =
  | { ok: true; viewer: PreviewViewer }
  /** Not found: no session of an editor and no link (the admin's stranger's 404). */
  | { ok: false; status: 404 }
  | { ok: false; status: 403 | 410; title: string; message: string; linkProductId?: number };

/**
 * Whether the preview of product `productId` (null: the home page) opens for this request: with a `link` token, only
 * when the shop's key signed it, it has not expired, the account that made it may still edit the catalogue, and it is
 * this product's (or the home page); without one, only for an editor's session. A link is checked even when an editor
 * holds it: it then shows what its holder sees.
 */
export async function previewAccess(
  deps: AdminDeps & { timeZone: string },
  { jar, token, productId }: { jar: CookieJar; token: string | null; productId: number | null },
): Promise<PreviewAccess> {
  if (token === null) {
    const me = await editorOf(deps, jar);
    return me ? { ok: true, viewer: { editor: me.editor, link: null } } : { ok: false, status: 404 };
  }
  const check = checkPreviewLink(token, await previewKey(deps.db));
  if (!check.ok) {
    if (check.reason === 'invalid') return refusal('invalid', '');
    return refusal('expired', dateFormat(deps.timeZone, true).format(check.expiredAt));
  }
  const { grant } = check;
  if (!(await editorFor(deps.db, deps.adminEmails, grant.by))) return refusal('revoked', '');
  if (productId !== null && productId !== grant.productId)
    return { ...refusal('otherProduct', ''), linkProductId: grant.productId };
  return { ok: true, viewer: { editor: null, link: { token, grant } } };
}

function refusal(why: keyof typeof PREVIEW_REFUSALS, detail: string): Extract<PreviewAccess, { status: 403 | 410 }> {
  const words = PREVIEW_REFUSALS[why];
  return { ok: false, status: words.status, title: words.title, message: words.message(detail) };
}
