import { z } from 'astro/zod';
import { orderNumber } from '@/features/orders/orders';
import type { CookieJar } from '@/server/auth/auth.port';
import type { Sql } from '@/server/db/database.server';
import { json, problem, readJson } from '@/server/http.server';
import { type AdminCaller, type AdminDeps, recordAction, requireAdminOf } from '../admin.server';
import { resolveCustomer, type Who } from '../customers/customer-detail.server';
import { accountKey, type CustomerKey, guestKey, MAX_EMAIL } from '../customers/customers';
import { isoText } from '../paging.server';
import { type AdminNote, type NoteAnswer, noteProblem } from './notes';

// The admin's private notes on an order and on a customer. Server-only tables (RLS on, no policy): written and read
// here as service_role, never by a shopper's query, and never put in anything a shopper is sent. Each note is
// recorded in the activity log in the transaction that writes it.

const NOTE_COLUMNS = `id, body, admin_email, ${isoText('created_at')} as created_at`;

type NoteRow = { id: string | number; body: string; admin_email: string; created_at: string };

const toNote = (r: NoteRow): AdminNote => ({
  id: Number(r.id),
  body: r.body,
  adminEmail: r.admin_email,
  createdAt: r.created_at,
});

/** An order's notes, newest first. */
export async function orderNotes(tx: Sql, orderId: string): Promise<AdminNote[]> {
  const rows = await tx.query<NoteRow>(`select ${NOTE_COLUMNS} from public.order_notes where order_id = $1 order by id desc`, [
    orderId,
  ]);
  return rows.map(toNote);
}

/** A customer's notes, newest first: their account's, and those written while they were a guest of their e-mail. */
export async function customerNotes(tx: Sql, who: Who): Promise<AdminNote[]> {
  const rows = await tx.query<NoteRow>(
    `select ${NOTE_COLUMNS} from public.customer_notes
      where ($1::uuid is not null and user_id = $1::uuid) or ($2::text is not null and email = $2::text)
      order by id desc`,
    [who.userId, who.guestEmail],
  );
  return rows.map(toNote);
}

/** What adding a note came to. */
export type NoteResult = { ok: true; answer: NoteAnswer } | { ok: false; status: number; code: string; message: string };

const NOT_FOUND = (what: string): NoteResult => ({ ok: false, status: 404, code: 'not_found', message: `No such ${what}.` });

/** The activity log's target text is at most 200 characters (the table checks it). */
const clip = (text: string) => (text.length > 200 ? `${text.slice(0, 199)}…` : text);

/** Adds a note to an order, recorded as an admin action; 404 when there is no such order. */
export async function addOrderNote(me: AdminCaller, orderId: string, body: string): Promise<NoteResult> {
  return me.run(async (tx) => {
    const [order] = await tx.query<{ id: string }>(`select id::text from public.orders where id = $1`, [orderId]);
    if (!order) return NOT_FOUND('order');
    const [row] = await tx.query<NoteRow>(
      `insert into public.order_notes (order_id, body, admin_id, admin_email) values ($1, $2, $3, $4) returning ${NOTE_COLUMNS}`,
      [orderId, body, me.admin.id, me.admin.email],
    );
    if (!row) throw new Error('the note was not stored');
    await recordAction(tx, me.admin, {
      action: 'order.note',
      target: `${orderNumber(orderId)} (order ${orderId})`,
      after: { note: body },
    });
    return { ok: true, answer: { note: toNote(row), message: `Note added to ${orderNumber(orderId)}.` } };
  });
}

/**
 * Adds a note to a customer, recorded as an admin action: to the account, or to the guest's e-mail (to the account
 * that e-mail now belongs to, when a verified one does); 404 when the key names nobody.
 */
export async function addCustomerNote(me: AdminCaller, key: CustomerKey, body: string): Promise<NoteResult> {
  return me.run(async (tx) => {
    let found = await resolveCustomer(tx, key);
    if (found && 'moved' in found) found = await resolveCustomer(tx, found.moved);
    if (!found || 'moved' in found) return NOT_FOUND('customer');
    const { account, who } = found;
    const [row] = await tx.query<NoteRow>(
      `insert into public.customer_notes (user_id, email, body, admin_id, admin_email) values ($1, $2, $3, $4, $5)
       returning ${NOTE_COLUMNS}`,
      [account?.id ?? null, account ? null : who.guestEmail, body, me.admin.id, me.admin.email],
    );
    if (!row) throw new Error('the note was not stored');
    const email = account?.email ?? who.guestEmail ?? '';
    await recordAction(tx, me.admin, {
      action: 'customer.note',
      target: clip(account ? `${email} (account ${account.id})` : `${email} (guest)`),
      after: { note: body },
    });
    return { ok: true, answer: { note: toNote(row), message: `Note added to ${email}.` } };
  });
}

/** A note's text: checked by noteProblem (empty, too long), stored trimmed. */
const noteText = z
  .string({ error: 'Send the note as text: {"note": "…"}.' })
  .superRefine((text, ctx) => {
    const why = noteProblem(text);
    if (why) ctx.addIssue({ code: 'custom', message: why });
  })
  .transform((text) => text.trim());

export const orderNoteBody = z.object({ note: noteText }, { error: 'Send {"note": "<the note>"}.' });

export const customerNoteBody = z
  .object(
    {
      userId: z.string({ error: 'userId must be an account id.' }).max(36).optional(),
      email: z
        .string({ error: 'email must be the guest’s e-mail.' })
        .max(MAX_EMAIL, { error: 'That e-mail is too long.' })
        .optional(),
      note: noteText,
    },
    { error: 'Send {"userId": <account id>, "note": "…"} or {"email": <guest e-mail>, "note": "…"}.' },
  )
  .refine((b) => (b.userId === undefined) !== (b.email === undefined), {
    error: 'Name the customer by userId (an account) or by email (a guest), one of the two.',
  });

const orderId = z.uuid();

function respond(result: NoteResult): Response {
  return result.ok ? json(result.answer, 201) : problem(result.status, result.code, result.message);
}

/** POST /api/admin/orders/{id}/notes {note}: 201 {note, message}; 400, 404 (also for anyone who is no admin). */
export async function adminOrderNoteRoute(deps: AdminDeps, request: Request, jar: CookieJar, id: string | undefined) {
  const me = await requireAdminOf(deps, jar);
  if (me instanceof Response) return me;
  const order = orderId.safeParse(id);
  if (!order.success) return problem(404, 'not_found', 'No such order.');
  const body = await readJson(request, orderNoteBody);
  if ('response' in body) return body.response;
  return respond(await addOrderNote(me, order.data, body.data.note));
}

/** POST /api/admin/customers/notes {userId | email, note}: 201 {note, message}; 400, 404 (also for anyone who is no admin). */
export async function adminCustomerNoteRoute(deps: AdminDeps, request: Request, jar: CookieJar) {
  const me = await requireAdminOf(deps, jar);
  if (me instanceof Response) return me;
  const body = await readJson(request, customerNoteBody);
  if ('response' in body) return body.response;
  const key = body.data.userId !== undefined ? accountKey(body.data.userId) : guestKey(body.data.email);
  if (!key) return problem(404, 'not_found', 'No such customer.');
  return respond(await addCustomerNote(me, key, body.data.note));
}
