// A local stand-in for Supabase Auth (GoTrue) that speaks its wire format for the endpoints our adapter calls.
// Access tokens are ES256 JWTs signed with a key made at start-up; its public half is served as the project's JWKS,
// so supabase-js's getClaims verifies them exactly as it would against a real project with asymmetric keys.
import { createHash, generateKeyPairSync, type JsonWebKey, randomBytes, randomUUID, sign, verify } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  /** Path without the query, e.g. `/auth/v1/token`. */
  path: string;
  query: Record<string, string>;
  headers: IncomingHttpHeaders;
  body: unknown;
}

/** An e-mail Supabase would have sent: the template gets the token hash and the redirect address. */
export interface SentEmail {
  type: 'confirmation' | 'recovery';
  to: string;
  tokenHash: string;
  redirectTo: string | null;
}

export interface FakeSupabaseAuth {
  /** The project URL to give supabase-js (the fake answers under `/auth/v1`). */
  url: string;
  anonKey: string;
  stop(): Promise<void>;
  /** Marks the address confirmed, as clicking the confirmation link would. */
  confirmEmail(email: string): void;
  /** The live recovery token hash for the address (the one the last reset e-mail carried, else a new one). */
  recoveryTokenFor(email: string): string;
  /** The live confirmation token hash for the address (the one the sign-up e-mail carried, else a new one). */
  confirmationTokenFor(email: string): string;
  requests: RecordedRequest[];
  emails: SentEmail[];
}

export interface FakeSupabaseAuthOptions {
  /** Access token lifetime; GoTrue's default is an hour. Below 90 s supabase-js refreshes on every read. */
  accessTokenTtlSeconds?: number;
}

interface FakeUser {
  id: string;
  email: string;
  password: string;
  userMetadata: Record<string, unknown>;
  emailConfirmedAt: string | null;
  confirmationSentAt: string | null;
  recoverySentAt: string | null;
  lastSignInAt: string | null;
  createdAt: string;
  updatedAt: string;
}

interface OneTimeToken {
  userId: string;
  kind: 'confirmation' | 'recovery';
  issuedAt: number;
  used: boolean;
}

interface FakeSession {
  id: string;
  userId: string;
  revoked: boolean;
  amr: string;
}

class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

const API_VERSION = '2024-01-01';
const MIN_PASSWORD = 6;
const OTP_TTL_MS = 60 * 60 * 1000;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** Starts the fake on a free port of 127.0.0.1. */
export async function startFakeSupabaseAuth(options: FakeSupabaseAuthOptions = {}): Promise<FakeSupabaseAuth> {
  const ttl = options.accessTokenTtlSeconds ?? 3600;
  const anonKey = `sb_publishable_fake_${randomBytes(12).toString('hex')}`;
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const kid = randomUUID();
  const jwk: JsonWebKey = { ...publicKey.export({ format: 'jwk' }), kid, alg: 'ES256', use: 'sig', key_ops: ['verify'] };

  const users = new Map<string, FakeUser>();
  const tokens = new Map<string, OneTimeToken>();
  const sessions = new Map<string, FakeSession>();
  const refreshTokens = new Map<string, { sessionId: string; revoked: boolean }>();
  const requests: RecordedRequest[] = [];
  const emails: SentEmail[] = [];
  let issuer = '';

  const now = () => new Date().toISOString();
  const byEmail = (email: string) => [...users.values()].find((u) => u.email === email.trim().toLowerCase());

  function userJson(u: FakeUser) {
    const verified = u.emailConfirmedAt !== null;
    const identityData = { email: u.email, email_verified: verified, phone_verified: false, sub: u.id };
    return {
      id: u.id,
      aud: 'authenticated',
      role: 'authenticated',
      email: u.email,
      phone: '',
      ...(u.emailConfirmedAt ? { email_confirmed_at: u.emailConfirmedAt, confirmed_at: u.emailConfirmedAt } : {}),
      ...(u.confirmationSentAt ? { confirmation_sent_at: u.confirmationSentAt } : {}),
      ...(u.recoverySentAt ? { recovery_sent_at: u.recoverySentAt } : {}),
      ...(u.lastSignInAt ? { last_sign_in_at: u.lastSignInAt } : {}),
      app_metadata: { provider: 'email', providers: ['email'] },
      user_metadata: { ...u.userMetadata, ...identityData },
      identities: [
        {
          identity_id: u.id,
          id: u.id,
          user_id: u.id,
          identity_data: identityData,
          provider: 'email',
          created_at: u.createdAt,
          updated_at: u.updatedAt,
          email: u.email,
        },
      ],
      created_at: u.createdAt,
      updated_at: u.updatedAt,
      is_anonymous: false,
    };
  }

  /** What GoTrue answers for an address that already has a confirmed account: a made-up user, nothing sent. */
  function obfuscatedUserJson(email: string) {
    const at = now();
    return {
      id: randomUUID(),
      aud: 'authenticated',
      role: 'authenticated',
      email,
      phone: '',
      confirmation_sent_at: at,
      app_metadata: { provider: 'email', providers: ['email'] },
      user_metadata: {},
      identities: [],
      created_at: at,
      updated_at: at,
      is_anonymous: false,
    };
  }

  function issueToken(user: FakeUser, kind: OneTimeToken['kind'], pkce: boolean, redirectTo: string | null) {
    // One live token per kind, as GoTrue keeps one confirmation_token and one recovery_token per user.
    for (const t of tokens.values()) if (t.userId === user.id && t.kind === kind) t.used = true;
    const hash = createHash('sha224')
      .update(`${user.email}${randomBytes(6).toString('hex')}`)
      .digest('hex');
    const tokenHash = pkce ? `pkce_${hash}` : hash;
    tokens.set(tokenHash, { userId: user.id, kind, issuedAt: Date.now(), used: false });
    if (kind === 'confirmation') user.confirmationSentAt = now();
    else user.recoverySentAt = now();
    emails.push({ type: kind, to: user.email, tokenHash, redirectTo });
    return tokenHash;
  }

  function liveToken(email: string, kind: OneTimeToken['kind']) {
    const user = byEmail(email);
    if (!user) throw new Error(`fake Supabase Auth: no user ${email}`);
    const live = [...tokens.entries()].find(([, t]) => t.userId === user.id && t.kind === kind && !t.used);
    return live ? live[0] : issueToken(user, kind, false, null);
  }

  function signJwt(payload: Record<string, unknown>) {
    const encode = (part: object) => Buffer.from(JSON.stringify(part)).toString('base64url');
    const input = `${encode({ alg: 'ES256', kid, typ: 'JWT' })}.${encode(payload)}`;
    // WebCrypto's ECDSA verify (what auth-js uses) wants r||s, not DER.
    const signature = sign('sha256', Buffer.from(input), { key: privateKey, dsaEncoding: 'ieee-p1363' });
    return `${input}.${signature.toString('base64url')}`;
  }

  function sessionJson(user: FakeUser, session: FakeSession) {
    const iat = Math.floor(Date.now() / 1000);
    const accessToken = signJwt({
      iss: issuer,
      sub: user.id,
      aud: 'authenticated',
      exp: iat + ttl,
      iat,
      email: user.email,
      phone: '',
      app_metadata: { provider: 'email', providers: ['email'] },
      user_metadata: { ...user.userMetadata, email: user.email, email_verified: user.emailConfirmedAt !== null, sub: user.id },
      role: 'authenticated',
      aal: 'aal1',
      amr: [{ method: session.amr, timestamp: iat }],
      session_id: session.id,
      is_anonymous: false,
    });
    const refreshToken = randomBytes(9).toString('base64url');
    refreshTokens.set(refreshToken, { sessionId: session.id, revoked: false });
    return {
      access_token: accessToken,
      token_type: 'bearer',
      expires_in: ttl,
      expires_at: iat + ttl,
      refresh_token: refreshToken,
      user: userJson(user),
    };
  }

  function startSession(user: FakeUser, amr: string) {
    const session: FakeSession = { id: randomUUID(), userId: user.id, revoked: false, amr };
    sessions.set(session.id, session);
    user.lastSignInAt = now();
    return sessionJson(user, session);
  }

  function endSessions(match: (s: FakeSession) => boolean) {
    for (const s of sessions.values()) if (match(s)) s.revoked = true;
    // GoTrue deletes an ended session's refresh tokens, so presenting one later is "not found", not "already used".
    for (const [token, r] of refreshTokens) if (sessions.get(r.sessionId)?.revoked) refreshTokens.delete(token);
  }

  function checkPassword(password: unknown): asserts password is string {
    if (typeof password !== 'string' || password === '') throw new ApiError(422, 'validation_failed', 'Password is required');
    if (password.length < MIN_PASSWORD) {
      throw new ApiError(422, 'weak_password', `Password should be at least ${MIN_PASSWORD} characters.`, {
        weak_password: { reasons: ['length'] },
      });
    }
  }

  /** The bearer's user and session, after checking the JWT as GoTrue does (signature, expiry, live session). */
  function authenticate(req: IncomingMessage) {
    const bearer = /^Bearer (.+)$/i.exec(req.headers.authorization ?? '')?.[1];
    if (!bearer || bearer === anonKey) throw new ApiError(401, 'no_authorization', 'This endpoint requires a valid Bearer token');
    const invalid = (why: string) => new ApiError(403, 'bad_jwt', `invalid JWT: unable to parse or verify signature, ${why}`);
    const [header, payload, signature] = bearer.split('.');
    if (!header || !payload || !signature) throw invalid('token contains an invalid number of segments');
    let claims: Record<string, unknown>;
    try {
      const head = JSON.parse(Buffer.from(header, 'base64url').toString('utf8')) as Record<string, unknown>;
      if (head.alg !== 'ES256' || head.kid !== kid) throw invalid('token is unverifiable: unknown signing key');
      const ok = verify(
        'sha256',
        Buffer.from(`${header}.${payload}`),
        { key: publicKey, dsaEncoding: 'ieee-p1363' },
        Buffer.from(signature, 'base64url'),
      );
      if (!ok) throw invalid('token signature is invalid');
      claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>;
    } catch (error) {
      throw error instanceof ApiError ? error : invalid('token is malformed');
    }
    if (typeof claims.exp !== 'number' || claims.exp * 1000 <= Date.now())
      throw invalid('token has invalid claims: token is expired');
    const session = typeof claims.session_id === 'string' ? sessions.get(claims.session_id) : undefined;
    if (!session || session.revoked)
      throw new ApiError(403, 'session_not_found', 'Session from session_id claim in JWT does not exist');
    const user = users.get(session.userId);
    if (!user) throw new ApiError(403, 'user_not_found', 'User from sub claim in JWT does not exist');
    return { user, session };
  }

  async function route(
    req: IncomingMessage,
    url: URL,
    body: Record<string, unknown>,
  ): Promise<{ status: number; json?: unknown }> {
    const key = `${req.method} ${url.pathname.replace(/^\/auth\/v1/, '')}`;
    if (key === 'GET /.well-known/jwks.json') return { status: 200, json: { keys: [jwk] } };
    // Kong in front of GoTrue turns away requests without the project's key.
    if (req.headers.apikey !== anonKey) throw new ApiError(401, 'no_api_key', 'Invalid API key');
    const redirectTo = url.searchParams.get('redirect_to');
    const pkce = typeof body.code_challenge === 'string' && body.code_challenge !== '';

    switch (key) {
      case 'POST /signup': {
        const email = typeof body.email === 'string' ? body.email.trim().toLowerCase() : '';
        if (!EMAIL.test(email)) throw new ApiError(400, 'validation_failed', 'Unable to validate email address: invalid format');
        checkPassword(body.password);
        const existing = byEmail(email);
        if (existing?.emailConfirmedAt) return { status: 200, json: obfuscatedUserJson(email) };
        const data = typeof body.data === 'object' && body.data !== null ? (body.data as Record<string, unknown>) : {};
        const at = now();
        const user: FakeUser = existing ?? {
          id: randomUUID(),
          email,
          password: body.password,
          userMetadata: data,
          emailConfirmedAt: null,
          confirmationSentAt: null,
          recoverySentAt: null,
          lastSignInAt: null,
          createdAt: at,
          updatedAt: at,
        };
        users.set(user.id, user);
        issueToken(user, 'confirmation', pkce, redirectTo);
        return { status: 200, json: userJson(user) };
      }

      case 'POST /token': {
        const grant = url.searchParams.get('grant_type');
        if (grant === 'password') {
          const user = typeof body.email === 'string' ? byEmail(body.email) : undefined;
          if (!user || user.password !== body.password)
            throw new ApiError(400, 'invalid_credentials', 'Invalid login credentials');
          if (!user.emailConfirmedAt) throw new ApiError(400, 'email_not_confirmed', 'Email not confirmed');
          return { status: 200, json: startSession(user, 'password') };
        }
        if (grant === 'refresh_token') {
          const presented = typeof body.refresh_token === 'string' ? refreshTokens.get(body.refresh_token) : undefined;
          if (!presented) throw new ApiError(400, 'refresh_token_not_found', 'Invalid Refresh Token: Refresh Token Not Found');
          if (presented.revoked) throw new ApiError(400, 'refresh_token_already_used', 'Invalid Refresh Token: Already Used');
          const session = sessions.get(presented.sessionId);
          const user = session ? users.get(session.userId) : undefined;
          if (!session || session.revoked || !user)
            throw new ApiError(400, 'session_not_found', 'Invalid Refresh Token: Session Expired');
          presented.revoked = true;
          return { status: 200, json: sessionJson(user, session) };
        }
        throw new ApiError(400, 'validation_failed', 'unsupported_grant_type');
      }

      case 'POST /logout': {
        const { user, session } = authenticate(req);
        const scope = url.searchParams.get('scope') ?? 'global';
        if (scope === 'local') endSessions((s) => s.id === session.id);
        else if (scope === 'others') endSessions((s) => s.userId === user.id && s.id !== session.id);
        else endSessions((s) => s.userId === user.id);
        return { status: 204 };
      }

      case 'POST /recover': {
        const email = typeof body.email === 'string' ? body.email.trim().toLowerCase() : '';
        if (!EMAIL.test(email)) throw new ApiError(400, 'validation_failed', 'Unable to validate email address: invalid format');
        const user = byEmail(email);
        // The same empty answer whether or not the address has an account.
        if (user) issueToken(user, 'recovery', pkce, redirectTo);
        return { status: 200, json: {} };
      }

      case 'POST /resend': {
        const email = typeof body.email === 'string' ? body.email.trim().toLowerCase() : '';
        if (!EMAIL.test(email)) throw new ApiError(400, 'validation_failed', 'Unable to validate email address: invalid format');
        if (body.type !== 'signup' && body.type !== 'email_change')
          throw new ApiError(400, 'validation_failed', 'Missing one of these types: signup, email_change, sms, phone_change');
        const user = byEmail(email);
        // A new link only for a sign-up still waiting; the same empty answer for any other address.
        if (user && !user.emailConfirmedAt) issueToken(user, 'confirmation', pkce, redirectTo);
        return { status: 200, json: {} };
      }

      case 'POST /verify': {
        const type = body.type;
        const hash = body.token_hash;
        if (typeof hash !== 'string' || hash === '')
          throw new ApiError(400, 'validation_failed', 'Verify requires a token or a token hash');
        const kind = type === 'recovery' ? 'recovery' : type === 'email' || type === 'signup' ? 'confirmation' : null;
        if (!kind) throw new ApiError(400, 'validation_failed', 'Verify requires a verification type');
        const token = tokens.get(hash);
        const user = token ? users.get(token.userId) : undefined;
        if (!token || !user || token.used || token.kind !== kind || Date.now() - token.issuedAt > OTP_TTL_MS) {
          throw new ApiError(403, 'otp_expired', 'Email link is invalid or has expired');
        }
        token.used = true;
        // Following a recovery link proves the mailbox too, so GoTrue confirms the address on either path.
        user.emailConfirmedAt ??= now();
        user.updatedAt = now();
        return { status: 200, json: startSession(user, kind === 'recovery' ? 'recovery' : 'otp') };
      }

      case 'GET /user':
        return { status: 200, json: userJson(authenticate(req).user) };

      case 'PUT /user': {
        const { user, session } = authenticate(req);
        if (body.password !== undefined) {
          checkPassword(body.password);
          if (body.password === user.password) {
            throw new ApiError(422, 'same_password', 'New password should be different from the old password.');
          }
          user.password = body.password;
          // GoTrue ends every other session when the password changes.
          endSessions((s) => s.userId === user.id && s.id !== session.id);
        }
        if (typeof body.data === 'object' && body.data !== null) user.userMetadata = { ...user.userMetadata, ...body.data };
        user.updatedAt = now();
        return { status: 200, json: userJson(user) };
      }

      default:
        throw new ApiError(404, 'not_found', `fake Supabase Auth does not serve ${key}`);
    }
  }

  function sendError(req: IncomingMessage, res: ServerResponse, error: ApiError) {
    // GoTrue answers in the 2024-01-01 shape ({code, message}) only to clients that ask for it, and says so in a header.
    const asked = req.headers['x-supabase-api-version'];
    const versioned = typeof asked === 'string' && asked >= API_VERSION;
    const payload = versioned
      ? { code: error.code, message: error.message, ...error.extra }
      : { code: error.status, error_code: error.code, msg: error.message, ...error.extra };
    res.writeHead(error.status, {
      'content-type': 'application/json',
      ...(versioned ? { 'x-supabase-api-version': API_VERSION } : {}),
    });
    res.end(JSON.stringify(payload));
  }

  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://fake');
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    let body: unknown = null;
    try {
      body = raw ? JSON.parse(raw) : null;
    } catch {
      body = raw;
    }
    requests.push({
      method: req.method ?? '',
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      headers: req.headers,
      body,
    });
    try {
      if (raw && (typeof body !== 'object' || body === null))
        throw new ApiError(400, 'bad_json', 'Could not parse request body as JSON');
      const result = await route(req, url, (body ?? {}) as Record<string, unknown>);
      if (result.json === undefined) {
        res.writeHead(result.status).end();
      } else {
        res.writeHead(result.status, { 'content-type': 'application/json' }).end(JSON.stringify(result.json));
      }
    } catch (error) {
      sendError(req, res, error instanceof ApiError ? error : new ApiError(500, 'unexpected_failure', String(error)));
    }
  });

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;
  issuer = `${url}/auth/v1`;

  return {
    url,
    anonKey,
    requests,
    emails,
    stop: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        // fetch keeps connections alive; without this close() waits for them to idle out.
        server.closeAllConnections();
      }),
    confirmEmail(email) {
      const user = byEmail(email);
      if (!user) throw new Error(`fake Supabase Auth: no user ${email}`);
      user.emailConfirmedAt ??= now();
    },
    recoveryTokenFor: (email) => liveToken(email, 'recovery'),
    confirmationTokenFor: (email) => liveToken(email, 'confirmation'),
  };
}
