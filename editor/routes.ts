// Routes for the editor's middleware to answer (editor/middleware.ts); Astro needs a route to match before it runs it.
import type { APIRoute } from 'astro';
import { keystaticApi, previewRedirect } from './api';

export const prerender = false;
export const ALL: APIRoute = (context) =>
  context.url.pathname.startsWith('/api/keystatic/') ? keystaticApi(context) : previewRedirect(context);
