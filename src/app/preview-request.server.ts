import type { AstroGlobal } from 'astro';
import type { CatalogueIndex } from '@/features/catalogue/catalogue';
import { getCatalogueIndex } from '@/features/catalogue/catalogue.server';
import { LINK_PARAM, previewPictureHref, previewProductHref } from '@/features/editor/preview';
import { type PreviewCatalogue, type PreviewViewer, previewAccess, previewCatalogue } from '@/features/editor/preview.server';
import type { PreviewDeps } from '@/features/editor/preview-routes.server';
import { cookieJar } from '@/server/http.server';
import { getServices } from './services.server';

// The preview pages' requests (src/pages/preview), resolved against the running server's services.

/** What the preview's pages and endpoints need of the running server. */
export async function previewDeps(): Promise<PreviewDeps> {
  const { db, auth, config } = await getServices();
  return {
    db,
    auth,
    adminEmails: config.adminEmails,
    timeZone: config.shopTimeZone,
    publicOrigin: config.publicOrigin,
  };
}

export type OpenPreview =
  /** Neither an editor's session nor a link: the page renders the site's 404, as the admin does for a stranger. */
  | { ok: false; status: 404 }
  | { ok: false; status: 403 | 410; title: string; message: string; next: { href: string; label: string } | null }
  | {
      ok: true;
      viewer: PreviewViewer;
      /** The link's token when it opened the preview (every address on the page carries it), else null. */
      token: string | null;
      catalogue: PreviewCatalogue;
      timeZone: string;
      /** What the checkout charges today: the catalogue the server serves. */
      live: CatalogueIndex;
    };

/** Opens the preview of product `productId` (null: the home page) for this request, or says why it does not open. */
export async function openPreview(astro: AstroGlobal, productId: number | null): Promise<OpenPreview> {
  const deps = await previewDeps();
  const token = astro.url.searchParams.get(LINK_PARAM);
  const access = await previewAccess(deps, { jar: cookieJar(astro.request, astro.cookies), token, productId });
  if (!access.ok) {
    if (!('title' in access)) return access;
    const { linkProductId, ...words } = access;
    const next = linkProductId
      ? { href: previewProductHref(linkProductId, token), label: 'See the product this link is for' }
      : null;
    return { ...words, next };
  }
  const catalogue = await previewCatalogue(deps.db, { pictureUrl: (name) => previewPictureHref(name, token) });
  return { ok: true, viewer: access.viewer, token, catalogue, timeZone: deps.timeZone, live: await getCatalogueIndex() };
}
