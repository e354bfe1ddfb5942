import type { APIRoute } from 'astro';
import { adminDeps } from '@/app/admin-request.server';
import { adminStockGet, adminStockSave } from '@/features/admin/stock/stock-admin.server';
import { getCatalogueIndex } from '@/features/catalogue/catalogue.server';
import { cookieJar } from '@/server/http.server';

export const prerender = false;

/** Every count (blank: unlimited), what is held and available, and the low-stock threshold. Admins only: 404 otherwise. */
export const GET: APIRoute = async ({ request, cookies }) =>
  adminStockGet(await adminDeps(), cookieJar(request, cookies), await getCatalogueIndex());

/** Sets counts {counts: [{productId, selectedColor, selectedSize, onHand, from}], lowStockThreshold}. Admins only. */
export const POST: APIRoute = async ({ request, cookies }) =>
  adminStockSave(await adminDeps(), request, cookieJar(request, cookies), await getCatalogueIndex());
