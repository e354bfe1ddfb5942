import { useState } from 'react';
import { api } from '@/lib/api';
import { dateFormat } from '@/lib/dates';
import type { PublishState } from './publish.server';
import { earlierWords } from './publish-words';

interface Props {
  state: PublishState;
  timeZone: string;
  /** Called with the panel's state once an earlier publish is served again. */
  onServed(state: PublishState): void;
  /** A publish is under way: nothing can be served again until it is done. */
  underway: boolean;
}

/**
 * The publishes that went live before the one shoppers see, newest first, each with "Serve this publish again"
 * (decision 019): its catalogue live again on every server, without what was saved since (which then counts as not
 * published). Listed in the Publish panel, under the schedule.
 */
export default function EarlierPublishes({ state, timeZone, onServed, underway }: Props) {
  const [busy, setBusy] = useState(false);
  const [note, setNote] = useState<{ kind: 'error' | 'done'; text: string } | null>(null);
  const when = (iso: string) => dateFormat(timeZone, true).format(new Date(iso));

  async function serveAgain(id: number) {
    setBusy(true);
    setNote(null);
    const r = await api<{ state: PublishState }>('/api/admin/catalogue/publish/again', { publishId: id });
    setBusy(false);
    if (!r.ok) return setNote({ kind: 'error', text: `Not served again: ${r.message}` });
    setNote({ kind: 'done', text: `Publish ${id} is served again.` });
    onServed(r.data.state);
  }

  if (state.earlier.length === 0) return null;
  return (
    <div className="editor-earlier">
      <h3>Earlier publishes</h3>
      <p
        className={`editor-schedule-note editor-status-${note?.kind ?? 'none'}`}
        {...(note?.kind === 'error' ? { role: 'alert' } : { 'aria-live': 'polite' as const })}
      >
        {note?.text ?? ''}
      </p>
      <ul className="editor-schedule-list" aria-label="Earlier publishes">
        {state.earlier.map((p) => (
          <li key={p.id}>
            <span>{earlierWords(p, when)}</span>
            <button type="button" className="btn btn-outline" disabled={busy || underway} onClick={() => serveAgain(p.id)}>
              Serve this publish again<span className="visually-hidden">{` (publish ${p.id})`}</span>
            </button>
          </li>
        ))}
      </ul>
    </div>
  );
}
