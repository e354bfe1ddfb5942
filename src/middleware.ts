import { defineMiddleware } from 'astro:middleware';
import { problem, sameOrigin } from '@/server/http.server';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Guards the on-demand routes: state-changing /api requests must come from our own pages, and answers are hardened. */
export const onRequest = defineMiddleware(async ({ request, url }, next) => {
  if (url.pathname.startsWith('/api/') && !SAFE_METHODS.has(request.method)) {
    const allowed = process.env.SITE_URL ? [new URL(process.env.SITE_URL).origin] : [];
    if (!sameOrigin(request, allowed))
      return problem(403, 'forbidden_origin', 'This request must come from the shop’s own pages.');
  }
  const response = await next();
  response.headers.set('x-content-type-options', 'nosniff');
  response.headers.set('referrer-policy', 'strict-origin-when-cross-origin');
  response.headers.set('x-frame-options', 'DENY');
  return response;
});
