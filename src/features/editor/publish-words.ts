// What the Publish panel says about a publish, in words an editor reads. Pure, for the island and its test.
import type { Publish } from './publish.server';

/** A publish's state in words, for the editor. */
export function publishWords(p: Publish | null, unpublished: number): string {
  if (!p)
    return unpublished
      ? 'Not published yet: shoppers see the catalogue as the shop was built.'
      : 'Shoppers see the catalogue as the shop was built.';
  switch (p.status) {
    case 'queued':
      return 'Publish requested: waiting for the shop to start building the pages.';
    case 'building':
      return 'Publishing: the shop is building the pages with your changes. Shoppers see the new pages once it is done.';
    case 'live':
      return 'Published: shoppers see the catalogue as saved.';
    case 'failed':
      return `The publish failed, so shoppers still see the catalogue as before. ${p.error ?? ''}`.trim();
  }
}
