import type { APIRoute } from 'astro';

/** robots.txt pointing crawlers at the sitemap; the API and the catalogue's previews are not for crawling. */
export const GET: APIRoute = ({ site }) => {
  const sitemap = new URL('/sitemap-index.xml', site).href;
  return new Response(`User-agent: *\nAllow: /\nDisallow: /api/\nDisallow: /preview\n\nSitemap: ${sitemap}\n`, {
    headers: { 'content-type': 'text/plain; charset=utf-8' },
  });
};
