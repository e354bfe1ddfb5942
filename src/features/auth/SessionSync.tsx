import { useStore } from '@nanostores/react';
import { useEffect, useRef } from 'react';
import { api } from '@/lib/api';
import { AUTH_MESSAGES } from '@/lib/auth.rules';
import { afterPresses } from '@/lib/presses';
import { notify } from '../toasts/toast.store';
import type { UserAnswer } from './auth';
import { $authModal, $user } from './auth.store';
import { clearPrivateState, knownUser } from './session.client';

/** Product spec: session re-checked every 3 minutes, idle sign-out after 15 minutes. */
export const SESSION_CHECK_MS = 3 * 60 * 1000;
export const IDLE_SIGN_OUT_MS = 15 * 60 * 1000;
/** Activity is reported to the server at most this often, so the server's idle clock follows the shopper. */
const ACTIVITY_REPORT_MS = 60 * 1000;

/** Keeps the browser's idea of the shopper in step with the server: on load, every 3 minutes, and on idle. Renders nothing. */
export default function SessionSync() {
  const user = useStore($user);
  const lastActivity = useRef(Date.now());
  const lastReport = useRef(0);

  // Who is signed in, and what a verification link said.
  useEffect(() => {
    void knownUser();
    const params = new URLSearchParams(window.location.search);
    const verified = params.get('verified');
    if (verified !== null) {
      if (verified === '1') {
        notify.success(AUTH_MESSAGES.verified);
        $authModal.set('login');
      } else {
        notify.error(AUTH_MESSAGES.invalidToken);
      }
      params.delete('verified');
      const query = params.toString();
      window.history.replaceState(null, '', `${window.location.pathname}${query ? `?${query}` : ''}${window.location.hash}`);
    }
  }, []);

  useEffect(() => {
    if (!user) return undefined;
    lastActivity.current = Date.now();

    const signOut = async () => {
      await api('/api/auth/logout', {});
      clearPrivateState();
      window.location.assign('/');
    };
    const onActivity = () => {
      lastActivity.current = Date.now();
      if (Date.now() - lastReport.current > ACTIVITY_REPORT_MS) {
        lastReport.current = Date.now();
        // A report that finds the session gone (signed out in another tab) forgets the shopper but stays on the page:
        // it is sent by the very click or key press the shopper made, and the island that handles it says what that
        // action needs (the wishlist's 'Please login to add items to cart'). Going home here would swallow the message.
        // Pages only for signed-in shoppers react to $user themselves (the wishlist shows its sign-in prompt, the
        // order history goes home), so the answer waits for the press to end: the button pressed is still there for
        // the click.
        api<UserAnswer>('/api/auth/session', {}).then((r) => {
          if (r.ok && !r.data.user) afterPresses(clearPrivateState);
        });
      }
    };
    const check = window.setInterval(async () => {
      const r = await api<UserAnswer>('/api/auth/session');
      if (!r.ok || !r.data.user) {
        clearPrivateState();
        window.location.assign('/');
      }
    }, SESSION_CHECK_MS);
    const idle = window.setInterval(() => {
      if (Date.now() - lastActivity.current >= IDLE_SIGN_OUT_MS) void signOut();
    }, 10_000);
    const events = ['pointerdown', 'keydown', 'scroll', 'touchstart'] as const;
    for (const e of events) window.addEventListener(e, onActivity, { passive: true });
    return () => {
      window.clearInterval(check);
      window.clearInterval(idle);
      for (const e of events) window.removeEventListener(e, onActivity);
    };
  }, [user]);

  return null;
}
