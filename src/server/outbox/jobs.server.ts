import { z } from 'astro/zod';
import type { Sql } from '../db/database.server';
import { mailMessageSchema } from '../mail/mail.port';
import { enqueue, type JobHandler, PermanentJobError } from './outbox.server';

/**
 * Every kind of job the shop queues, with the payload it carries. The payload is checked when it is queued (a bug
 * fails the transaction that caused it) and again when it runs (rows written by an earlier version of the code).
 */
export const JOBS = {
  /** One e-mail, sent through the mail port. */
  email: mailMessageSchema,
  /** Buys a paid order's shipping label and stores its tracking number (once per order). */
  'order-label': z.object({ orderId: z.uuid() }),
  /** The order's confirmation to the shopper or its notice to the shop, each with the order page's token. */
  'order-email': z.object({
    orderId: z.uuid(),
    audience: z.enum(['customer', 'shop']),
    accessToken: z.string().min(20).max(100).optional(),
  }),
  /**
   * A password reset someone asked for: the accounts port looks the address up and mails a link if it has an account.
   * Queued for every request, so the answer does the same work whether or not the address has an account.
   */
  'password-reset': z.object({ email: z.string().max(320) }),
  /** A confirmation link asked for again; like 'password-reset', queued whatever the address. */
  'confirmation-resend': z.object({ email: z.string().max(320) }),
  /** Tells the shop of a contact message (queued by the database as the message is written, once per message). */
  'contact-notice': z.object({ messageId: z.number().int().positive() }),
  /**
   * Tells the shopper the shop refunded part of their order (once per refund, `refundId`) or cancelled it (once per
   * order), with the order page's token the confirmation carried.
   */
  'order-change-email': z.object({
    orderId: z.uuid(),
    change: z.enum(['refund', 'cancel', 'sold-out']),
    refundId: z.string().min(1).max(200).optional(),
    accessToken: z.string().min(20).max(100).optional(),
  }),
  /**
   * Refunds an order recorded sold out (its payment succeeded after the items were gone), then queues what the shopper
   * and the shop are told; once per order, with the order page's token for the shopper's e-mail.
   */
  'order-sold-out': z.object({ orderId: z.uuid(), accessToken: z.string().min(20).max(100).optional() }),
  /** Tells the shopper their order has shipped, with its tracking (queued once, when an admin marks it shipped). */
  'order-shipped-email': z.object({ orderId: z.uuid(), accessToken: z.string().min(20).max(100).optional() }),
  /**
   * Buys an approved return's label and stores it (once per return), then queues the shopper's approval e-mail with
   * it, linking with the order page's token.
   */
  'return-label': z.object({ returnId: z.uuid(), accessToken: z.string().min(20).max(100).optional() }),
  /** Tells the shopper where their return stands, once per step, linking with the order page's token. */
  'return-email': z.object({
    returnId: z.uuid(),
    step: z.enum(['requested', 'approved', 'received', 'refunded', 'exchanged', 'declined']),
    accessToken: z.string().min(20).max(100).optional(),
  }),
  /**
   * Tells the shop a counted item fell to its low-stock threshold or below (queued by the database with the sale that
   * crossed it, once per crossing: migration 20261205090000).
   */
  'low-stock-email': z.object({
    productId: z.number().int().positive(),
    color: z.string().max(40),
    size: z.string().max(10),
    label: z.string().min(1).max(300),
    onHand: z.number().int().min(0),
    threshold: z.number().int().min(0),
  }),
  /** Tells an account an admin granted it the editor role, with the link to the catalogue editor (once per grant). */
  'editor-role-email': z.object({ userId: z.uuid() }),
} as const satisfies Record<string, z.ZodType>;

export type JobKind = keyof typeof JOBS;
export type JobPayload<K extends JobKind> = z.infer<(typeof JOBS)[K]>;
export type JobHandlers = { [K in JobKind]: (payload: JobPayload<K>) => Promise<void> };

/**
 * Queues a job in the caller's transaction (run as service_role). `dedupeKey` names the work, not the attempt
 * (`verify:<token>`, `label:<order id>`): a second job with the same key is not added, so one order can never
 * enqueue its label or e-mails twice. Returns whether a job was added.
 */
export async function queueJob<K extends JobKind>(tx: Sql, kind: K, payload: JobPayload<K>, dedupeKey: string): Promise<boolean> {
  const parsed = JOBS[kind].safeParse(payload);
  if (!parsed.success) throw new Error(`An outbox job of kind ${kind} has a malformed payload: ${parsed.error.message}`);
  return enqueue(tx, { kind, payload: parsed.data, dedupeKey });
}

/**
 * The outbox worker's handlers, each checking its payload before it runs (a bad one is set aside). The server passes
 * one for every kind (JobHandlers); a test may pass only the kinds it runs, and the worker leaves the others queued.
 */
export function jobHandlers<H extends Partial<JobHandlers>>(handlers: H): { [K in keyof H]: JobHandler } {
  const run = <K extends JobKind>(kind: K): JobHandler => {
    return async (payload) => {
      const parsed = JOBS[kind].safeParse(payload);
      if (!parsed.success)
        throw new PermanentJobError(`the ${kind} payload is not what the job expects: ${parsed.error.message}`);
      // The schema of this kind has just checked the payload: it is this kind's payload.
      const handler = handlers[kind] as ((payload: JobPayload<K>) => Promise<void>) | undefined;
      if (!handler) throw new PermanentJobError(`no handler for ${kind}`);
      await handler(parsed.data as JobPayload<K>);
    };
  };
  return Object.fromEntries((Object.keys(handlers) as JobKind[]).map((kind) => [kind, run(kind)])) as {
    [K in keyof H]: JobHandler;
  };
}
