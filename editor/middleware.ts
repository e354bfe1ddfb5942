import { defineMiddleware } from 'astro:middleware';
import { keystaticApi, previewRedirect } from './api';

/**
 * Runs before the shop's own middleware and answers the editor's routes itself, so the shop's /api guards (which start
 * the database to learn the public origin) never run for them.
 */
export const onRequest = defineMiddleware((context, next) => {
  if (context.url.pathname.startsWith('/api/keystatic/')) return keystaticApi(context);
  const preview = /^\/editor\/preview\/([^/]+)$/.exec(context.url.pathname);
  if (preview) return previewRedirect({ ...context, params: { slug: decodeURIComponent(preview[1] ?? '') } });
  return next();
});
