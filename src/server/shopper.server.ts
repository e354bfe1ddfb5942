import type { APIContext } from 'astro';
import type { CookieJar, CurrentSession } from './auth/auth.port';
import { activeBearerSession, activeSession } from './auth/session.server';
import type { Sql } from './db/database.server';
import { asShopper } from './db/roles.server';
import { bearerToken, cookieJar, problem } from './http.server';
import { getServices, type Services } from './services.server';

export interface ShopperContext {
  services: Services;
  /** The signed-in shopper, or null for a guest. */
  session: CurrentSession | null;
  /** Runs queries as this shopper (RLS decides what they see and change). */
  run<T>(fn: (tx: Sql) => Promise<T>): Promise<T>;
}

/** Who is asking, for an endpoint: every call by a signed-in shopper counts as activity for idle sign-out. */
export async function shopper({ request, cookies }: Pick<APIContext, 'request' | 'cookies'>): Promise<ShopperContext> {
  const services = await getServices();
  const session = await activeSession(services.db, services.auth, cookieJar(request, cookies), { touch: true });
  const claims = session?.claims ?? null;
  return {
    services,
    session,
    run: (fn) => asShopper(services.db, claims, fn),
  };
}

/** The answer for an endpoint that needs an account; `message` is the spec's wording for that action. */
export function signInRequired(message: string): Response {
  return problem(401, 'unauthenticated', message);
}

/** A shopper context for a request known to come from a signed-in shopper. */
export type SignedInShopper = ShopperContext & { session: CurrentSession };

function isSignedIn(me: ShopperContext): me is SignedInShopper {
  return me.session !== null;
}

/**
 * Who is asking, for an endpoint that needs an account: the signed-in shopper, or the 401 answer to return as it is
 * (`message` is the spec's wording for that action). `const me = await requireShopper(ctx, MSG); if (me instanceof
 * Response) return me;`
 */
export async function requireShopper(
  context: Pick<APIContext, 'request' | 'cookies'>,
  message: string,
): Promise<SignedInShopper | Response> {
  const me = await shopper(context);
  return isSignedIn(me) ? me : signInRequired(message);
}

/** What knowing the caller needs of the services (a subset, so tests can hand in their own). */
export type CallerDeps = Pick<Services, 'db' | 'auth'>;

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
