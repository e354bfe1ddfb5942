// What the Publish panel says about a publish, in words an editor reads. Pure, for the island and its test.
import type { Publish } from './publish.server';
import type { ScheduledPublish } from './publish-schedule.server';

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
      return p.againOf === null
        ? 'Published: shoppers see the catalogue as saved.'
        : `Publish ${p.againOf} is served again: shoppers see the catalogue as it was then.`;
    case 'failed':
      return `The publish failed, so shoppers still see the catalogue as before. ${p.error ?? ''}`.trim();
  }
}

/** An earlier publish, as the panel lists it to be served again: when it went live, and who published it. */
export function earlierWords(p: Publish, when: (iso: string) => string): string {
  const at = when(p.finishedAt ?? p.requestedAt);
  return p.againOf === null
    ? `Publish ${p.id}, live from ${at}, by ${p.requestedBy}`
    : `Publish ${p.id}, live from ${at}, by ${p.requestedBy} (publish ${p.againOf} again)`;
}

/** What became of a scheduled publish, in words, its times said by `when`. */
export function scheduledWords(s: ScheduledPublish, when: (iso: string) => string): string {
  switch (s.status) {
    case 'scheduled':
      return 'to come';
    case 'cancelled':
      return `cancelled${s.cancelledBy ? ` by ${s.cancelledBy}` : ''}${s.cancelledAt ? ` on ${when(s.cancelledAt)}` : ''}`;
    case 'queued':
    case 'building':
      return 'publishing now';
    case 'live':
      return `published${s.finishedAt ? ` at ${when(s.finishedAt)}` : ''}`;
    case 'failed':
      return `failed, so shoppers still see the catalogue as before: ${s.error ?? 'no reason was given.'}`;
  }
}
