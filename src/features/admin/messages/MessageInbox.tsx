import { useState } from 'react';
import { notify } from '@/features/toasts/toast.store';
import { api } from '@/lib/api';
import { adminTime } from '../admin';
import type { InboxMessage, MarkAnswer } from './inbox';

interface Props {
  /** One page of contact messages, rendered by the server, newest first. */
  messages: InboxMessage[];
  /** The shop's time zone (SHOP_TIME_ZONE). */
  timeZone: string;
}

/** The contact messages, each marked read or unread through POST /api/admin/messages. */
export default function MessageInbox({ messages, timeZone }: Props) {
  const [read, setRead] = useState<Record<number, boolean>>({});
  const [busy, setBusy] = useState<ReadonlySet<number>>(new Set());
  const isRead = (m: InboxMessage) => read[m.id] ?? m.read;

  async function mark(id: number, toRead: boolean) {
    setBusy((b) => new Set([...b, id]));
    const result = await api<MarkAnswer>('/api/admin/messages', { ids: [id], read: toRead });
    setBusy((b) => new Set([...b].filter((x) => x !== id)));
    if (!result.ok) {
      notify.failure(toRead ? 'Could not mark the message read' : 'Could not mark the message unread', result);
      return;
    }
    setRead((r) => ({ ...r, ...Object.fromEntries(result.data.messages.map((m) => [m.id, m.read])) }));
    notify.success(toRead ? 'Marked as read' : 'Marked as unread');
  }

  return (
    <ul className="admin-queue">
      {messages.map((m) => {
        const seen = isRead(m);
        const heading = `message-${m.id}`;
        return (
          <li key={m.id} className={seen ? 'admin-item' : 'admin-item admin-item-unread'}>
            <div className="admin-item-head">
              <h2 id={heading}>{m.name}</h2>
              {!seen && <span className="badge badge-unread">Unread</span>}
            </div>
            <p className="admin-item-meta">
              <a href={`mailto:${m.email}`}>{m.email}</a>
              <time dateTime={m.createdAt}>{adminTime(m.createdAt, timeZone)}</time>
            </p>
            <p className="admin-item-text">{m.message}</p>
            <div className="admin-item-actions">
              <button
                type="button"
                className="btn btn-outline"
                aria-describedby={heading}
                disabled={busy.has(m.id)}
                onClick={() => mark(m.id, !seen)}
              >
                {seen ? 'Mark as unread' : 'Mark as read'}
              </button>
            </div>
          </li>
        );
      })}
    </ul>
  );
}
