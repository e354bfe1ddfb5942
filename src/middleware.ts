import { defineMiddleware } from 'astro:middleware';
import { needsOriginCheck, problem, sameOrigin } from '@/server/http.server';
import { getServices } from '@/server/services.server';

const LOOPBACK = ['127.0.0.1', 'localhost', '[::1]'];

const isAdminPath = (path: string) => path === '/admin' || path.startsWith('/admin/');

/**
 * The origins our own pages are served from: the configured public origin, and on a developer's machine (a loopback
 * origin) the other loopback names for the same port, so http://localhost:4321 works as well as http://127.0.0.1:4321.
 */
function ownOrigins(publicOrigin: string): string[] {
  const url = new URL(publicOrigin);
  if (!LOOPBACK.includes(url.hostname)) return [publicOrigin];
  return LOOPBACK.map((host) => new URL(`${url.protocol}//${host}:${url.port}`).origin);
}

/**
 * Guards the on-demand routes: state-changing /api requests must come from our own pages (save the exceptions
 * `needsOriginCheck` names: the signed webhook, bearer-authenticated calls), and text PostgreSQL cannot store never
 * gets as far as a query. Security headers are added by the server in front (scripts/serve.mjs), which
 * also answers for the pre-rendered pages.
 */
export const onRequest = defineMiddleware(async ({ request, url }, next) => {
  if (isAdminPath(url.pathname)) {
    // An admin page (or the 404 a guest or shopper gets there) depends on who asks: never stored, never indexed.
    const response = await next();
    response.headers.set('cache-control', 'private, no-store');
    response.headers.set('x-robots-tag', 'noindex');
    return response;
  }
  if (!url.pathname.startsWith('/api/')) return next();
  if (/%00/.test(request.url)) return problem(400, 'invalid_text', 'The address contains a NUL character.');
  if (needsOriginCheck(request, url.pathname)) {
    const { config } = await getServices();
    if (!sameOrigin(request, ownOrigins(config.publicOrigin)))
      return problem(403, 'forbidden_origin', 'This request must come from the shop’s own pages.');
  }
  return next();
});
