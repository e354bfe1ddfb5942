import { atom } from 'nanostores';

/** The signed-in shopper as the browser knows them, or null for a guest. Accounts arrive with the database work. */
export interface SessionUser {
  id: string;
  email: string;
  firstName: string | null;
}

export const $user = atom<SessionUser | null>(null);

/** Which pane of the login/signup modal is open, if any. */
export const $authModal = atom<'closed' | 'login' | 'signup' | 'forgot'>('closed');

/** Name shown in the online indicator: the first name, else the e-mail's local part. */
export function displayName(user: SessionUser): string {
  return user.firstName?.trim() || user.email.split('@')[0] || user.email;
}

/** What /api/auth/session and /api/auth/login answer about the shopper. */
export type UserAnswer = { user: SessionUser | null };
