// The editor's server side: Keystatic's local-mode API (reads and writes files under the project root), behind the
// catalogue guard, plus the pictures the form previews and the preview link to the product page.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { makeGenericAPIRouteHandler } from '@keystatic/core/api/generic';
import type { APIContext } from 'astro';
import { PICTURE_CONTENT_TYPES, PICTURE_HEADERS } from '@/features/editor/pictures';
import { frontMatter, IMAGES_DIR, PRODUCTS_DIR, updateProblem } from './catalogue-guard';
import config from './keystatic.config';

/** The project whose content/ the editor changes: the directory `npm run editor` runs in. */
const root = process.cwd();
const keystatic = makeGenericAPIRouteHandler({ config, localBaseDirectory: root });

const text = (status: number, body: string) =>
  new Response(body, { status, headers: { 'content-type': 'text/plain; charset=utf-8' } });

function decodeBase64Url(s: string): Uint8Array {
  return Uint8Array.from(atob(s.replace(/-/g, '+').replace(/_/g, '/')), (c) => c.charCodeAt(0));
}

/** Answers /api/keystatic/*: saves go through the catalogue guard first; a refused save writes nothing. */
export async function keystaticApi({ request, url }: APIContext): Promise<Response> {
  const rest = url.pathname.replace(/^\/api\/keystatic\/?/, '');
  if (request.method === 'GET' && rest.startsWith('editor-image/')) {
    const name = decodeURIComponent(rest.slice('editor-image/'.length));
    const type = PICTURE_CONTENT_TYPES[name.split('.').pop()?.toLowerCase() ?? ''];
    if (!type || name.includes('/') || name.startsWith('.')) return text(404, 'Not Found');
    try {
      // Served as the shop serves every picture: opened on its own, nothing in it runs or loads.
      const headers = { 'content-type': type, ...PICTURE_HEADERS };
      return new Response(await readFile(join(root, IMAGES_DIR, name)), { headers });
    } catch {
      return text(404, 'Not Found');
    }
  }
  let forwarded = request;
  if (request.method === 'POST' && rest === 'update') {
    const body = await request.text();
    let problem: string | null;
    try {
      const parsed = JSON.parse(body) as { additions: { path: string; contents: string }[]; deletions: { path: string }[] };
      problem = await updateProblem(root, {
        additions: parsed.additions.map((a) => ({ path: a.path, contents: decodeBase64Url(a.contents) })),
        deletions: parsed.deletions,
      });
    } catch {
      problem = 'The editor sent an update it could not read.';
    }
    if (problem) return text(400, problem);
    forwarded = new Request(request.url, { method: 'POST', headers: request.headers, body });
  }
  const { body, headers, status } = await keystatic(forwarded);
  return new Response(body as BodyInit | null, { status: status ?? 200, ...(headers ? { headers } : {}) });
}

/** Sends the editor from a product's preview link to its page on the shop (the editor's dev server renders it live). */
export async function previewRedirect({ params }: APIContext): Promise<Response> {
  const slug = params.slug ?? '';
  if (!/^[a-z0-9-]+$/.test(slug)) return text(404, 'Not Found');
  try {
    const data = frontMatter(await readFile(join(root, PRODUCTS_DIR, `${slug}.md`), 'utf8')) as { id?: unknown };
    if (typeof data.id !== 'number') return text(400, `${PRODUCTS_DIR}/${slug}.md has no numeric id yet.`);
    return new Response(null, { status: 302, headers: { location: `/product/${data.id}` } });
  } catch {
    return text(404, `${PRODUCTS_DIR}/${slug}.md is not saved yet.`);
  }
}
