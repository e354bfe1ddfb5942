import { afterEach, describe, expect, it, vi } from 'vitest';
import { fetchSuggestions, MAX_SUGGESTIONS, suggestionLabel, wantsSuggestions } from './address-suggestions';

const suggestion = (n: number) => ({ street: `${n} Main Street`, city: 'Springfield', state: 'IL', zip: '62701' });

describe('address suggestions in the street field', () => {
  afterEach(() => vi.unstubAllGlobals());

  it('asks from 3 characters (trimmed) to 200', () => {
    expect(wantsSuggestions('10')).toBe(false);
    expect(wantsSuggestions('  10  ')).toBe(false);
    expect(wantsSuggestions('100')).toBe(true);
    expect(wantsSuggestions('a'.repeat(200))).toBe(true);
    expect(wantsSuggestions('a'.repeat(201))).toBe(false);
  });

  it('shows a suggestion on one line, leaving out what it does not name', () => {
    expect(suggestionLabel(suggestion(455))).toBe('455 Main Street, Springfield, IL 62701');
    expect(suggestionLabel({ street: 'Main Street', city: '', state: 'IL', zip: '' })).toBe('Main Street, IL');
  });

  it('asks our endpoint with the text URL-encoded, and keeps at most 5', async () => {
    const fetch = vi.fn(async (_url: string, _init?: RequestInit) =>
      Response.json({ enabled: true, suggestions: Array.from({ length: 7 }, (_, i) => suggestion(i)) }),
    );
    vi.stubGlobal('fetch', fetch);
    const answer = await fetchSuggestions(' 100 Main & Co/#2 ', new AbortController().signal);
    expect(fetch.mock.calls[0]?.[0]).toBe('/api/address-suggestions?text=100%20Main%20%26%20Co%2F%232');
    expect(answer?.enabled && answer.suggestions).toHaveLength(MAX_SUGGESTIONS);
  });

  it('passes on that suggestions are off, and gives null for any failure so no list appears', async () => {
    const signal = new AbortController().signal;
    vi.stubGlobal('fetch', async () => Response.json({ enabled: false, suggestions: [] }));
    expect(await fetchSuggestions('100 Main', signal)).toEqual({ enabled: false, suggestions: [] });
    vi.stubGlobal('fetch', async () => Response.json({ error: { code: 'suggestions_failed', message: 'x' } }, { status: 502 }));
    expect(await fetchSuggestions('100 Main', signal)).toBeNull();
    vi.stubGlobal('fetch', async () => new Response('<html>', { status: 200 }));
    expect(await fetchSuggestions('100 Main', signal)).toBeNull();
    vi.stubGlobal('fetch', async () => {
      throw new TypeError('Failed to fetch');
    });
    expect(await fetchSuggestions('100 Main', signal)).toBeNull();
  });

  it('rejects when aborted, so a stale answer is never mistaken for "no suggestions"', async () => {
    const controller = new AbortController();
    vi.stubGlobal('fetch', async (_url: string, init?: RequestInit) => {
      controller.abort();
      throw init?.signal?.reason;
    });
    await expect(fetchSuggestions('100 Main', controller.signal)).rejects.toThrow();
  });
});
