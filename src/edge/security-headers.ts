// The security headers of every answer the edge sends (decision 005): nosniff on every answer (and HSTS when the
// public origin is https); on every document the Content-Security-Policy with frame-ancestors, Referrer-Policy,
// X-Frame-Options and COOP; on every picture (and other XML) a policy under which nothing in it runs or loads
// (PICTURE_POLICY). The built files get theirs computed once, with the file (answerHeaders); what the app answers
// gets them as its head is written (withSecurityHeaders).
import { readFileSync } from 'node:fs';
import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { join } from 'node:path';
import { PICTURE_POLICY, policyForPage, withoutStripe } from './csp.ts';
import type { Handler } from './log.ts';

/** Headers every answer carries, whatever it is: no sniffing of its type, and HTTPS only when the shop is on it. */
export function securityHeaders({ https }: { https: boolean }): Record<string, string> {
  return {
    'x-content-type-options': 'nosniff',
    ...(https ? { 'strict-transport-security': 'max-age=31536000; includeSubDomains' } : {}),
  };
}

/**
 * Headers only a document heeds, sent with documents alone (with the Content-Security-Policy): a script, a picture or a
 * JSON answer is never framed, never has links to send a referrer from, nor a window to open; the 1.4 KB policy on
 * each of them was as large as a brotli-compressed product picture (1.1-2.2 KB) and sent uncompressed (HTTP/1.1).
 */
export const DOCUMENT_HEADERS: Readonly<Record<string, string>> = {
  'referrer-policy': 'strict-origin-when-cross-origin',
  'x-frame-options': 'DENY',
  'cross-origin-opener-policy': 'same-origin',
};

/**
 * Whether an answer is a document, or might be shown as one: HTML, or a body that does not say what it is (an error
 * in plain words, a redirect). A 304 or 204 is not: it has no body, and a 304 leaves the headers the browser stored.
 */
export function isDocument(status: number, contentType: unknown): boolean {
  if (status === 304 || status === 204) return false;
  if (contentType === undefined || String(contentType).trim() === '') return true;
  return /^\s*(text\/html|application\/xhtml\+xml)\s*(;|$)/i.test(String(contentType));
}

/**
 * Whether an answer that is not a document is a picture, or other XML a browser would show as a document of its own
 * when it is opened directly (an SVG is one; any XML may hold XHTML's <script>): every image type, XML and any type
 * ending in +xml. Each is sent with PICTURE_POLICY, under which nothing in it runs or loads; the pages' policy is for
 * pages.
 */
export function isPicture(contentType: unknown): boolean {
  return /^\s*(?:image\/[^\s;]+|[\w.+-]+\/(?:[\w.+-]+\+)?xml)\s*(?:;|$)/i.test(String(contentType ?? ''));
}

/**
 * One Content-Security-Policy header for every answer, from the policies Astro wrote for the built pages: those in
 * `written` (what the adapter put in _headers.json, see builtPolicies) and any in the pages' own <meta> tags. The same
 * directives, with the hashes of every page's inline scripts and styles. A <meta> policy cannot forbid framing, so
 * `frame-ancestors 'none'` is added here.
 * `pages`: the built pages' HTML; `written`: policies as they are.
 */
export function policyFromPages(pages: string[], written: string[] = []): string {
  const directives = new Map<string, Set<string>>();
  const metas = pages.map((html) => /<meta http-equiv="content-security-policy" content="([^"]*)"/i.exec(html)?.[1]);
  for (const content of [...written, ...metas]) {
    if (!content) continue;
    for (const directive of content.split(';')) {
      const [name, ...sources] = directive.trim().split(/\s+/);
      if (!name) continue;
      const known = directives.get(name) ?? new Set<string>();
      for (const source of sources) known.add(source);
      directives.set(name, known);
    }
  }
  directives.set('frame-ancestors', new Set(["'none'"]));
  if (!directives.has('default-src')) directives.set('default-src', new Set(["'self'"]));
  return [...directives].map(([name, sources]) => [name, ...sources].join(' ')).join('; ');
}

/**
 * The policies @astrojs/node wrote for the built pages in `dir` (its `staticHeaders`: _headers.json, a list of
 * { pathname, headers: [{ key, value }] }); none when the build has no such file.
 */
export function builtPolicies(dir: string): string[] {
  let entries: { headers?: { key: string; value: string }[] }[];
  try {
    entries = JSON.parse(readFileSync(join(dir, '_headers.json'), 'utf8'));
  } catch {
    return [];
  }
  return entries.flatMap((entry) =>
    (entry.headers ?? []).filter((h) => h.key.toLowerCase() === 'content-security-policy').map((h) => h.value),
  );
}

/** A policy that also forbids framing. */
function framingForbidden(policy: string): string {
  return policy.includes('frame-ancestors') ? policy : `${policy.replace(/;\s*$/, '')}; frame-ancestors 'none'`;
}

/**
 * A redirect's target as a path on this shop. A browser reads a Location that starts with two slashes (or a slash and a
 * backslash, or either with blanks between) as another host: `//evil.com/x` leaves the shop. Any such run at the
 * start is one slash here, whatever produced the Location (our trailing-slash redirect, Astro's own).
 */
export function onThisSite<T>(location: T): T | string {
  return typeof location === 'string' && location.startsWith('/') ? `/${location.replace(/^[/\\\s]+/, '')}` : location;
}

/** How the edge is told to make its security headers: the pages' policy, https, whether Stripe is configured. */
export interface SecurityOptions {
  policy: string;
  https: boolean;
  stripe?: boolean | undefined;
}

/** The headers of an answer by what it is, made once: for every answer, a document's, a picture's. */
export interface AnswerHeaders {
  every: Readonly<Record<string, string>>;
  document: Readonly<Record<string, string>>;
  picture: Readonly<Record<string, string>>;
  /** Astro's own policies for on-demand pages, without Stripe's origins when it is not configured. */
  allowed(policy: string): string;
}

/** The security headers for answers under `options`. Without `stripe`, Stripe's origins are taken out of every policy. */
export function answerHeaders({ policy, https, stripe = false }: SecurityOptions): AnswerHeaders {
  // Astro sends the same few policies with its on-demand pages: each is rewritten once, not on every answer.
  const rewritten = new Map<string, string>();
  const allowed = (value: string) => {
    if (stripe) return value;
    let kept = rewritten.get(value);
    if (kept === undefined) {
      kept = withoutStripe(value);
      if (rewritten.size < 64) rewritten.set(value, kept);
    }
    return kept;
  };
  return {
    every: securityHeaders({ https }),
    document: { ...DOCUMENT_HEADERS, 'content-security-policy': allowed(policy) },
    picture: { 'content-security-policy': PICTURE_POLICY },
    allowed,
  };
}

/** The security headers for an answer with this status and Content-Type, all of them. */
export function headersFor(headers: AnswerHeaders, status: number, contentType: string | undefined): Record<string, string> {
  if (isDocument(status, contentType)) return { ...headers.every, ...headers.document };
  if (isPicture(contentType)) return { ...headers.every, ...headers.picture };
  return { ...headers.every };
}

/**
 * Wraps a handler (the app) so every answer carries the security headers, every document (isDocument) the document
 * headers and the CSP (Astro's own for an on-demand page, framing forbidden in it), and every picture (isPicture) the
 * policy for pictures; and a Location stays on this site.
 */
export function withSecurityHeaders(handler: Handler, options: SecurityOptions | AnswerHeaders): Handler {
  const headers = 'every' in options ? options : answerHeaders(options);
  const policy = headers.document['content-security-policy'] ?? '';
  return (req, res) => {
    for (const [name, value] of Object.entries(headers.every)) res.setHeader(name, value);
    const writeHead = res.writeHead as (...args: unknown[]) => ServerResponse;
    res.writeHead = function (this: ServerResponse, status: number, ...rest: unknown[]) {
      // Headers given to writeHead itself (Astro gives them all there; the edge's files a flat list) win over those set
      // before.
      const at = rest.findIndex((arg) => Boolean(arg) && typeof arg === 'object');
      // A list is copied: the edge's files share theirs between answers.
      if (Array.isArray(rest[at])) rest[at] = [...(rest[at] as string[])];
      const given = rest[at] as OutgoingHttpHeaders | string[] | undefined;
      const list = Array.isArray(given) ? given : undefined;
      const object = Array.isArray(given) ? undefined : given;
      const givenAt = (name: string) => list?.findIndex((key, i) => i % 2 === 0 && key.toLowerCase() === name) ?? -1;
      const givenName = (name: string) => (object ? Object.keys(object).find((key) => key.toLowerCase() === name) : undefined);
      const header = (name: string) => {
        const index = givenAt(name);
        if (list && index >= 0) return list[index + 1];
        const key = givenName(name);
        return key === undefined || !object ? res.getHeader(name) : object[key];
      };
      /** Sets a header where the answer will take it from. */
      const put = (name: string, value: string) => {
        const index = givenAt(name);
        const key = givenName(name);
        if (list && index >= 0) list[index + 1] = value;
        else if (list) list.push(name, value);
        else if (key !== undefined && object) object[key] = value;
        else res.setHeader(name, value);
      };
      if (isDocument(status, header('content-type'))) {
        for (const [name, value] of Object.entries(DOCUMENT_HEADERS)) if (header(name) === undefined) put(name, value);
        // Astro sends its own policy for on-demand pages: keep it, and forbid framing in it too.
        const existing = header('content-security-policy');
        put('content-security-policy', existing === undefined ? policy : framingForbidden(headers.allowed(String(existing))));
      } else if (isPicture(header('content-type'))) {
        // Whoever answers with a picture (a built or carried-over file, the app), it can do nothing but be one.
        put('content-security-policy', PICTURE_POLICY);
      }
      const location = header('location');
      if (location !== undefined) put('location', String(onThisSite(location)));
      return writeHead.call(this, status, ...rest);
    } as ServerResponse['writeHead'];
    return handler(req, res);
  };
}

/**
 * An on-demand page known whole before its head is sent gets a policy with only the hashes of its own inline scripts
 * and styles (policyForPage): about 0.8 KB less in a head that is never compressed, which brings documents such as
 * /orders under the 14.6 KB TCP sends in its first round trip. A page sent as a stream keeps Astro's whole list.
 */
export function fitPolicy(res: ServerResponse, body: Buffer): void {
  const policy = res.getHeader('content-security-policy');
  if (policy === undefined || !/^\s*text\/html/i.test(String(res.getHeader('content-type') ?? ''))) return;
  res.setHeader('content-security-policy', policyForPage(String(policy), body));
}
