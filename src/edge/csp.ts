// The origins Stripe's Payment Element needs (Stripe's CSP guide): its script, its frames (the card fields and
// 3-D Secure), its API and its card-brand pictures. Used twice, so that the page is allowed to talk to Stripe only
// when the server runs with Stripe configured:
// - astro.config.mjs writes them into every page's <meta> policy at build time (a static page cannot know);
// - src/edge/security-headers.ts takes them out of the header policy when Stripe is not configured. A browser enforces both
//   policies, so without Stripe the header forbids what the <meta> would allow.
// And an on-demand page's policy cut down to the hashes of the inline scripts and styles the page holds (policyForPage).
import { createHash } from 'node:crypto';

/**
 * The policy every picture is served with, wherever it is served (the edge, src/edge/security-headers.ts, for built and carried-over files
 * and for anything the app answers as a picture; the editor's previews in src/features/editor/pictures.ts, which
 * repeats it). A picture embedded with <img> ignores its own policy and can neither run script nor load anything; this
 * is for a picture opened on its own, where an SVG is a document on the shop's origin: nothing in it runs (no
 * script-src, and `sandbox` without allow-scripts gives it an origin of its own besides), nothing loads (default-src
 * 'none': no fonts, pictures, styles or connections from anywhere, data: included). Only its inline styles apply
 * (style-src 'unsafe-inline'): SVGs draw with <style> and style attributes. Its url(#gradient) references are to its
 * own parts, which no fetch directive governs, so no img-src is needed.
 */
export const PICTURE_POLICY = "default-src 'none'; style-src 'unsafe-inline'; sandbox";

export const STRIPE_SOURCES = {
  'script-src': ['https://js.stripe.com', 'https://*.js.stripe.com'],
  'frame-src': ['https://js.stripe.com', 'https://*.js.stripe.com', 'https://hooks.stripe.com'],
  'connect-src': ['https://api.stripe.com'],
  'img-src': ['https://*.stripe.com'],
} as const;

/**
 * The policy without Stripe's sources. A directive left with no source would fall back to default-src (wider for
 * frame-src than intended), so it keeps 'self' instead.
 */
export function withoutStripe(policy: string): string {
  return policy
    .split(';')
    .map((directive) => {
      const [name, ...sources] = directive.trim().split(/\s+/);
      if (!name) return '';
      const stripe: readonly string[] = STRIPE_SOURCES[name as keyof typeof STRIPE_SOURCES] ?? [];
      const kept = sources.filter((source) => !stripe.includes(source));
      return [name, ...(kept.length > 0 ? kept : ["'self'"])].join(' ');
    })
    .filter(Boolean)
    .join('; ');
}

/** A sha256 hash source in a policy, with the space before it. */
const SHA256_SOURCE = /\s'sha256-[A-Za-z0-9+/=]+'/g;

/** The hash source of each inline text seen, by its length (a page's styles are the same bytes on every answer). */
const sources = new Map<number, { bytes: Buffer; source: string }[]>();
const SOURCES_AT_MOST = 256;

function hashSource(bytes: Buffer): string {
  const known = sources.get(bytes.length) ?? [];
  const hit = known.find((entry) => entry.bytes.equals(bytes));
  if (hit) return hit.source;
  const source = `'sha256-${createHash('sha256').update(bytes).digest('base64')}'`;
  if (sources.size >= SOURCES_AT_MOST) sources.clear();
  sources.set(bytes.length, [{ bytes: Buffer.from(bytes), source }, ...known].slice(0, 4));
  return source;
}

/**
 * `policy` with only the sha256 hashes of the inline scripts and styles `html` holds. Astro lists the hash of every
 * inline script and style of the whole site in each on-demand page's policy (23 on this shop, 1.3 KB of a head that is
 * sent as it is, never compressed), where a page holds five to seven. Only hash sources go, so the policy allows
 * nothing it did not; any other source, and the rest of each directive, stays as it was.
 * `html` is the page as sent (UTF-8).
 */
export function policyForPage(policy: string, html: Buffer | string): string {
  if (!policy.includes("'sha256-")) return policy;
  const used = new Set<string>();
  for (const text of inlineTexts(Buffer.isBuffer(html) ? html : Buffer.from(html))) used.add(hashSource(text));
  return policy.replace(SHA256_SOURCE, (source) => (used.has(source.trim()) ? source : ''));
}

/** The elements whose inline text a policy hashes, with their tags as bytes (made once, not on every page). */
const INLINE_TAGS = ['script', 'style'].map((tag) => ({
  tag,
  opening: Buffer.from(`<${tag}`),
  closing: Buffer.from(`</${tag}`),
}));

/** The bytes that may follow a tag's name: `>`, `/` or white space (`<scripts>` is another element). */
const AFTER_NAME = new Set([0x3e, 0x2f, 0x20, 0x09, 0x0a, 0x0c, 0x0d]);

/**
 * The bytes of each inline <script> (one without `src`) and <style> in `html`, as the HTML parser ends them: at the
 * first closing tag. Searched in the bytes as sent (Buffer#indexOf), not in a decoded string: fitting /orders' policy
 * cost 53 µs with the page decoded and searched as text, 18 µs so. Tags are looked for as Astro and React write them, in lower
 * case; one in upper case would lose its hash (its script would not run), which allows nothing more.
 */
function* inlineTexts(html: Buffer): Generator<Buffer> {
  for (const { tag, opening, closing } of INLINE_TAGS) {
    let at = 0;
    for (;;) {
      const open = html.indexOf(opening, at);
      if (open === -1) break;
      const end = html.indexOf(0x3e, open);
      if (end === -1) break;
      at = end + 1;
      if (!AFTER_NAME.has(html[open + opening.length] ?? 0)) continue;
      const close = html.indexOf(closing, at);
      if (close === -1) break;
      const attributes = html.toString('latin1', open + opening.length, end);
      if (tag === 'style' || !/\ssrc\s*=/i.test(` ${attributes}`)) yield html.subarray(at, close);
      at = close + closing.length;
    }
  }
}
