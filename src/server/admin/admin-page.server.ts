import type { AstroGlobal } from 'astro';
import { type AdminContext, currentAdmin } from './admin.server';

/**
 * For an admin page (rendered on demand): the admin, or null when the caller is not one; the page then renders the
 * site's 404 (`return Astro.rewrite('/404')`), so the admin does not exist for a guest or a shopper. The middleware
 * marks every /admin answer private and unindexed.
 */
export function adminPage(astro: AstroGlobal): Promise<AdminContext | null> {
  return currentAdmin(astro);
}
