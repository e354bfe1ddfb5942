import type { Page } from '@playwright/test';
import { hydrated } from './islands';

/** A product page's reviews section, once its island has hydrated and answered from GET /api/reviews. */
export async function openReviews(page: Page, productId: number) {
  const answered = page.waitForResponse((r) => r.url().includes(`/api/reviews?productId=${productId}`) && r.ok());
  await page.goto(`/product/${productId}`);
  await hydrated(page, '.review-form-place');
  await answered;
  return page.locator('#reviews');
}
