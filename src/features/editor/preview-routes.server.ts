// The preview's endpoints (decision 014), written against their deps so tests run them with their own database and
// sessions: an editor makes a signed link to a product's preview; the preview's pictures are sent to whoever may see
// the preview (an editor's session, or a link). The pages themselves are src/pages/preview.
import { z } from 'astro/zod';
import { type AdminDeps, recordAction } from '@/features/admin/admin.server';
import { dateFormat } from '@/lib/dates';
import type { CookieJar } from '@/server/auth/auth.port';
import { json, problem, readJson } from '@/server/http.server';
import { savedCatalogue } from './catalogue-files.server';
import { fileProblems, PRODUCT_FILE } from './catalogue-guard';
import { requireEditorOf } from './editors.server';
import { PICTURE_CONTENT_TYPES, PICTURE_HEADERS } from './pictures';
import { PREVIEW_LINK_HOURS, previewProductHref } from './preview';
import { type PreviewAccess, previewAccess, previewCatalogue, previewPictureBytes } from './preview.server';
import { previewKey, signPreviewLink } from './preview-link.server';

/** What the preview's endpoints need of the server: the admin's deps, the shop's time zone and public origin. */
export interface PreviewDeps extends AdminDeps {
  timeZone: string;
  /** Links are written with it, never with the request's Host. */
  publicOrigin: string;
}

export const previewLinkBody = z
  .object({
    file: z.string().regex(PRODUCT_FILE, { error: 'Choose the product to preview.' }),
    hours: z.union(
      PREVIEW_LINK_HOURS.map((h) => z.literal(h)),
      {
        error: `Choose how long the link works: ${PREVIEW_LINK_HOURS.join(', ')} hours.`,
      },
    ),
  })
  .strict();

/** What a new link is: its address, until when it works, and that in words. */
export interface PreviewLink {
  url: string;
  expiresAt: string;
  message: string;
}

/**
 * POST {file, hours}: a signed link to the preview of that product (as saved) and of the home page, working for `hours`
 * (1 hour to 7 days), recorded in the activity log. Editors only: the admin's 404 to anyone else.
 */
export async function previewLinkRoute(deps: PreviewDeps, request: Request, jar: CookieJar): Promise<Response> {
  const me = await requireEditorOf(deps, jar);
  if (me instanceof Response) return me;
  const body = await readJson(request, previewLinkBody);
  if ('response' in body) return body.response;
  const saved = (await me.run((tx) => savedCatalogue(tx))).get(body.data.file);
  if (!saved) return problem(404, 'not_found', 'There is no such product.');
  const product = fileProblems(saved.text).product;
  if (!product)
    return problem(400, 'cannot_preview', 'This product cannot be built as it is saved, so it has no preview: fix it first.');
  // Kept to the second, as the link keeps it.
  const expiresAt = new Date(Math.floor(Date.now() / 1000 + body.data.hours * 3600) * 1000);
  const token = signPreviewLink({ productId: product.id, expiresAt, by: me.editor.id }, await previewKey(deps.db));
  const until = dateFormat(deps.timeZone, true).format(expiresAt);
  await me.run((tx) =>
    recordAction(tx, me.editor, {
      action: 'catalogue.preview_link',
      target: product.name,
      after: `a link to its preview, working until ${until}`,
    }),
  );
  const link: PreviewLink = {
    url: new URL(previewProductHref(product.id, token), deps.publicOrigin).href,
    expiresAt: expiresAt.toISOString(),
    message: `Anyone with this link can see the preview of ${product.name} (and of the home page) until ${until}, without an account. It opens nothing else.`,
  };
  return json(link, 201);
}

/** What a refused preview request is answered with: the status alone, in plain text (a picture has no page to show). */
function refused(access: Extract<PreviewAccess, { ok: false }>): Response {
  const words = 'title' in access ? access.title : 'Not found';
  return new Response(words, { status: access.status, headers: { 'content-type': 'text/plain; charset=utf-8' } });
}

/**
 * GET a picture a preview shows (by name; `token` is the link's, when the preview was opened by one). Sent so that it
 * can do nothing but be a picture, as the editor's own pictures are; never stored by a browser or a proxy.
 */
export async function previewPictureRoute(
  deps: PreviewDeps,
  jar: CookieJar,
  token: string | null,
  name: string,
): Promise<Response> {
  const access = await previewAccess(deps, { jar, token, productId: null });
  if (!access.ok) return refused(access);
  const { pictures } = await previewCatalogue(deps.db, { pictureUrl: (n) => n });
  const bytes = await previewPictureBytes(deps.db, name, pictures);
  const type = PICTURE_CONTENT_TYPES[name.split('.').pop()?.toLowerCase() ?? ''];
  if (!bytes || !type) return new Response('There is no such picture.', { status: 404 });
  return new Response(new Uint8Array(bytes), {
    headers: { 'content-type': type, ...PICTURE_HEADERS, 'cache-control': 'private, no-store' },
  });
}
