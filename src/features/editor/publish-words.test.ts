import { describe, expect, it } from 'vitest';
import type { Publish } from './publish.server';
import { earlierWords, publishWords } from './publish-words';

const publish = (status: Publish['status'], error: string | null = null): Publish => ({
  againOf: null,
  id: 1,
  status,
  requestedBy: 'editor@example.com',
  requestedAt: '2026-11-26T08:00:00.000Z',
  startedAt: null,
  finishedAt: null,
  upToRevision: 3,
  error,
});

describe('the Publish panel in words', () => {
  it('says each state of a publish, and why one failed', () => {
    expect(publishWords(null, 0)).toBe('Shoppers see the catalogue as the shop was built.');
    expect(publishWords(null, 2)).toMatch(/^Not published yet/);
    expect(publishWords(publish('queued'), 2)).toMatch(/^Publish requested/);
    expect(publishWords(publish('building'), 2)).toMatch(/^Publishing: /);
    expect(publishWords(publish('live'), 0)).toBe('Published: shoppers see the catalogue as saved.');
    expect(publishWords({ ...publish('live'), againOf: 7 }, 1)).toBe(
      'Publish 7 is served again: shoppers see the catalogue as it was then.',
    );
    expect(publishWords(publish('failed', 'content/products/03-clinical-scrubs.md: price: price must be positive'), 1)).toBe(
      'The publish failed, so shoppers still see the catalogue as before. content/products/03-clinical-scrubs.md: price: price must be positive',
    );
  });
});

describe('an earlier publish, as the panel offers it again', () => {
  const when = (iso: string) => iso.slice(0, 16).replace('T', ' ');
  it('says which, from when, by whom, and which publish it repeated', () => {
    const live = { ...publish('live'), id: 4, finishedAt: '2026-11-27T09:30:00.000Z' };
    expect(earlierWords(live, when)).toBe('Publish 4, live from 2026-11-27 09:30, by editor@example.com');
    expect(earlierWords({ ...live, againOf: 2 }, when)).toBe(
      'Publish 4, live from 2026-11-27 09:30, by editor@example.com (publish 2 again)',
    );
  });
});
