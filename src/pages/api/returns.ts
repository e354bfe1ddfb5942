import type { APIRoute } from 'astro';
import { getServices } from '@/app/services.server';
import { getCatalogueIndex } from '@/features/catalogue/catalogue.server';
import { postReturn } from '@/features/returns/return-routes.server';
import { cookieJar } from '@/server/http.server';

export const prerender = false;

/** A shopper asks to return items of their order (signed in, or with the order link's token). */
export const POST: APIRoute = async ({ request, cookies }) => {
  const { db, auth, nudgeOutbox, config } = await getServices();
  return postReturn(
    { db, auth, nudgeOutbox, timeZone: config.shopTimeZone, catalogue: getCatalogueIndex },
    request,
    cookieJar(request, cookies),
  );
};
