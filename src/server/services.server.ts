import type { SessionUser } from '@/features/auth/auth.store';
import type { AccountUser, AuthPort } from './auth/auth.port';
import { createBuiltInAuth } from './auth/builtin.server';
import { createSupabaseAuth } from './auth/supabase.server';
import { type Config, loadConfig } from './config.server';
import type { Database } from './db/database.server';
import { migrate } from './db/migrate.server';
import { openPglite } from './db/pglite.server';
import { openPostgres } from './db/postgres.server';
import { startDevMailbox } from './mail/dev-mailbox.server';
import type { MailPort } from './mail/mail.port';
import { createSesMail } from './mail/ses.server';
import { emailHandler, startOutboxWorker } from './outbox/outbox.server';
import { createPayments } from './payments/index.server';
import type { PaymentsPort } from './payments/payments.port';
import { pruneRateLimits } from './ratelimit.server';

export interface Services {
  config: Config;
  db: Database;
  auth: AuthPort;
  mail: MailPort;
  payments: PaymentsPort;
  /** The dev mailbox's address when the embedded e-mail default runs (open it in a browser to read sent mail). */
  devMailbox: string | null;
}

let started: Promise<Services> | undefined;

/** The server's ports, started once per process on first use: configuration, database (migrated), e-mail, accounts. */
export function getServices(): Promise<Services> {
  started ??= start().catch((error: unknown) => {
    started = undefined;
    throw error;
  });
  return started;
}

async function start(): Promise<Services> {
  const config = loadConfig();
  const db = config.database.kind === 'postgres' ? openPostgres(config.database.url) : await openPglite(config.database.dir);
  await migrate(db);

  let mail: MailPort;
  let devMailbox: string | null = null;
  if (config.mail.kind === 'ses') {
    const { region, from, accessKeyId, secretAccessKey } = config.mail;
    mail = createSesMail({ region, from, credentials: { accessKeyId, secretAccessKey } });
  } else {
    // The embedded default: a local SES-compatible mailbox, reached through the same SES adapter as production.
    const box = await startDevMailbox({ port: config.mail.port });
    devMailbox = box.endpoint;
    mail = createSesMail({
      region: 'us-east-1',
      from: config.mail.from,
      endpoint: box.endpoint,
      credentials: { accessKeyId: 'dev', secretAccessKey: 'dev' },
    });
  }
  const worker = startOutboxWorker(db, { email: emailHandler(mail) }, { intervalMs: 5000 });
  const prune = setInterval(
    () => pruneRateLimits(db).catch((error: unknown) => console.warn('[rate limits] prune failed:', error)),
    3_600_000,
  );
  prune.unref();

  // Secure cookies whenever the public origin is https (production); plain http on a developer's machine.
  const secureCookies = (config.siteUrl ?? '').startsWith('https:');
  const auth =
    config.auth.kind === 'supabase'
      ? createSupabaseAuth({ url: config.auth.url, anonKey: config.auth.anonKey, secureCookies })
      : createBuiltInAuth({ db, secureCookies, onMailQueued: () => worker.nudge() });

  const payments = createPayments(config.payments, db);

  const where = config.database.kind === 'postgres' ? 'PostgreSQL (DATABASE_URL)' : `PGlite in ${config.database.dir}`;
  console.log(
    `[aurelia] database: ${where} · accounts: ${auth.name} · e-mail: ${devMailbox ? `dev mailbox at ${devMailbox}/` : 'AWS SES'} · payments: ${payments.name === 'stripe' ? 'Stripe' : 'test processor (TEST MODE cards)'}`,
  );
  return { config, db, auth, mail, payments, devMailbox };
}

/** The origin that links in e-mails point to: SITE_URL when set, else the origin the request came to. */
export function linkOrigin(config: Config, request: Request): string {
  return config.siteUrl ? new URL(config.siteUrl).origin : new URL(request.url).origin;
}

/** What the browser is told about the signed-in shopper. */
export function publicUser(user: AccountUser): SessionUser {
  return { id: user.id, email: user.email, firstName: user.firstName };
}
