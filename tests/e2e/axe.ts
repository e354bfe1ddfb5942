// What axe finds on a page against the standard the shop keeps: WCAG 2.2 AA and axe's best practices.
import AxeBuilder from '@axe-core/playwright';
import type { Page } from '@playwright/test';

/** WCAG 2.0, 2.1 and 2.2 at levels A and AA, and axe's best practices. */
const TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'];

/**
 * Each violation axe finds on `page` (only inside `within`, a selector, when given) as `id: help (targets)`, so that
 * a failing `expect(…).toEqual([])` names the rule and where it failed. Only violations are reported in full: the
 * passes and inapplicable rules, a list of every node checked, cost the browser and the test's worker more CPU than
 * the check itself.
 */
export async function axeViolations(page: Page, within?: string): Promise<string[]> {
  let builder = new AxeBuilder({ page }).options({ resultTypes: ['violations'] }).withTags(TAGS);
  if (within) builder = builder.include(within);
  const { violations } = await builder.analyze();
  return violations.map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`);
}
