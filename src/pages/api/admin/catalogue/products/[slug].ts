import type { APIRoute } from 'astro';
import { adminDeps } from '@/app/admin-request.server';
import { catalogueProductRoute, catalogueSaveRoute } from '@/features/editor/catalogue-routes.server';
import { cookieJar } from '@/server/http.server';

export const prerender = false;

/** A product's form: its fields as saved, what cannot be edited, and its history. Editors only: 404 otherwise. */
export const GET: APIRoute = async ({ request, cookies, params }) =>
  catalogueProductRoute(await adminDeps(), cookieJar(request, cookies), params.slug ?? '');

/** Saves {base, fields} into the product (a new revision; shoppers see it once published). Editors only. */
export const POST: APIRoute = async ({ request, cookies, params }) =>
  catalogueSaveRoute(await adminDeps(), request, cookieJar(request, cookies), params.slug ?? '');
