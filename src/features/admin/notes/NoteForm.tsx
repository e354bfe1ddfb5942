import { type SubmitEvent, useId, useState } from 'react';
import { notifyOnNextPage } from '@/features/toasts/next-page-toast';
import { notify } from '@/features/toasts/toast.store';
import { api } from '@/lib/api';
import { MAX_NOTE_LENGTH, type NoteAnswer, noteLength, noteProblem } from './notes';

interface NoteFormProps {
  /** The endpoint the note goes to. */
  action: string;
  /** What the endpoint needs beside the note: the customer it is about (an order's endpoint names its order). */
  customer?: { userId: string } | { email: string };
}

const count = new Intl.NumberFormat('en-US');

/**
 * Adds a private note (an order's or a customer's). An empty or too long note is refused here, in words, before
 * anything is sent, and the server says the same; a saved note reloads the page, which lists it with its author and
 * time, and says so in a toast there. The button is disabled from the click until then.
 */
export default function NoteForm(props: NoteFormProps) {
  const [text, setText] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const id = useId();

  async function save(e: SubmitEvent<HTMLFormElement>) {
    e.preventDefault();
    if (busy) return;
    const why = noteProblem(text);
    if (why) return setError(why);
    setError(null);
    setBusy(true);
    const r = await api<NoteAnswer>(props.action, { ...props.customer, note: text });
    if (!r.ok) {
      setBusy(false);
      if (r.status === 400) setError(r.message);
      else notify.failure('The note was not saved', r);
      return;
    }
    notifyOnNextPage('success', r.data.message);
    window.location.reload();
  }

  return (
    <form className="admin-note-form" onSubmit={save} noValidate>
      <div className="field">
        <label htmlFor={id}>Add a private note</label>
        <textarea
          id={id}
          rows={3}
          value={text}
          aria-invalid={error ? true : undefined}
          aria-describedby={error ? `${id}-error` : `${id}-hint`}
          onChange={(e) => setText(e.target.value)}
        />
        {error ? (
          <p id={`${id}-error`} className="form-error" role="alert">
            {error}
          </p>
        ) : (
          <p id={`${id}-hint`} className="admin-note">
            Only admins see notes, never the customer. {count.format(noteLength(text))} of {count.format(MAX_NOTE_LENGTH)}{' '}
            characters.
          </p>
        )}
      </div>
      <button type="submit" className="btn btn-outline" disabled={busy}>
        Save note
      </button>
    </form>
  );
}
