import type { AuthPort, CookieJar, CurrentSession } from './auth/auth.port';
import { activeBearerSession, activeSession } from './auth/session.server';
import type { Database, Sql } from './db/database.server';
import { asShopper } from './db/roles.server';
import { bearerToken, problem } from './http.server';

/** What knowing the caller needs of the services (a subset, so tests can hand in their own). */
export interface CallerDeps {
  db: Database;
  auth: AuthPort;
}

/** The answer for an endpoint that needs an account; `message` is the spec's wording for that action. */
export function signInRequired(message: string): Response {
  return problem(401, 'unauthenticated', message);
}

/** A signed-in caller of an endpoint that takes a bearer token as well as the cookie. */
export interface Caller {
  session: CurrentSession;
  /** Runs queries as this shopper (RLS decides what they see and change). */
  run<T>(fn: (tx: Sql) => Promise<T>): Promise<T>;
}

/** RFC 6750: a 401 names the scheme it wants, and says when the token sent was the problem. */
const CHALLENGE = 'Bearer realm="aurelia"';

/**
 * Who is asking, for an endpoint that clients other than our pages may call (`BEARER_ENDPOINTS`). An `Authorization`
 * header decides alone when the request sends one: a valid `Bearer <token>` is the caller, anything else is 401
 * `invalid_token`, and the cookies are not read, touched or cleared (the bearer wins: a bearer and a cookie of two
 * shoppers act as the bearer's, and the middleware let such a request through without an Origin because it has no
 * ambient credential). Without the header, the session cookie, as in requireShopper. Either way idle sign-out applies
 * and the call counts as activity. Returns the caller, or the 401 to answer (`message` is the spec's wording).
 */
export async function requireCaller(
  deps: CallerDeps,
  request: Request,
  jar: CookieJar,
  message: string,
): Promise<Caller | Response> {
  const bearer = bearerToken(request);
  const session =
    bearer === null
      ? await activeSession(deps.db, deps.auth, jar, { touch: true })
      : bearer === 'malformed'
        ? null
        : await activeBearerSession(deps.db, deps.auth, bearer.token, { touch: true });
  if (session) return { session, run: (fn) => asShopper(deps.db, session.claims, fn) };
  if (bearer === null) return problem(401, 'unauthenticated', message, { 'www-authenticate': CHALLENGE });
  return problem(401, 'invalid_token', 'The access token is malformed, expired or revoked. Please log in again.', {
    'www-authenticate': `${CHALLENGE}, error="invalid_token"`,
  });
}
