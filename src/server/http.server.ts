import type { AstroCookies } from 'astro';
import type { z } from 'astro/zod';
import type { CookieJar } from './auth/auth.port';

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

const MAX_BODY_BYTES = 16 * 1024;

/** Reads and validates a JSON body: 415 for another media type, 413 when too large, 400 with the first problem otherwise. */
export async function readJson<S extends z.ZodType>(
  request: Request,
  schema: S,
): Promise<{ data: z.infer<S> } | { response: Response }> {
  if (!(request.headers.get('content-type') ?? '').toLowerCase().startsWith('application/json')) {
    return { response: problem(415, 'unsupported_media_type', 'Send the request body as application/json.') };
  }
  const text = await request.text();
  if (new TextEncoder().encode(text).length > MAX_BODY_BYTES) {
    return { response: problem(413, 'too_large', 'The request body is too large.') };
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return { response: problem(400, 'invalid_json', 'The request body is not valid JSON.') };
  }
  const parsed = schema.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return { response: problem(400, 'invalid_request', issue?.message ?? 'The request is not valid.') };
  }
  return { data: parsed.data };
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

/**
 * Whether a state-changing request comes from our own pages. Astro's checkOrigin stops cross-site form posts but lets
 * a cross-site JSON POST through, so /api checks the Origin header itself.
 */
export function sameOrigin(request: Request, allowed: readonly string[]): boolean {
  const origin = request.headers.get('origin');
  if (!origin) return false;
  if (request.headers.get('sec-fetch-site') === 'cross-site') return false;
  return origin === new URL(request.url).origin || allowed.includes(origin);
}
