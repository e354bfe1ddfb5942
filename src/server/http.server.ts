import type { APIContext, AstroCookies } from 'astro';
import type { z } from 'astro/zod';
import type { CookieJar } from './auth/auth.port';
import type { Config } from './config.server';

/** A JSON answer. */
export function json(data: unknown, status = 200, headers: HeadersInit = {}): Response {
  return new Response(JSON.stringify(data), {
    status,
    headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', ...headers },
  });
}

/** A 4xx/5xx answer in the one error shape every endpoint uses: {error: {code, message}}. */
export function problem(status: number, code: string, message: string, headers: HeadersInit = {}): Response {
  return json({ error: { code, message } }, status, headers);
}

/** 429 with Retry-After, for a rate limit. */
export function tooManyRequests(retryAfter: number, message: string): Response {
  return problem(429, 'rate_limited', message, { 'retry-after': String(retryAfter) });
}

/** The largest JSON body an endpoint reads: every form of the shop fits in a fraction of it. */
export const MAX_BODY_BYTES = 16 * 1024;
/** How long a body may take to arrive once its headers have: a client that stops sending is cut off, not waited for. */
export const BODY_TIMEOUT_MS = 10_000;

type BodyText = { text: string } | { response: Response };
type BodyBytes = { bytes: Buffer } | { response: Response };

/**
 * Stops reading a body without waiting for the stop to complete: cancelling a Node request's stream settles only once
 * its next chunk arrives, which for a stalled client is never.
 */
function abandon(body: ReadableStream | ReadableStreamDefaultReader | null | undefined): void {
  body?.cancel().catch(() => {});
}

/**
 * Reads a request body as text without ever holding more than MAX_BODY_BYTES of it: a declared Content-Length over the
 * limit is refused before the first byte is read, a streamed body is cancelled at the limit, and a body that stalls is
 * cancelled after BODY_TIMEOUT_MS.
 */
async function readBodyText(request: Request, maxBytes = MAX_BODY_BYTES): Promise<BodyText> {
  const body = await readBodyBytes(request, maxBytes);
  return 'response' in body ? body : { text: body.bytes.toString('utf8') };
}

/** A body's bytes, read within `maxBytes` and the time limit as readBodyText reads text (a picture upload). */
export async function readBodyBytes(request: Request, maxBytes: number): Promise<BodyBytes> {
  // Made only when needed: a Response costs more than reading a small body (2.5 % of a cart save in a profile).
  const tooLarge = () => ({ response: problem(413, 'too_large', 'The request body is too large.') });
  const declared = Number(request.headers.get('content-length') ?? '0');
  if (!request.body) return { bytes: Buffer.alloc(0) };
  if (!Number.isFinite(declared) || declared > maxBytes) {
    abandon(request.body);
    return tooLarge();
  }
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), BODY_TIMEOUT_MS);
  });
  try {
    for (;;) {
      const next = await Promise.race([reader.read(), timedOut]);
      if (next === 'timeout') {
        abandon(reader);
        return { response: problem(408, 'body_timeout', 'The request body did not arrive in time.') };
      }
      if (next.done) break;
      size += next.value.byteLength;
      if (size > maxBytes) {
        abandon(reader);
        return tooLarge();
      }
      chunks.push(next.value);
    }
  } finally {
    clearTimeout(timer);
  }
  return { bytes: Buffer.concat(chunks) };
}

/**
 * A body as text, exactly as sent (a webhook's signature covers the raw bytes), within `maxBytes` and the same time
 * limit as JSON bodies.
 */
export function readRawBody(request: Request, maxBytes: number): Promise<BodyText> {
  return readBodyText(request, maxBytes);
}

/** How deep a request body may nest arrays and objects; every body the shop takes is a few levels deep. */
export const MAX_JSON_DEPTH = 32;

/**
 * What is wrong with a parsed body's shape, if anything: nesting deeper than MAX_JSON_DEPTH, or the path to the first
 * string (value or key) that holds a NUL character, which PostgreSQL cannot store. A loop, not recursion, so no body
 * can exhaust the stack however deep it is.
 */
function shapeProblem(value: unknown): { tooDeep: true } | { nul: string } | null {
  const stack: { value: unknown; path: string; depth: number }[] = [{ value, path: 'the request', depth: 0 }];
  for (let next = stack.pop(); next; next = stack.pop()) {
    const { value: item, path, depth } = next;
    if (typeof item === 'string') {
      if (item.includes('\u0000')) return { nul: path };
      continue;
    }
    if (!item || typeof item !== 'object') continue;
    if (depth >= MAX_JSON_DEPTH) return { tooDeep: true };
    // Pushed in reverse, so the first field with a NUL is the one named.
    const entries = Array.isArray(item) ? item.map((v) => ['', v] as const) : Object.entries(item);
    for (let i = entries.length - 1; i >= 0; i--) {
      const [key, child] = entries[i] as readonly [string, unknown];
      if (key.includes('\u0000')) return { nul: 'the request' };
      stack.push({ value: child, path: path === 'the request' && key ? key : path, depth: depth + 1 });
    }
  }
  return null;
}

/**
 * Reads and validates a JSON body: 415 for another media type, 413 when too large, 408 when it stalls, 400 for broken
 * JSON or JSON nested too deeply, text with NUL characters, or the schema's first problem.
 */
export async function readJson<S extends z.ZodType>(
  request: Request,
  schema: S,
): Promise<{ data: z.infer<S> } | { response: Response }> {
  if (!(request.headers.get('content-type') ?? '').toLowerCase().startsWith('application/json')) {
    abandon(request.body);
    return { response: problem(415, 'unsupported_media_type', 'Send the request body as application/json.') };
  }
  const body = await readBodyText(request);
  if ('response' in body) return body;
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.text);
  } catch {
    return { response: problem(400, 'invalid_json', 'The request body is not valid JSON.') };
  }
  const shape = shapeProblem(parsed);
  if (shape && 'tooDeep' in shape) return { response: problem(400, 'invalid_json', 'The request body is nested too deeply.') };
  if (shape) {
    const field = shape.nul === 'the request' ? 'request' : `field "${shape.nul}"`;
    return { response: problem(400, 'invalid_text', `The ${field} contains a NUL character, which is not allowed in text.`) };
  }
  const result = schema.safeParse(parsed);
  if (!result.success) {
    const issue = result.error.issues[0];
    return { response: problem(400, 'invalid_request', issue?.message ?? 'The request is not valid.') };
  }
  return { data: result.data };
}

/**
 * The shopper's address, for per-address rate limits. Behind `trustedHops` proxies, each of which appends the address
 * it saw to X-Forwarded-For, the client is the entry that many hops from the right; anything further left was written
 * by the client itself and is ignored. With no trusted proxy the header is ignored entirely (anyone can send it).
 */
export function clientAddressFrom(request: Request, socketAddress: string, trustedHops: number): string {
  if (trustedHops <= 0) return socketAddress;
  const forwarded = (request.headers.get('x-forwarded-for') ?? '')
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean);
  const chain = [socketAddress, ...forwarded.reverse()];
  return chain[Math.min(trustedHops, chain.length - 1)] ?? socketAddress;
}

/**
 * The request's cookies as a jar (what @supabase/ssr calls getAll/setAll), writing through Astro's cookies. Like a
 * browser, it reads back what this request set: login asks for the session it has just started (to record activity),
 * and must see the new cookie, not the one the request came with.
 */
export function cookieJar(request: Request, cookies: AstroCookies): CookieJar {
  const written = new Map<string, string | null>();
  return {
    getAll() {
      const sent = (request.headers.get('cookie') ?? '')
        .split(';')
        .map((part) => part.trim())
        .filter(Boolean)
        .map((part) => {
          const eq = part.indexOf('=');
          const name = eq < 0 ? part : part.slice(0, eq);
          const raw = eq < 0 ? '' : part.slice(eq + 1);
          let value = raw;
          try {
            value = decodeURIComponent(raw);
          } catch {
            // Not percent-encoded: keep it as it came.
          }
          return { name, value };
        })
        .filter(({ name }) => !written.has(name));
      const set = [...written].flatMap(([name, value]) => (value === null ? [] : [{ name, value }]));
      return [...sent, ...set];
    },
    set(name, value, options) {
      const expired = options.maxAge === 0 || (options.expires !== undefined && options.expires.getTime() <= Date.now());
      written.set(name, expired || value === '' ? null : value);
      cookies.set(name, value, { ...options, encode: encodeURIComponent });
    },
  };
}

/** The client's address for per-address rate limits, read through the configured number of trusted proxies. */
export function clientAddress(
  { request, clientAddress: socketAddress }: Pick<APIContext, 'request' | 'clientAddress'>,
  config: Pick<Config, 'trustProxyHops'>,
): string {
  return clientAddressFrom(request, socketAddress, config.trustProxyHops);
}

/**
 * Whether a state-changing request comes from our own pages. Astro's checkOrigin stops cross-site form posts but lets
 * a cross-site JSON POST through, so the middleware checks the Origin header itself (and Astro's check is off).
 */
export function sameOrigin(request: Request, allowed: readonly string[]): boolean {
  // Not the request's own URL: its host comes from the Host header, which whoever sends the request chooses.
  const origin = request.headers.get('origin');
  if (!origin) return false;
  if (request.headers.get('sec-fetch-site') === 'cross-site') return false;
  return allowed.includes(origin);
}

/**
 * Whether a browser says another site's page made this request (Sec-Fetch-Site, which a page cannot set): a link, a
 * form or a script on another site, a sibling subdomain's included. A GET that starts something an admin must mean
 * (an export, recorded as their action) refuses it even though it changes no data.
 */
export function fromAnotherSite(request: Request): boolean {
  const site = request.headers.get('sec-fetch-site');
  return site === 'cross-site' || site === 'same-site';
}

/** Methods that change nothing: no Origin check. */
export const SAFE_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'OPTIONS']);
/** Called by the payment processor's servers, not our pages: it verifies a signature on the raw body instead. */
const SIGNED_WEBHOOKS = new Set(['/api/stripe-webhook']);
/**
 * Endpoints that clients other than our pages may call with `Authorization: Bearer <token>` (the spec's newsletter
 * calls). Exact paths: any other spelling gets the Origin check.
 */
export const BEARER_ENDPOINTS: ReadonlySet<string> = new Set(['/api/newsletter-status', '/api/newsletter-subscribe']);

/** The headers of a refusal worth keeping when it is rewritten: how long to wait, which credential, which methods. */
const KEPT_HEADERS = ['retry-after', 'www-authenticate', 'allow'];

/**
 * The newsletter's bearer clients read `error` as text (they compare it with 'This email is already subscribed' and
 * show it after 'Subscription failed'), so BEARER_ENDPOINTS answer a failure as {error: message, code} rather than the
 * shop's usual {error: {code, message}}, as create-shipment does for its own spec answer. Status and headers stay.
 */
export async function inSpecShape(response: Response): Promise<Response> {
  if (response.ok) return response;
  const { error } = (await response.json()) as { error: { code: string; message: string } };
  return json({ error: error.message, code: error.code }, response.status, keptHeaders(response));
}

function keptHeaders(response: Response): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const name of KEPT_HEADERS) {
    const value = response.headers.get(name);
    if (value !== null) kept[name] = value;
  }
  return kept;
}

/**
 * Whether a request to `pathname` must pass the Origin check before it may change anything (CSRF). Exempt are safe
 * methods, the signed webhook, and a request to a bearer endpoint that carries an Authorization header or no cookie
 * at all. A page on another site cannot make a browser send that header (it is not CORS-safelisted and we answer no
 * preflight), those endpoints then read no cookie (see `requireCaller`), and a request without cookies has none to
 * read: such a request has no ambient credential to ride on, so a client that is not a browser (and sends no Origin)
 * gets the endpoint's own answer, 401 when it forgot its token. A call with cookies and no Authorization is checked
 * like any other.
 */
export function needsOriginCheck(request: Request, pathname: string): boolean {
  if (SAFE_METHODS.has(request.method) || SIGNED_WEBHOOKS.has(pathname)) return false;
  if (!BEARER_ENDPOINTS.has(pathname)) return true;
  return !request.headers.has('authorization') && request.headers.has('cookie');
}

/** The longest bearer token read: a Supabase access token with generous user metadata fits many times over. */
export const MAX_BEARER_LENGTH = 8192;
/** RFC 6750's b64token: the only characters a bearer token may have. */
const BEARER = /^Bearer +([A-Za-z0-9._~+/-]+=*)$/i;

/**
 * The request's `Authorization` credential: null when it sends no such header; `{token}` for `Bearer <token>`;
 * 'malformed' for anything else (another scheme, no token, two headers, characters RFC 6750 does not allow, longer than
 * MAX_BEARER_LENGTH). A malformed header is a failed authentication, never a reason to read the cookies instead.
 */
export function bearerToken(request: Request): { token: string } | 'malformed' | null {
  if (!request.headers.has('authorization')) return null;
  // Linear in the header's length (Node caps all headers at 16 KiB anyway).
  const token = BEARER.exec(request.headers.get('authorization') ?? '')?.[1];
  return token && token.length <= MAX_BEARER_LENGTH ? { token } : 'malformed';
}
