import { offerStopServices } from '@/edge/switch';
import { keepSalesTotalsIn } from '@/features/admin/sales/rollup.server';
import { lowStockEmailJob } from '@/features/admin/stock/low-stock-email.server';
import { getCatalogueIndex, getProducts } from '@/features/catalogue/catalogue.server';
import { syncCatalogue } from '@/features/catalogue/catalogue-sync.server';
import { labelJob, orderChangeEmailJob, orderEmailJob, shippedEmailJob } from '@/features/checkout/fulfilment.server';
import { reconcilePayments } from '@/features/checkout/payment-events.server';
import { soldOutRefundJob } from '@/features/checkout/sold-out.server';
import { contactNoticeJob } from '@/features/contact/contact-notice.server';
import { pruneDiscountHolds } from '@/features/discounts/discounts.server';
import { editorRoleEmailJob } from '@/features/editor/editor-email.server';
import { releaseSwitch } from '@/features/editor/publish.server';
import { startPublisher } from '@/features/editor/publisher.server';
import { findRepositoryChanges } from '@/features/editor/repository-changes.server';
import { pruneRevisions } from '@/features/editor/revision-prune.server';
import { returnEmailJob, returnLabelJob } from '@/features/returns/return-jobs.server';
import { pruneHolds } from '@/features/stock/stock.server';
import type { AddressPort } from '@/server/address/address.port';
import { createAddressSuggestions } from '@/server/address/address.server';
import type { AuthPort } from '@/server/auth/auth.port';
import { createAuth } from '@/server/auth/auth.server';
import { type Config, loadConfig } from '@/server/config.server';
import { listenForBackupRequests, startMaintenance, takeBackup } from '@/server/db/backup.server';
import type { Database } from '@/server/db/database.server';
import { migrate } from '@/server/db/migrate.server';
import { openPglite } from '@/server/db/pglite.server';
import { logger, setAdapters } from '@/server/log.server';
import type { MailPort } from '@/server/mail/mail.port';
import { createMail, observedMail } from '@/server/mail/mail.server';
import { type JobHandlers, jobHandlers } from '@/server/outbox/jobs.server';
import { startOutboxWorker } from '@/server/outbox/outbox.server';
import type { PaymentsPort } from '@/server/payments/payments.port';
import { createPayments } from '@/server/payments/payments.server';
import { processShared } from '@/server/process-shared.server';
import { pruneRateLimits } from '@/server/ratelimit.server';
import { createReleaseFiles } from '@/server/release-files/release-files.server';
import type { ShippingPort } from '@/server/shipping/shipping.port';
import { createShipping } from '@/server/shipping/shipping.server';

export interface Services {
  config: Config;
  db: Database;
  auth: AuthPort;
  mail: MailPort;
  shipping: ShippingPort;
  payments: PaymentsPort;
  /** Address suggestions for the checkout; null when there is no service (no GEOAPIFY_API_KEY): typed by hand. */
  address: AddressPort | null;
  /** Runs the outbox now (call it after a transaction that queued jobs has committed). */
  nudgeOutbox: () => void;
  /** The dev mailbox's address when the embedded e-mail default runs (open it in a browser to read sent mail). */
  devMailbox: string | null;
}

/**
 * What the process shares across builds of the app. A publish switches the server to a freshly built bundle of the same
 * code (src/features/editor/publish.server.ts); its modules are loaded anew, but the services must not be: one database
 * (PGlite's files are this process's alone), one outbox worker, one dev mailbox on its port. So they are kept on
 * globalThis, and each bundle only records its own catalogue (syncCatalogue) and names the adapters for its log lines.
 */
interface Shared {
  started?: Promise<Services> | undefined;
  /** What stops the started services, in order (see stopServices). */
  stopping?: (() => Promise<void>) | undefined;
  adapters?: Record<string, string>;
}
const shared = processShared<Shared>('services', () => ({}));

/** The services, once this bundle's catalogue is recorded in the database. */
let ready: Promise<Services> | undefined;

/**
 * Stops the services for a clean exit, once no request is being answered any more: the outbox takes no new job (the
 * one under way finishes, the ones it had claimed are handed back), the maintenance timers and the backup socket stop
 * (a backup under way finishes), then the database is closed (PGlite's thread, or PostgreSQL's pool). Nothing when
 * they never started.
 */
export async function stopServices(): Promise<void> {
  const stop = shared.stopping;
  shared.stopping = undefined;
  await stop?.();
}

const log = logger('shop');

/**
 * The server's ports, started once per process on first use (configuration, database (migrated), e-mail, accounts),
 * with this bundle's catalogue recorded in the database.
 */
export function getServices(): Promise<Services> {
  ready ??= startOnce()
    .then(async (services) => {
      await syncCatalogue(services.db, await getProducts());
      if (shared.adapters) setAdapters(shared.adapters);
      return services;
    })
    .catch((error: unknown) => {
      ready = undefined;
      log.fatal({ err: error }, `cannot start: ${error instanceof Error ? error.message : String(error)}`);
      throw error;
    });
  return ready;
}

function startOnce(): Promise<Services> {
  shared.started ??= start().catch((error: unknown) => {
    shared.started = undefined;
    throw error;
  });
  return shared.started;
}

async function start(): Promise<Services> {
  const config = loadConfig();
  // Each engine's and each production adapter's code is loaded only when the configuration chooses it.
  const db =
    config.database.kind === 'postgres'
      ? (await import('@/server/db/postgres.server')).openPostgres(config.database.url)
      : await openPglite(config.database.dir);
  await migrate(db);
  await findRepositoryChanges(db).then(
    ({ found, settled }) => {
      if (found.length + settled.length > 0)
        log.info({ found, settled }, 'products changed in the repository since editors saved them (decision 018)');
    },
    (error: unknown) => log.warn({ err: error }, 'comparing the saved catalogue with the repository failed'),
  );
  if (await keepSalesTotalsIn(db, config.shopTimeZone))
    log.info({ timeZone: config.shopTimeZone }, 'sales totals rebuilt in the shop time zone');

  const created = await createMail(config.mail);
  const mail = observedMail(created.mail);
  const { devMailbox } = created;
  const shipping = await createShipping(config.shipping);
  const payments = await createPayments(config.payments, db);
  const address = createAddressSuggestions(config.address);
  const releaseFiles = await createReleaseFiles(config.releaseFiles);
  const { publicOrigin } = config;
  // Secure cookies whenever the public origin is https (production); plain http on a developer's machine.
  const secureCookies = config.publicOrigin.startsWith('https:');
  // Accounts wake the outbox worker when they queue mail; the worker, started below, runs their password-reset jobs.
  let nudgeOutbox = () => {};
  const auth = await createAuth(config.auth, { db, secureCookies, onMailQueued: () => nudgeOutbox() });
  const worker = startOutboxWorker(
    db,
    jobHandlers({
      email: (message) => mail.send(message),
      'order-label': labelJob({ db, shipping, publicOrigin }),
      'order-email': orderEmailJob({ db, mail, publicOrigin, shopEmail: config.shopEmail }),
      'order-shipped-email': shippedEmailJob({ db, mail, publicOrigin }),
      'password-reset': ({ email }) => auth.requestPasswordReset(email, { origin: publicOrigin }),
      'confirmation-resend': ({ email }) => auth.resendConfirmation(email, { origin: publicOrigin }),
      'contact-notice': contactNoticeJob({ db, mail, shopEmail: config.shopEmail, publicOrigin }),
      'order-change-email': orderChangeEmailJob({ db, mail, publicOrigin }),
      'order-sold-out': soldOutRefundJob({ db, payments, shopEmail: config.shopEmail, publicOrigin }),
      'return-email': returnEmailJob({ db, mail, publicOrigin }),
      'low-stock-email': lowStockEmailJob({ db, mail, shopEmail: config.shopEmail, publicOrigin }),
      'editor-role-email': editorRoleEmailJob({ db, mail, publicOrigin }),
      'return-label': returnLabelJob({ db, shipping, publicOrigin, catalogue: getCatalogueIndex }),
    } satisfies JobHandlers),
    { intervalMs: 5000 },
  );
  nudgeOutbox = () => worker.nudge();
  const stopMaintenance = startMaintenance(db, {
    backups: config.backups.everyMs && db.snapshot ? { ...config.backups, everyMs: config.backups.everyMs } : null,
    vacuumEveryMs: db.kind === 'pglite' ? config.vacuumEveryMs : null,
  });
  // `npm run backup` asks the running shop through a socket beside its data directory (see listenForBackupRequests).
  const stopBackupSocket =
    config.database.kind === 'pglite'
      ? await listenForBackupRequests(`${config.database.dir}.sock`, () => takeBackup(db, config.backups.dir, 'manual')).catch(
          (error: unknown) => {
            log.warn({ err: error }, 'npm run backup cannot reach this shop: the backup socket did not open');
            return async () => {};
          },
        )
      : async () => {};
  const prune = setInterval(() => {
    pruneRateLimits(db).catch((error: unknown) => log.warn({ err: error }, 'pruning the rate limits failed'));
    pruneHolds(db).catch((error: unknown) => log.warn({ err: error }, 'pruning lapsed stock holds failed'));
    pruneDiscountHolds(db).catch((error: unknown) => log.warn({ err: error }, 'releasing lapsed discount holds failed'));
    // Saves (and their pictures) age past the policy without a publish too (decision 021).
    pruneRevisions(db).catch((error: unknown) => log.warn({ err: error }, 'pruning catalogue saves failed'));
  }, 3_600_000);
  prune.unref();
  // Payments that succeeded without an order (the server stopped in between, no webhook came) are found and recorded.
  const reconcile = setInterval(
    () =>
      reconcilePayments(db, payments, { onQueued: () => worker.nudge() }).catch((error: unknown) =>
        log.warn({ err: error }, 'reconciliation failed'),
      ),
    5 * 60_000,
  );
  reconcile.unref();
  // Under the production server, publishes are made into releases and served (it listens once the live one is served).
  const served = releaseSwitch();
  const publisher = served ? startPublisher(db, { served, files: releaseFiles, ...config.publishing }) : null;
  if (served && publisher) served.caughtUp = publisher.caughtUp;
  shared.stopping = async () => {
    await publisher?.stop();
    clearInterval(prune);
    clearInterval(reconcile);
    await Promise.all([worker.stop(), stopMaintenance(), stopBackupSocket()]);
    await db.close();
  };
  // The edge (src/edge), which loads this bundle and cannot import from it, stops them through its switch.
  offerStopServices(stopServices);

  const where = config.database.kind === 'postgres' ? 'PostgreSQL (DATABASE_URL)' : `PGlite in ${config.database.dir}`;
  const adapters = {
    db: config.database.kind,
    accounts: auth.name,
    mail: mail.name,
    shipping: shipping.name,
    payments: payments.name,
    address: address?.name ?? 'off',
    releaseFiles: releaseFiles.name,
  };
  shared.adapters = adapters;
  // The configuration at start: what a person reads in the message, the same as fields for a machine (no secrets:
  // adapter names, the log level, whether metrics are served).
  log.info(
    {
      event: 'configuration',
      adapters,
      publicOrigin: config.publicOrigin,
      logLevel: config.log.level,
      metrics: config.metricsToken ? 'on (/metrics, bearer token)' : 'off (no METRICS_TOKEN)',
      outboxStuckSeconds: config.outboxStuckSeconds,
      trustProxyHops: config.trustProxyHops,
    },
    `database: ${where} · accounts: ${auth.name} · e-mail: ${devMailbox ? `demo mailbox at ${devMailbox}/ (new accounts are confirmed there)` : 'AWS SES'} · shipping: ${shipping.name} · payments: ${payments.name === 'stripe' ? stripeName(config.payments) : 'test processor (TEST MODE cards)'} · address suggestions: ${address?.name ?? 'off'} · release files: ${releaseFiles.name}`,
  );
  return { config, db, auth, mail, shipping, payments, address, nudgeOutbox: () => worker.nudge(), devMailbox };
}

/** Stripe, and where its API answers when STRIPE_API_BASE (tests and mocks only) points it elsewhere. */
function stripeName(payments: Config['payments']): string {
  if (payments.kind !== 'stripe' || !payments.api) return 'Stripe';
  const { protocol, host, port } = payments.api;
  return `Stripe (API at ${protocol}://${host.includes(':') ? `[${host}]` : host}:${port}, STRIPE_API_BASE: tests and mocks only)`;
}
