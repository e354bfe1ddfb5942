import { defineMiddleware } from 'astro:middleware';
import { getServices } from '@/app/services.server';
import { type CatalogueInUse, withCatalogue } from '@/features/catalogue/served-catalogue.server';
import { isDatabaseUnavailable } from '@/server/db/database.server';
import {
  BEARER_ENDPOINTS,
  fromAnotherSite,
  inSpecShape,
  needsOriginCheck,
  problem,
  SAFE_METHODS,
  sameOrigin,
} from '@/server/http.server';
import { adapterNames, logger, requestIdFrom, withRequestId } from '@/server/log.server';
import { observeRequest } from '@/server/metrics.server';

const LOOPBACK = ['127.0.0.1', 'localhost', '[::1]'];

/** Every endpoint's module, loaded only when its methods are first asked for (see endpointMethods). */
const API_MODULES = import.meta.glob<Record<string, unknown>>('./pages/api/**/*.ts');
const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;
const endpointMethodCache = new Map<string, Promise<readonly string[] | null>>();

/**
 * The methods the endpoint behind `routePattern` answers, as Astro dispatches them (HEAD with GET, every method with
 * ALL), or null when no endpoint is there. Astro answers a method an endpoint does not export with an HTML 404 page.
 */
export function endpointMethods(routePattern: string): Promise<readonly string[] | null> {
  let methods = endpointMethodCache.get(routePattern);
  if (!methods) {
    const load = API_MODULES[`./pages${routePattern}.ts`] ?? API_MODULES[`./pages${routePattern}/index.ts`];
    methods = load
      ? load().then((exports) =>
          METHODS.filter((method) =>
            ['ALL', method, ...(method === 'HEAD' ? ['GET'] : [])].some((name) => typeof exports[name] === 'function'),
          ),
        )
      : Promise.resolve(null);
    endpointMethodCache.set(routePattern, methods);
  }
  return methods;
}

const isAdminPath = (path: string) => path === '/admin' || path.startsWith('/admin/');
const isPreviewPath = (path: string) => path === '/preview' || path.startsWith('/preview/');

/** ownOrigins' answers: the public origin is set once at start-up, and parsing it for every request cost 1 %. */
const knownOrigins = new Map<string, string[]>();

/**
 * The origins our own pages are served from: the configured public origin, and on a developer's machine (a loopback
 * origin) the other loopback names for the same port, so http://localhost:4321 works as well as http://127.0.0.1:4321.
 */
function ownOrigins(publicOrigin: string): string[] {
  let origins = knownOrigins.get(publicOrigin);
  if (!origins) {
    const url = new URL(publicOrigin);
    origins = LOOPBACK.includes(url.hostname)
      ? LOOPBACK.map((host) => new URL(`${url.protocol}//${host}:${url.port}`).origin)
      : [publicOrigin];
    knownOrigins.set(publicOrigin, origins);
  }
  return origins;
}

/** Whether a request comes from one of our own pages (see sameOrigin). */
async function fromOwnPages(request: Request): Promise<boolean> {
  const { config } = await getServices();
  return sameOrigin(request, ownOrigins(config.publicOrigin));
}

/** A refusal by the middleware, in the shape the endpoint answers in: the spec's newsletter calls have their own. */
function refuse(url: URL, response: Response): Response | Promise<Response> {
  return BEARER_ENDPOINTS.has(url.pathname) ? inSpecShape(response) : response;
}

declare global {
  namespace App {
    interface Locals {
      /**
       * The catalogue a release is rendered with (decision 019): given only by the server itself, on its private
       * listener for rendering a release (src/features/editor/release.server.ts), never by a request.
       */
      catalogueRender?: CatalogueInUse;
    }
  }
}

/**
 * Gives every request that reaches the app an id (the incoming X-Request-Id when it is a sane one, else a new one),
 * runs it as that request (its log lines, and the outbox jobs it queues, carry the id), sends the id back, and logs
 * and counts the answer. Then `guard` does the rest.
 */
export const onRequest = defineMiddleware(async (context, next) => {
  const { request, routePattern } = context;
  const requestId = requestIdFrom(request.headers.get('x-request-id'));
  const started = performance.now();
  let response: Response;
  try {
    const render = context.locals.catalogueRender;
    response = render
      ? // A release's page: rendered whole while it reads the release's catalogue (a page streamed after this returned
        // would read the catalogue served then instead).
        await withCatalogue(render, async () => {
          const rendered = await withRequestId(requestId, () => guard(context, next));
          return new Response(await rendered.arrayBuffer(), rendered);
        })
      : await withRequestId(requestId, () => guard(context, next));
  } catch (error) {
    answered(request.method, routePattern, 500, started, requestId, error);
    throw error;
  }
  try {
    response.headers.set('x-request-id', requestId);
  } catch {
    // A response with immutable headers (Response.redirect): the same answer, with headers that can be set.
    response = new Response(response.body, response);
    response.headers.set('x-request-id', requestId);
  }
  answered(request.method, routePattern, response.status, started, requestId);
  return response;
});

const requests = logger('http');

/**
 * The request's line and metrics: its method, route pattern (`/api/orders/[id]`, never the path with its ids or the
 * query string with its tokens), status, duration and id, with the adapters the shop runs with. The duration is to
 * the response's headers: a page that streams its body may take longer to finish.
 */
function answered(method: string, route: string, status: number, started: number, requestId: string, error?: unknown) {
  const seconds = (performance.now() - started) / 1000;
  observeRequest(method, route, status, seconds);
  const line = { method, route, status, ms: Math.round(seconds * 1000), requestId, adapters: adapterNames() };
  // An exception is an error; a 5xx the app chose (a vendor down, not ready yet, the database restarting) a warning:
  // its cause has its own line.
  if (error) requests.error({ ...line, err: error }, 'request failed');
  else if (status >= 500) requests.warn(line, 'request answered');
  else requests.info(line, 'request answered');
}

type Context = Parameters<Parameters<typeof defineMiddleware>[0]>[0];
type Next = Parameters<Parameters<typeof defineMiddleware>[0]>[1];

/**
 * Guards the on-demand routes. Under /api: an unknown path or method is a JSON 404 or 405 (Astro would answer its HTML
 * 404 page), state-changing requests must come from our own pages (save the exceptions `needsOriginCheck` names: the
 * signed webhook, bearer-authenticated calls), and text PostgreSQL cannot store never gets as far as a query. On-demand
 * pages take no state-changing request from elsewhere either: this replaces Astro's `checkOrigin`, which answers in
 * plain text (and ran before this, so /api could not answer in JSON). Security headers are added by the server in front
 * (scripts/serve.mjs), which also answers for the pre-rendered pages.
 */
async function guard({ request, url, routePattern }: Context, next: Next): Promise<Response> {
  if (!url.pathname.startsWith('/api/')) {
    if (!SAFE_METHODS.has(request.method) && !(await fromOwnPages(request)))
      return new Response(`Cross-site ${request.method} requests are forbidden.`, { status: 403 });
    if (isPreviewPath(url.pathname)) {
      // A preview (decision 014) shows what is not published, to an editor or a link's holder: never stored, never
      // indexed (its pictures too), and its address, which may hold a link's token, never sent on as a referrer.
      const response = await next();
      response.headers.set('cache-control', 'private, no-store');
      response.headers.set('x-robots-tag', 'noindex, nofollow');
      response.headers.set('referrer-policy', 'no-referrer');
      return response;
    }
    if (!isAdminPath(url.pathname)) return next();
    // An admin page (or the 404 a guest or shopper gets there) depends on who asks: never stored. No noindex is
    // needed: a search engine's crawler is never an admin, so all it can get here is the 404.
    const response = await next();
    response.headers.set('cache-control', 'private, no-store');
    return response;
  }
  // Every /api answer is JSON, including the ones Astro would give as its HTML 404 page.
  const methods = await endpointMethods(routePattern);
  if (!methods) return refuse(url, problem(404, 'not_found', 'There is no such API endpoint.'));
  if (!methods.includes(request.method))
    return refuse(
      url,
      problem(405, 'method_not_allowed', `This endpoint does not answer ${request.method} requests.`, {
        allow: methods.join(', '),
      }),
    );
  if (/%00/.test(request.url)) return refuse(url, problem(400, 'invalid_text', 'The address contains a NUL character.'));
  if (needsOriginCheck(request, url.pathname) && !(await fromOwnPages(request)))
    return refuse(url, problem(403, 'forbidden_origin', 'This request must come from the shop’s own pages.'));
  // The admin's reads too (exports, packing slips): an admin's browser sends its cookie with a link or a form from
  // another site, which must not start an export, nor record one. A bookmark or a typed address says `none`.
  if (url.pathname.startsWith('/api/admin/') && fromAnotherSite(request))
    return problem(403, 'forbidden_origin', 'This request must come from the shop’s own pages.');
  try {
    return await next();
  } catch (error) {
    // The database restarting or failing over: a clear answer the page can retry on, not Astro's 500 page.
    if (!isDatabaseUnavailable(error)) throw error;
    requests.warn({ method: request.method, route: routePattern, err: error }, 'the database is unavailable');
    return refuse(
      url,
      problem(503, 'unavailable', 'The shop is briefly unavailable. Please try again in a moment.', { 'retry-after': '5' }),
    );
  }
}
