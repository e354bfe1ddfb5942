import { z } from 'astro/zod';
import { type InboxMessage, MAX_MESSAGES_PER_MARK, type MarkAnswer } from '@/features/admin/messages/inbox';
import type { CookieJar } from '@/server/auth/auth.port';
import type { Sql } from '@/server/db/database.server';
import { json, problem, readJson } from '@/server/http.server';
import { type Admin, type AdminDeps, recordAction, requireAdminOf } from '../admin.server';

// The contact messages: newest first, read or unread as the shop owner marks them. Anyone may still write
// one; only the server, as service_role, reads them (tests/db/rls.test.ts).

/** How many messages there are, and how many are unread. */
export async function countMessages(tx: Sql): Promise<{ total: number; unread: number }> {
  const [row] = await tx.query<{ total: number; unread: number }>(
    `select count(*)::int as total, count(*) filter (where read_at is null)::int as unread from public.contact_messages`,
  );
  return { total: row?.total ?? 0, unread: row?.unread ?? 0 };
}

/** How many messages are unread (cheap: a partial index holds exactly those). */
export async function countUnreadMessages(tx: Sql): Promise<number> {
  const [row] = await tx.query<{ n: number }>(`select count(*)::int as n from public.contact_messages where read_at is null`);
  return row?.n ?? 0;
}

/** A page of messages, newest first, before message `before` (the previous page's last one). */
export async function listMessages(
  tx: Sql,
  { limit, before }: { limit: number; before?: number | undefined },
): Promise<{ rows: InboxMessage[]; next: number | undefined }> {
  const rows = await tx.query<{
    id: string | number;
    name: string;
    email: string;
    message: string;
    created_at: Date;
    read: boolean;
  }>(
    `select id, name, email, message, created_at, read_at is not null as read from public.contact_messages
     where $1::bigint is null or id < $1 order by id desc limit $2`,
    [before ?? null, limit + 1],
  );
  const page = rows.slice(0, limit).map((r) => ({
    id: Number(r.id),
    name: r.name,
    email: r.email,
    message: r.message,
    createdAt: new Date(r.created_at).toISOString(),
    read: r.read,
  }));
  return { rows: page, next: rows.length > limit ? page.at(-1)?.id : undefined };
}

/** Why a mark was refused: the messages asked about that do not exist. */
export class UnknownMessages extends Error {
  constructor(readonly ids: number[]) {
    super(`No such message: ${ids.join(', ')}`);
  }
}

/**
 * Marks messages read or unread, each change recorded as an admin action in the same transaction. A message already
 * so is left alone and recorded nothing. Throws UnknownMessages, changing nothing, when any id is not a message.
 */
export async function markMessages(tx: Sql, admin: Admin, ids: readonly number[], read: boolean): Promise<MarkAnswer> {
  const wanted = [...new Set(ids)];
  const rows = await tx.query<{ id: string | number; read: boolean }>(
    `select id, read_at is not null as read from public.contact_messages where id = any($1::bigint[]) order by id for update`,
    [wanted],
  );
  const found = new Map(rows.map((r) => [Number(r.id), r.read]));
  const missing = wanted.filter((id) => !found.has(id));
  if (missing.length > 0) throw new UnknownMessages(missing);

  const changing = wanted.filter((id) => found.get(id) !== read);
  if (changing.length > 0) {
    await tx.query(
      read
        ? 'update public.contact_messages set read_at = now() where id = any($1::bigint[])'
        : 'update public.contact_messages set read_at = null where id = any($1::bigint[])',
      [changing],
    );
    for (const id of changing)
      await recordAction(tx, admin, {
        action: read ? 'message.read' : 'message.unread',
        target: `message:${id}`,
        before: read ? 'unread' : 'read',
        after: read ? 'read' : 'unread',
      });
  }
  return { messages: wanted.map((id) => ({ id, read, changed: changing.includes(id) })) };
}

const markBody = z.object(
  {
    ids: z
      .array(z.number({ error: 'Each message id must be a number.' }).int().positive().max(Number.MAX_SAFE_INTEGER), {
        error: 'ids must be a list of message ids.',
      })
      .min(1, { error: 'Choose at least one message.' })
      .max(MAX_MESSAGES_PER_MARK, { error: `At most ${MAX_MESSAGES_PER_MARK} messages at a time.` }),
    read: z.boolean({ error: 'read must be true or false.' }),
  },
  { error: 'Send {"ids": [<message id>, …], "read": true | false}.' },
);

/** POST /api/admin/messages {ids, read}: 200 with each message's state, 404 for a caller who is no admin. */
export async function markMessagesRoute(deps: AdminDeps, request: Request, jar: CookieJar): Promise<Response> {
  const me = await requireAdminOf(deps, jar);
  if (me instanceof Response) return me;
  const body = await readJson(request, markBody);
  if ('response' in body) return body.response;
  try {
    return json(await me.run((tx) => markMessages(tx, me.admin, body.data.ids, body.data.read)));
  } catch (error) {
    if (error instanceof UnknownMessages)
      return problem(404, 'message_not_found', 'A message you chose no longer exists. Reload the page and try again.');
    throw error;
  }
}
