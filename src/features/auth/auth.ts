// @public: other features may import this module (the rule is in tests/unit/import-rules.test.ts).
// Who is signed in, as the browser and the server both describe them. No store and no browser code here, so the
// server and every island can import it.

/** The signed-in shopper as the browser knows them, or null for a guest. */
export interface SessionUser {
  id: string;
  email: string;
  firstName: string | null;
  /**
   * Present for an account that may open /admin: an admin, or an editor (whom /admin takes to the catalogue editor).
   * The header then links to /admin; the admin itself decides who gets in, and to what. Never a grant of anything.
   */
  admin?: true;
}

/** What /api/auth/session and /api/auth/login answer about the shopper. */
export type UserAnswer = { user: SessionUser | null };

/** Name shown in the online indicator: the first name, else the e-mail's local part. */
export function displayName(user: SessionUser): string {
  return user.firstName?.trim() || user.email.split('@')[0] || user.email;
}
