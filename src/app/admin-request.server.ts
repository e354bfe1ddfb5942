import type { APIContext, AstroGlobal } from 'astro';
import { type AdminCaller, type AdminDeps, adminCallerOf, adminNotFound, catalogueOnly } from '@/features/admin/admin.server';
import type { AdminDiscountDeps } from '@/features/admin/discounts/discount-routes.server';
import type { AdminOrderDeps } from '@/features/admin/orders/order-routes.server';
import { getCatalogueIndex } from '@/features/catalogue/catalogue.server';
import { type EditorCaller, editorOf } from '@/features/editor/editors.server';
import { cookieJar, fromAnotherSite } from '@/server/http.server';
import { getServices, type Services } from './services.server';

// The admin's requests, resolved against the running server's services: pages and endpoints under /admin start here.

/** An admin page's caller: the admin, their way to the database, and the server's services. */
export interface AdminContext extends AdminCaller {
  services: Services;
}

/** The admin deps of the running server. */
export async function adminDeps(): Promise<AdminDeps> {
  const { db, auth, config } = await getServices();
  return { db, auth, adminEmails: config.adminEmails };
}

/**
 * For an admin endpoint: the admin, or the answer to return as it is (an editor's 403, anyone else's 404). `const a =
 * await requireAdmin(ctx); if (a instanceof Response) return a;`
 */
export async function requireAdmin(context: Pick<APIContext, 'request' | 'cookies'>): Promise<AdminContext | Response> {
  const services = await getServices();
  const caller = await adminCallerOf(
    { db: services.db, auth: services.auth, adminEmails: services.config.adminEmails },
    cookieJar(context.request, context.cookies),
  );
  if (caller === 'editor') return catalogueOnly();
  return caller ? { ...caller, services } : adminNotFound();
}

/** Where an editor is told, on a page, that they have catalogue access only (with a link to the catalogue). */
export const CATALOGUE_ONLY_PAGE = '/admin/catalogue-only';

/**
 * A request another site's page made by itself (a script, a frame, a form it sent, a link it followed for the person),
 * as opposed to a link the person followed from another site (an e-mail in a webmail), which is as good as a typed
 * address: a top-level navigation the browser marks as theirs (Sec-Fetch-User).
 */
function madeByAnotherSite(request: Request): boolean {
  const byThePerson =
    request.headers.get('sec-fetch-mode') === 'navigate' &&
    request.headers.get('sec-fetch-dest') === 'document' &&
    request.headers.get('sec-fetch-user') === '?1';
  return fromAnotherSite(request) && !byThePerson;
}

/**
 * For an admin page (rendered on demand): the admin, or the answer to return as it is. A guest or a shopper gets the
 * site's 404, so the admin does not exist for them; an editor is told they have catalogue access only (status 403), or,
 * with `editorsTo`, sent there. The middleware marks every /admin answer private and unindexed.
 */
export async function adminPage(astro: AstroGlobal, options: { editorsTo?: string } = {}): Promise<AdminContext | Response> {
  const services = await getServices();
  const caller = await adminCallerOf(
    { db: services.db, auth: services.auth, adminEmails: services.config.adminEmails },
    cookieJar(astro.request, astro.cookies),
  );
  if (caller === 'editor' && !madeByAnotherSite(astro.request))
    return options.editorsTo ? astro.redirect(options.editorsTo) : astro.rewrite(CATALOGUE_ONLY_PAGE);
  if (!caller || caller === 'editor') return astro.rewrite('/404');
  return { ...caller, services };
}

/** What the admin's order endpoints need of the running server. */
export function adminOrderDeps(services: Services): AdminOrderDeps {
  const { db, auth, payments, nudgeOutbox, config } = services;
  return {
    db,
    auth,
    payments,
    nudgeOutbox,
    adminEmails: config.adminEmails,
    timeZone: config.shopTimeZone,
    catalogue: getCatalogueIndex,
  };
}

/** What the admin's discount endpoints need of the running server. */
export async function adminDiscountDeps(): Promise<AdminDiscountDeps> {
  const { config } = await getServices();
  return { ...(await adminDeps()), timeZone: config.shopTimeZone, catalogue: getCatalogueIndex };
}

/** A catalogue editor's page caller: the editor (an admin, or an account with the editor role), and the services. */
export interface EditorContext extends EditorCaller {
  services: Services;
}

/**
 * For a catalogue editor's page (rendered on demand): the editor, or null for anyone else and for any request another
 * site's page made with the editor's cookie (a link it followed by itself, a form it sent; a link the editor followed,
 * the one in the e-mail granting the role, is theirs); the page then renders the site's 404, as every admin page does
 * for a stranger.
 */
export async function editorPage(astro: AstroGlobal): Promise<EditorContext | null> {
  if (madeByAnotherSite(astro.request)) return null;
  const services = await getServices();
  const caller = await editorOf(
    { db: services.db, auth: services.auth, adminEmails: services.config.adminEmails },
    cookieJar(astro.request, astro.cookies),
  );
  return caller && { ...caller, services };
}
