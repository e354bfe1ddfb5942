// @public: other features may import this module (the rule is in tests/unit/import-rules.test.ts).
import { api } from '@/lib/api';
import type { SessionUser, UserAnswer } from './auth';
import { $authModal, $user } from './auth.store';
import { rememberSignedIn } from './session-hint';

/**
 * Browser-side sign-out: forgets the shopper and closes the modal. What each feature keeps privately (the cart,
 * orders, favorites) follows $user going to null in that feature's own store, so accounts need not know them.
 */
export function clearPrivateState(): void {
  $user.set(null);
  $authModal.set('closed');
}

// Signing in and out later (the dialog, Log out, another tab, idle sign-out) moves the header's mark with it.
$user.listen((user) => rememberSignedIn(user));

let firstAnswer: Promise<unknown> | undefined;

/**
 * The shopper, once the server has said who is signed in. Until its first answer $user is null for everyone, so an
 * action that needs an account and is taken early (a tap held while the page loaded, replayed the moment the island
 * is live) would tell a signed-in shopper to log in. The page asks once, whoever needs it first (SessionSync on load,
 * or such an action); a sign-in or sign-out afterwards is already in $user.
 */
export async function knownUser(): Promise<SessionUser | null> {
  if (!$user.get()) {
    firstAnswer ??= api<UserAnswer>('/api/auth/session').then((r) => {
      if (r.ok && !$user.get()) $user.set(r.data.user);
      // The server's word settles the header's guess, whichever way it went (a session may have ended meanwhile).
      if (r.ok) rememberSignedIn($user.get());
    });
    await firstAnswer;
  }
  return $user.get();
}
