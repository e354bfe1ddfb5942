// The admin's private notes on an order and on a customer: what a note may be, the words the admin sees, and what the
// activity log calls them. Pure, shared by the server (which enforces them) and the note form.

/** The longest note, in characters (the database checks it too). */
export const MAX_NOTE_LENGTH = 2000;

const count = new Intl.NumberFormat('en-US');

/** A note's length in characters as the database counts them (an emoji is one, not two). */
export const noteLength = (text: string) => [...text.trim()].length;

/** Why `text` cannot be saved as a note (said to the admin as it is), or null when it can. */
export function noteProblem(text: string): string | null {
  const length = noteLength(text);
  if (length === 0) return 'Write something in the note first.';
  if (length > MAX_NOTE_LENGTH)
    return `A note can be at most ${count.format(MAX_NOTE_LENGTH)} characters; this one has ${count.format(length)}.`;
  return null;
}

/** A note as the admin's pages show it. */
export interface AdminNote {
  id: number;
  body: string;
  /** The author's e-mail, as it was when they wrote it. */
  adminEmail: string;
  /** ISO time. */
  createdAt: string;
}

/** What saving a note answers. */
export interface NoteAnswer {
  note: AdminNote;
  message: string;
}

/** The activity log's names for the note actions. */
export const NOTE_ACTION_LABELS = {
  'order.note': 'Order note added',
  'customer.note': 'Customer note added',
} as const;
