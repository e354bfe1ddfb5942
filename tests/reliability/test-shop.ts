/**
 * A test shop for the in-process /api harness (harness.ts): real services (built-in accounts, the test payment
 * processor with a known webhook secret, the rate-table shipping; `overrides` swaps any) on a fresh database (PGlite, or PostgreSQL with TEST_DATABASE_URL), save the
 * e-mail, which is recorded instead of sent. Kept apart from harness.ts, which imports every endpoint: the mocks of
 * getServices and astro:content load this file while those endpoints are still loading.
 */

import type { Services } from '@/app/services.server';
import { lowStockEmailJob } from '@/features/admin/stock/low-stock-email.server';
import { labelJob, orderChangeEmailJob, orderEmailJob, shippedEmailJob } from '@/features/checkout/fulfilment.server';
import { soldOutRefundJob } from '@/features/checkout/sold-out.server';
import { contactNoticeJob } from '@/features/contact/contact-notice.server';
import { editorRoleEmailJob } from '@/features/editor/editor-email.server';
import { returnEmailJob, returnLabelJob } from '@/features/returns/return-jobs.server';
import { createBuiltInAuth } from '@/server/auth/builtin.server';
import { loadConfig } from '@/server/config.server';
import type { Database } from '@/server/db/database.server';
import type { MailMessage, MailPort } from '@/server/mail/mail.port';
import { observedMail } from '@/server/mail/mail.server';
import { jobHandlers } from '@/server/outbox/jobs.server';
import { processDue } from '@/server/outbox/outbox.server';
import { createTestProcessor } from '@/server/payments/test-processor.server';
import { createShipping } from '@/server/shipping/shipping.server';
import { freshDatabase } from '../db/test-database';
import { loadCatalogue, loadCatalogueIndex } from '../unit/load-catalogue';

/** The public origin the harness's configuration has, and the Origin our own pages send. */
export const ORIGIN = 'http://127.0.0.1:4321';
export const ADMIN_EMAIL = 'owner@example.com';

/** What getCollection('products') gives the server: the real product files (images as plain paths). */
export const astroContent = {
  getCollection: async () =>
    loadCatalogue().map(({ product }) => ({
      data: { ...product, images: product.images.map((image) => ({ ...image, src: { src: image.src, width: 1, height: 1 } })) },
    })),
};

export interface TestShop {
  services: Services;
  db: Database;
  /** Every e-mail the shop has sent so far. */
  sent: MailMessage[];
  /** When set, the mail endpoint is "down": sending throws. */
  mailDown: { value: boolean };
  /** Runs the outbox's due jobs (labels, e-mails) once, as the server's worker does; `now` to jump past a backoff. */
  runOutbox: (now?: Date) => Promise<{ sent: number; failed: number }>;
}

/** The test processor's webhook secret in a test shop, to sign events with. */
export const WEBHOOK_SECRET = 'whsec_test_reliability';

let current: Promise<TestShop> | undefined;

/** The mocked getServices: the current test shop's services. */
export async function testServices(): Promise<Services> {
  if (!current) throw new Error('startShop() first');
  return (await current).services;
}

/** Starts a shop on a fresh database (or `openDatabase`'s): call it in beforeAll; stopShop in afterAll. */
export function startShop(
  env: Record<string, string> = {},
  overrides: (services: Services) => Partial<Services> = () => ({}),
  openDatabase: () => Promise<Database> = freshDatabase,
): Promise<TestShop> {
  current = (async () => {
    const db = await openDatabase();
    const config = loadConfig({ HOST: '127.0.0.1', PORT: '4321', ADMIN_EMAILS: ADMIN_EMAIL, ...env });
    const sent: MailMessage[] = [];
    const mailDown = { value: false };
    // Wrapped as the server wraps its mail adapter (services.server.ts), so sending is logged and counted here too.
    const mail: MailPort = observedMail({
      name: 'recorder',
      async send(message) {
        if (mailDown.value) throw new Error('mail endpoint down');
        sent.push(message);
      },
    });
    const services: Services = {
      config,
      db,
      auth: createBuiltInAuth({ db, secureCookies: false }),
      mail,
      shipping: await createShipping(config.shipping),
      payments: createTestProcessor(db, { webhookSecret: WEBHOOK_SECRET }),
      address: null,
      nudgeOutbox: () => {},
      devMailbox: null,
    };
    Object.assign(services, overrides(services));
    const { shipping } = services;
    const { publicOrigin, shopEmail } = config;
    const handlers = jobHandlers({
      email: (message) => mail.send(message),
      'order-label': labelJob({ db, shipping, publicOrigin }),
      'order-email': orderEmailJob({ db, mail, publicOrigin, shopEmail }),
      'order-shipped-email': shippedEmailJob({ db, mail, publicOrigin }),
      'password-reset': ({ email }) => services.auth.requestPasswordReset(email, { origin: publicOrigin }),
      'confirmation-resend': ({ email }) => services.auth.resendConfirmation(email, { origin: publicOrigin }),
      'contact-notice': contactNoticeJob({ db, mail, shopEmail, publicOrigin }),
      'order-change-email': orderChangeEmailJob({ db, mail, publicOrigin }),
      'order-sold-out': soldOutRefundJob({ db, payments: services.payments, shopEmail, publicOrigin }),
      'return-email': returnEmailJob({ db, mail, publicOrigin }),
      'low-stock-email': lowStockEmailJob({ db, mail, shopEmail, publicOrigin }),
      'editor-role-email': editorRoleEmailJob({ db, mail, publicOrigin }),
      'return-label': returnLabelJob({ db, shipping, publicOrigin, catalogue: async () => loadCatalogueIndex() }),
    });
    const runOutbox = (now?: Date) => processDue(db, handlers, now ? { now } : {});
    return { services, db, sent, mailDown, runOutbox };
  })();
  return current;
}

export async function stopShop(): Promise<void> {
  const shop = await current;
  current = undefined;
  await shop?.db.close();
}
