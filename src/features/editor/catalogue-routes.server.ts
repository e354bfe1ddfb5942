// The catalogue editor's endpoints, written against AdminDeps so tests run them with their own database and sessions;
// the files under src/pages/api/admin/catalogue only hand them the server's services. Each asks requireEditorOf first:
// a guest or a shopper gets the admin's 404 before the body is read. The editor-role endpoints are the admin's.
import { z } from 'astro/zod';
import { type AdminDeps, requireAdminOf } from '@/features/admin/admin.server';
import type { CookieJar } from '@/server/auth/auth.port';
import { json, problem, readBodyBytes, readJson } from '@/server/http.server';
import {
  createBody,
  createProduct,
  pictureBytes,
  productFieldsBody,
  productForm,
  productList,
  type Refused,
  type SaveBody,
  saveProduct,
  undoSave,
  uploadPicture,
} from './catalogue-edit.server';
import { catalogueExport, exportZip } from './catalogue-export.server';
import { listEditors, requireEditorOf, setEditorRole } from './editors.server';
import { MAX_PICTURE_BYTES, PICTURE_CONTENT_TYPES, PICTURE_HEADERS } from './pictures';
import { publishState, requestPublish } from './publish.server';
import { servePublishAgain } from './publish-again.server';
import { bodyWords, refusalMessage } from './refusal-words';
import { choiceBody, chooseVersion } from './repository-choice.server';

const notFound = () => problem(404, 'not_found', 'There is no such product.');

/**
 * A refused save, undo or new product: the one error shape, and for a product the shop cannot take, `field` (the first
 * refusal's) and `problems` (each refusal with its field, in the shop's words) for the form to show beside its fields.
 */
function refused(result: Refused): Response {
  const { status, code, message, problems } = result;
  if (!problems?.length) return problem(status, code, message);
  return json({ error: { code, message, field: problems[0]?.field, problems } }, status);
}

/** The save's body: `fields` is read against the form's schema apart, so that each problem is said beside its field. */
const saveEnvelope = z.object({ base: z.number().int().nonnegative(), fields: z.record(z.string(), z.unknown()) }).strict();

/** The form's fields read against productFieldsBody, or every problem with them in words. */
function readFields(fields: Record<string, unknown>): { data: SaveBody['fields'] } | { response: Response } {
  const parsed = productFieldsBody.safeParse(fields);
  if (parsed.success) return { data: parsed.data };
  const problems = parsed.error.issues.map((i) =>
    bodyWords({ ...i, path: i.path.filter((p) => typeof p !== 'symbol') as (string | number)[] }, fields),
  );
  return { response: refused({ ok: false, status: 400, code: 'invalid_request', message: refusalMessage(problems), problems }) };
}

/** GET: the products, each marked when it has saves shoppers do not see yet. */
export async function catalogueListRoute(deps: AdminDeps, jar: CookieJar): Promise<Response> {
  const me = await requireEditorOf(deps, jar);
  if (me instanceof Response) return me;
  return json({ products: await me.run(productList) });
}

/** POST {from, name, sku}: a new product, a copy of `from` with the next free id; the answer names its file. */
export async function catalogueCreateRoute(deps: AdminDeps, request: Request, jar: CookieJar): Promise<Response> {
  const me = await requireEditorOf(deps, jar);
  if (me instanceof Response) return me;
  const body = await readJson(request, createBody);
  if ('response' in body) return body.response;
  const result = await createProduct(me, body.data);
  if (!result.ok) return refused(result);
  return json({ ...result, message: `Created ${body.data.name} (${result.file}).` }, 201);
}

/** GET: a product's form (fields, read-only facts, history). */
export async function catalogueProductRoute(deps: AdminDeps, jar: CookieJar, slug: string): Promise<Response> {
  const me = await requireEditorOf(deps, jar);
  if (me instanceof Response) return me;
  const form = await me.run((tx) => productForm(tx, `${slug}.md`));
  return form ? json(form) : notFound();
}

/**
 * POST {base, fields}: saves the product; the answer is the form as saved, what the save changed in words, and what
 * it does beyond the product (`notice`: a colour removed, what becomes of its carts and orders), or null.
 */
export async function catalogueSaveRoute(deps: AdminDeps, request: Request, jar: CookieJar, slug: string): Promise<Response> {
  const me = await requireEditorOf(deps, jar);
  if (me instanceof Response) return me;
  const body = await readJson(request, saveEnvelope);
  if ('response' in body) return body.response;
  const fields = readFields(body.data.fields);
  if ('response' in fields) return fields.response;
  const file = `${slug}.md`;
  const result = await saveProduct(me, file, { base: body.data.base, fields: fields.data });
  if (!result.ok) return refused(result);
  const form = await me.run((tx) => productForm(tx, file));
  return json({
    saved: result.saved,
    summary: result.summary,
    at: result.at,
    message: result.saved ? 'Saved' : 'Nothing to save: the product is as you left it.',
    notice: result.notice,
    form,
  });
}

/**
 * POST {change, base, choice: 'keep' | 'take'}: for a product changed in the repository, keeps the saved version or
 * takes the repository's (either a save); the answer is the product's form, as a save's is.
 */
export async function catalogueRepositoryChoiceRoute(
  deps: AdminDeps,
  request: Request,
  jar: CookieJar,
  slug: string,
): Promise<Response> {
  const me = await requireEditorOf(deps, jar);
  if (me instanceof Response) return me;
  const body = await readJson(request, choiceBody);
  if ('response' in body) return body.response;
  const file = `${slug}.md`;
  const result = await chooseVersion(me, file, body.data);
  if (!result.ok) return refused(result);
  const form = await me.run((tx) => productForm(tx, file));
  return json({
    saved: result.saved,
    summary: result.summary,
    at: result.at,
    message: body.data.choice === 'keep' ? 'Kept the saved version' : 'Took the repository’s version',
    notice: result.notice,
    form,
  });
}

/**
 * GET: the catalogue as saved, as the next publish would build it, in a .zip to unzip at the project's root
 * (content/products/*.md and the uploaded pictures in content/products/images/), for a developer to commit.
 */
export async function catalogueExportRoute(deps: AdminDeps, jar: CookieJar): Promise<Response> {
  const me = await requireEditorOf(deps, jar);
  if (me instanceof Response) return me;
  const at = new Date();
  const bytes = exportZip(await catalogueExport(deps.db), at);
  return new Response(new Uint8Array(bytes), {
    headers: {
      'content-type': 'application/zip',
      'content-disposition': `attachment; filename="aurelia-catalogue-${at.toISOString().slice(0, 10)}.zip"`,
      'cache-control': 'private, no-store',
    },
  });
}

const undoBody = z.object({ revision: z.number().int().positive() }).strict();

/** POST {revision}: undoes that save (a new save of the text before it); the answer is the product's form. */
export async function catalogueUndoRoute(deps: AdminDeps, request: Request, jar: CookieJar): Promise<Response> {
  const me = await requireEditorOf(deps, jar);
  if (me instanceof Response) return me;
  const body = await readJson(request, undoBody);
  if ('response' in body) return body.response;
  const result = await undoSave(me, body.data.revision);
  if (!result.ok) return refused(result);
  const form = result.file ? await me.run((tx) => productForm(tx, result.file ?? '')) : null;
  return json({
    saved: result.saved,
    summary: result.summary,
    at: result.at,
    message: result.saved ? 'Undone and saved' : 'Nothing to undo: the product is already as it was before that save.',
    notice: result.notice,
    form,
  });
}

/**
 * POST the picture's bytes (any content type; what they are is read from them), `?name=<the file's name>`: stored
 * under a name with a digest of them. 1 MB at most.
 */
export async function cataloguePictureUploadRoute(deps: AdminDeps, request: Request, jar: CookieJar): Promise<Response> {
  const me = await requireEditorOf(deps, jar);
  if (me instanceof Response) {
    request.body?.cancel().catch(() => {});
    return me;
  }
  const body = await readBodyBytes(request, MAX_PICTURE_BYTES);
  if ('response' in body)
    return body.response.status === 413
      ? problem(413, 'too_large', 'The picture is larger than 1 MB: save it smaller and upload it again.')
      : body.response;
  const fileName = new URL(request.url).searchParams.get('name') ?? 'picture';
  const result = await uploadPicture(me, fileName.slice(0, 200), new Uint8Array(body.bytes));
  if (!result.ok) return problem(result.status, result.code, result.message);
  return json({ name: result.name, src: result.src, message: `Uploaded as ${result.name}.` }, 201);
}

/**
 * GET a picture for the editor's preview. Served so that it can do nothing but be a picture, even opened on its own:
 * a CSP that runs nothing and loads nothing, sandboxed, never sniffed as another type.
 */
export async function cataloguePictureRoute(deps: AdminDeps, jar: CookieJar, name: string): Promise<Response> {
  const me = await requireEditorOf(deps, jar);
  if (me instanceof Response) return me;
  const bytes = await pictureBytes(me, name);
  const type = PICTURE_CONTENT_TYPES[name.split('.').pop()?.toLowerCase() ?? ''];
  if (!bytes || !type) return problem(404, 'not_found', 'There is no such picture.');
  return new Response(new Uint8Array(bytes), {
    headers: {
      'content-type': type,
      ...PICTURE_HEADERS,
      'cache-control': 'private, max-age=3600',
    },
  });
}

/** GET: the publish panel's state (what is live, the newest publish, saves not yet published). */
export async function cataloguePublishStateRoute(deps: AdminDeps, jar: CookieJar): Promise<Response> {
  const me = await requireEditorOf(deps, jar);
  if (me instanceof Response) return me;
  return json(await publishState(deps.db));
}

/** POST: queues a publish of everything saved (the background build then takes it). */
export async function cataloguePublishRoute(deps: AdminDeps, jar: CookieJar): Promise<Response> {
  const me = await requireEditorOf(deps, jar);
  if (me instanceof Response) return me;
  const publish = await requestPublish(deps.db, { id: me.editor.id, email: me.editor.email });
  return json({ publish, state: await publishState(deps.db) }, 202);
}

const againBody = z
  .object({
    publishId: z
      .number()
      .int()
      .positive()
      .max(2 ** 53 - 1),
  })
  .strict();

/** POST {publishId}: serves an earlier publish again (decision 019), recorded in the activity log. Editors only. */
export async function cataloguePublishAgainRoute(deps: AdminDeps, request: Request, jar: CookieJar): Promise<Response> {
  const me = await requireEditorOf(deps, jar);
  if (me instanceof Response) return me;
  const body = await readJson(request, againBody);
  if ('response' in body) return body.response;
  const result = await servePublishAgain(deps.db, { id: me.editor.id, email: me.editor.email }, body.data.publishId);
  if (!result.ok) return problem(result.status, result.code, result.message);
  return json({ publish: result.publish, state: await publishState(deps.db) }, 200);
}

/** GET: the accounts with the editor role. Admins only. */
export async function editorsListRoute(deps: AdminDeps, jar: CookieJar): Promise<Response> {
  const me = await requireAdminOf(deps, jar);
  if (me instanceof Response) return me;
  return json({ editors: await me.run(listEditors) });
}

const roleBody = z
  .object({
    email: z
      .string()
      .trim()
      .max(254)
      .pipe(z.email({ error: 'Enter the e-mail address of their account.' })),
    editor: z.boolean(),
  })
  .strict();

/** POST {email, editor}: grants (true) or removes (false) the editor role, recorded in the activity log. Admins only. */
export async function editorsSetRoute(deps: AdminDeps, request: Request, jar: CookieJar): Promise<Response> {
  const me = await requireAdminOf(deps, jar);
  if (me instanceof Response) return me;
  const body = await readJson(request, roleBody);
  if ('response' in body) return body.response;
  const result = await setEditorRole(me, body.data.email, body.data.editor);
  if (!result.ok) return problem(result.status, result.code, result.message);
  return json({ changed: result.changed, message: result.message, editors: await me.run(listEditors) });
}
