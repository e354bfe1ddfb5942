import type { CookieJar, CookieOptions } from '@/server/auth/auth.port';

/**
 * A browser's cookie store, in memory, holding `initial` to begin with: `cookies` holds each cookie's value, `options`
 * how the server last set it (so `options.size === 0` means the server set or cleared nothing). A cookie set with
 * max-age 0 or an empty value is cleared, as a browser does.
 */
export function browser(
  initial: Record<string, string> = {},
): CookieJar & { cookies: Map<string, string>; options: Map<string, CookieOptions> } {
  const cookies = new Map(Object.entries(initial));
  const options = new Map<string, CookieOptions>();
  return {
    cookies,
    options,
    getAll: () => [...cookies].map(([name, value]) => ({ name, value })),
    set(name: string, value: string, set: CookieOptions) {
      options.set(name, set);
      if (set.maxAge === 0 || value === '') cookies.delete(name);
      else cookies.set(name, value);
    },
  };
}
