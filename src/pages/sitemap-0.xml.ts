import type { APIRoute } from 'astro';
import { getProducts } from '@/features/catalogue/catalogue.server';
import { SITEMAP_HEADERS, sitemap } from '@/features/catalogue/sitemap';

// Rendered with each release of the catalogue (decision 018): its products are the ones the sitemap lists.
export const prerender = false;

export const GET: APIRoute = async ({ site, url }) =>
  new Response(
    sitemap(
      site ?? url,
      (await getProducts()).map((p) => p.id),
    ),
    { headers: SITEMAP_HEADERS },
  );
