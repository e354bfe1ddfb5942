import type { APIRoute } from 'astro';
import { SITEMAP_HEADERS, sitemapIndex } from '@/features/catalogue/sitemap';

// Rendered with each release of the catalogue (decision 018), as the sitemap it names is.
export const prerender = false;

export const GET: APIRoute = ({ site, url }) => new Response(sitemapIndex(site ?? url), { headers: SITEMAP_HEADERS });
