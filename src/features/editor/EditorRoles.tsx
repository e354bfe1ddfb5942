import { type SubmitEvent, useId, useState } from 'react';
import { api } from '@/lib/api';
import type { EditorRow } from './editors.server';

interface Props {
  editors: EditorRow[];
}

interface Answer {
  changed: boolean;
  message: string;
  editors: EditorRow[];
}

/** The admin grants the editor role by e-mail and removes it; each change is in the activity log. */
export default function EditorRoles(props: Props) {
  const id = useId();
  const [editors, setEditors] = useState(props.editors);
  const [email, setEmail] = useState('');
  const [note, setNote] = useState<{ error: boolean; text: string } | null>(null);
  const [busy, setBusy] = useState(false);

  async function change(address: string, editor: boolean) {
    setBusy(true);
    const r = await api<Answer>('/api/admin/editors', { email: address, editor });
    setBusy(false);
    if (!r.ok) return setNote({ error: true, text: r.message });
    setEditors(r.data.editors);
    setNote({ error: false, text: r.data.message });
    if (editor) setEmail('');
  }

  const grant = (e: SubmitEvent<HTMLFormElement>) => {
    e.preventDefault();
    void change(email, true);
  };

  return (
    <div className="editor-roles">
      <form onSubmit={grant} noValidate>
        <div className="field">
          <label htmlFor={`${id}-email`}>E-mail address of their account</label>
          <input
            id={`${id}-email`}
            type="email"
            autoComplete="off"
            value={email}
            onChange={(e) => setEmail(e.target.value)}
            aria-describedby={`${id}-note`}
          />
        </div>
        <button type="submit" className="btn" disabled={busy}>
          Grant the editor role
        </button>
      </form>
      <p id={`${id}-note`} className={note?.error ? 'form-error' : 'editor-status'} role={note?.error ? 'alert' : 'status'}>
        {note?.text ?? ''}
      </p>
      <h2>Editors</h2>
      {editors.length === 0 ? (
        <p>No one has the editor role. Admins can always edit the catalogue.</p>
      ) : (
        <ul className="editor-list">
          {editors.map((e) => (
            <li key={e.email}>
              <span>
                {e.email} <span className="field-hint">granted by {e.grantedBy}</span>
              </span>
              <button type="button" className="btn btn-outline" disabled={busy} onClick={() => change(e.email, false)}>
                Remove<span className="visually-hidden">{` the editor role of ${e.email}`}</span>
              </button>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
