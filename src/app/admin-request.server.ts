import type { APIContext, AstroGlobal } from 'astro';
import { type AdminCaller, type AdminDeps, adminNotFound, adminOf } from '@/features/admin/admin.server';
import type { AdminOrderDeps } from '@/features/admin/orders/order-routes.server';
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

/** The caller if they are an admin, else null (a guest or a shopper): the admin then does not exist for them. */
export async function currentAdmin(context: Pick<APIContext, 'request' | 'cookies'>): Promise<AdminContext | null> {
  const services = await getServices();
  const caller = await adminOf(
    { db: services.db, auth: services.auth, adminEmails: services.config.adminEmails },
    cookieJar(context.request, context.cookies),
  );
  return caller && { ...caller, services };
}

/**
 * For an admin endpoint: the admin, or the 404 to return as it is. `const a = await requireAdmin(ctx); if (a instanceof
 * Response) return a;`
 */
export async function requireAdmin(context: Pick<APIContext, 'request' | 'cookies'>): Promise<AdminContext | Response> {
  return (await currentAdmin(context)) ?? adminNotFound();
}

/**
 * For an admin page (rendered on demand): the admin, or null when the caller is not one; the page then renders the
 * site's 404 (`return Astro.rewrite('/404')`), so the admin does not exist for a guest or a shopper. The middleware
 * marks every /admin answer private and unindexed.
 */
export function adminPage(astro: AstroGlobal): Promise<AdminContext | null> {
  return currentAdmin(astro);
}

/** What the admin's order endpoints need of the running server. */
export function adminOrderDeps(services: Services): AdminOrderDeps {
  const { db, auth, payments, nudgeOutbox, config } = services;
  return { db, auth, payments, nudgeOutbox, adminEmails: config.adminEmails, timeZone: config.shopTimeZone };
}

/** A catalogue editor's page caller: the editor (an admin, or an account with the editor role), and the services. */
export interface EditorContext extends EditorCaller {
  services: Services;
}

/**
 * For a catalogue editor's page (rendered on demand): the editor, or null for anyone else and for any request another
 * site's page made (a link or a form elsewhere, with the editor's cookie); the page then renders the site's 404, as
 * every admin page does for a stranger.
 */
export async function editorPage(astro: AstroGlobal): Promise<EditorContext | null> {
  if (fromAnotherSite(astro.request)) return null;
  const services = await getServices();
  const caller = await editorOf(
    { db: services.db, auth: services.auth, adminEmails: services.config.adminEmails },
    cookieJar(astro.request, astro.cookies),
  );
  return caller && { ...caller, services };
}
