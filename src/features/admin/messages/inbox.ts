// Contact messages as the admin's inbox island and its endpoint (POST /api/admin/messages) both see them.

/** The most messages one request may mark. */
export const MAX_MESSAGES_PER_MARK = 100;

/** A contact message as the inbox lists it. */
export interface InboxMessage {
  id: number;
  name: string;
  email: string;
  message: string;
  /** ISO 8601. */
  createdAt: string;
  read: boolean;
}

/** What POST /api/admin/messages answers: each message's state now, and whether this request changed it. */
export interface MarkAnswer {
  messages: { id: number; read: boolean; changed: boolean }[];
}
