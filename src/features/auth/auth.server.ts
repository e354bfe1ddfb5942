// @public: other features may import this module (the rule is in tests/unit/import-rules.test.ts).
import type { AccountUser } from '@/server/auth/auth.port';
import type { SessionUser } from './auth';

/** What the browser is told about a signed-in account: no more than it needs. */
export function publicUser(user: AccountUser): SessionUser {
  return { id: user.id, email: user.email, firstName: user.firstName };
}
