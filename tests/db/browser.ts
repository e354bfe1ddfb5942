import type { CookieJar, CookieOptions } from '@/server/auth/auth.port';

/** A browser's cookie store, in memory: `cookies` holds each cookie's value, `options` how it was last set. */
export function browser(): CookieJar & { cookies: Map<string, string>; options: Map<string, CookieOptions> } {
  const cookies = new Map<string, string>();
  const options = new Map<string, CookieOptions>();
  return {
    cookies,
    options,
    getAll: () => [...cookies].map(([name, value]) => ({ name, value })),
    set(name: string, value: string, set: CookieOptions) {
      options.set(name, set);
      if (set.maxAge === 0) cookies.delete(name);
      else cookies.set(name, value);
    },
  };
}
