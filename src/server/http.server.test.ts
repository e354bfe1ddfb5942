import type { AstroCookies } from 'astro';
import { describe, expect, it } from 'vitest';
import { cookieJar } from './http.server';

/** Astro's cookies as far as the jar uses them: what the answer will set. */
function answer() {
  const set: { name: string; value: string }[] = [];
  const cookies = { set: (name: string, value: string) => void set.push({ name, value }) } as unknown as AstroCookies;
  return { cookies, set };
}

describe('cookieJar', () => {
  it('reads back what the request set, as a browser would (login then asks for the new session)', () => {
    const request = new Request('http://shop.test/api/auth/login', { headers: { cookie: 'aurelia_session=old; theme=dark' } });
    const { cookies, set } = answer();
    const jar = cookieJar(request, cookies);
    jar.set('aurelia_session', 'new', { httpOnly: true, path: '/' });
    expect(jar.getAll()).toEqual([
      { name: 'theme', value: 'dark' },
      { name: 'aurelia_session', value: 'new' },
    ]);
    expect(set).toEqual([{ name: 'aurelia_session', value: 'new' }]);
  });

  it('forgets a cookie the request cleared', () => {
    const request = new Request('http://shop.test/', { headers: { cookie: 'aurelia_session=old' } });
    const jar = cookieJar(request, answer().cookies);
    jar.set('aurelia_session', '', { maxAge: 0 });
    expect(jar.getAll()).toEqual([]);
  });
});
