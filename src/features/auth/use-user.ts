// @public: other features may import this module (the rule is in tests/unit/import-rules.test.ts).
import { useStore } from '@nanostores/react';
import type { SessionUser } from './auth';
import { $user } from './auth.store';

/**
 * The signed-in shopper, for an island whose markup depends on them. Hydration renders the store's initial value (a
 * guest), as the build rendered the page, and then the current shopper. Reading $user plainly would render the
 * shopper already in the first client pass whenever the session answer arrived before the island hydrated, and React
 * would throw the page's HTML away (error #418: seen on /wishlist in about one load of four).
 */
export function useUser(): SessionUser | null {
  return useStore($user, { ssr: 'initial' });
}
