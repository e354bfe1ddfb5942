import { describe, expect, it } from 'vitest';
import type { Publish } from './publish.server';
import { publishWords } from './publish-words';

const publish = (status: Publish['status'], error: string | null = null): Publish => ({
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
    expect(publishWords(publish('failed', 'content/products/03-clinical-scrubs.md: price: price must be positive'), 1)).toBe(
      'The publish failed, so shoppers still see the catalogue as before. content/products/03-clinical-scrubs.md: price: price must be positive',
    );
  });
});
