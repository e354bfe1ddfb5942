// @public: other features may import this module (the rule is in tests/unit/import-rules.test.ts).
import { atom } from 'nanostores';
import type { SessionUser } from './auth';

/** The signed-in shopper, shared by every island; null for a guest. */
export const $user = atom<SessionUser | null>(null);

/** Which pane of the login/signup modal is open, if any. */
export const $authModal = atom<'closed' | 'login' | 'signup' | 'forgot'>('closed');
