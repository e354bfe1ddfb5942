// @public: other features may import this module (the rule is in tests/unit/import-rules.test.ts).
// The sitemap, in the form search engines read (sitemaps.org 0.9): an index naming one sitemap, which lists the shop's
// public pages and every product's. Rendered with each release of the catalogue, so a product added or gone is in it
// or out of it as soon as its page is (decision 019). Pages only a signed-in shopper, an admin or an editor sees
// (wishlist, orders, admin, previews) are not in it.

/** The public pages besides the products', in the order the sitemap lists them. */
export const PUBLIC_PAGES = ['/', '/about', '/confirm-email', '/contact', '/reset-password'] as const;

const NS = 'http://www.sitemaps.org/schemas/sitemap/0.9';

const escapeXml = (text: string) =>
  text.replace(/[<>&'"]/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', "'": '&apos;', '"': '&quot;' })[c] ?? c);

/** The sitemap index: one sitemap, /sitemap-0.xml. */
export function sitemapIndex(site: URL): string {
  const loc = escapeXml(new URL('/sitemap-0.xml', site).href);
  return `<?xml version="1.0" encoding="UTF-8"?><sitemapindex xmlns="${NS}"><sitemap><loc>${loc}</loc></sitemap></sitemapindex>`;
}

/** The sitemap of the public pages and of the products with these ids. */
export function sitemap(site: URL, productIds: readonly number[]): string {
  const paths = [...PUBLIC_PAGES, ...productIds.map((id) => `/product/${id}`)];
  const urls = paths.map((path) => `<url><loc>${escapeXml(new URL(path, site).href)}</loc></url>`).join('');
  return `<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="${NS}">${urls}</urlset>`;
}

export const SITEMAP_HEADERS = { 'content-type': 'application/xml; charset=utf-8' };
