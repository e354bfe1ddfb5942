// A product's history under its form: every save, newest first, what it changed (its texts old and new, word by
// word), when and by whom, whether shoppers see it yet, and an Undo for each; once older saves were pruned, a line
// saying so (decision 021).
import type { HistoryRow } from './catalogue-edit.server';
import { OLDER_PRUNED_WORDS } from './revision-policy';
import type { TextChange } from './text-diff';

/** A text's change as the reader sees it: words taken out struck through, words put in underlined, each said so. */
export function Change({ change }: { change: TextChange }) {
  return (
    <p className="editor-diff">
      <span className="editor-diff-label">{change.label}: </span>
      {change.parts.map((part, i) => {
        const key = `${i}${part.kind}`;
        if (part.kind === 'removed')
          return (
            <del key={key}>
              <span className="visually-hidden">[taken out: </span>
              {part.text}
              <span className="visually-hidden">]</span>
            </del>
          );
        if (part.kind === 'added')
          return (
            <ins key={key}>
              <span className="visually-hidden">[put in: </span>
              {part.text}
              <span className="visually-hidden">]</span>
            </ins>
          );
        return <span key={key}>{part.text}</span>;
      })}
    </p>
  );
}

interface Props {
  base: string;
  history: HistoryRow[];
  /** Older saves of the product were pruned. */
  olderPruned: boolean;
  busy: boolean;
  time: (iso: string) => string;
  onUndo: (revision: number) => void;
}

export default function EditHistory({ base, history, olderPruned, busy, time, onUndo }: Props) {
  return (
    <section className="editor-history" aria-labelledby={`${base}-history`}>
      <h2 id={`${base}-history`}>History</h2>
      {history.length === 0 ? (
        <p>No saves yet: the product is as the shop was built with it.</p>
      ) : (
        <ol>
          {history.map((row) => (
            <li key={row.id}>
              <p>
                <strong>{row.summary}</strong>
              </p>
              {row.texts.map((change) => (
                <Change key={change.label} change={change} />
              ))}
              <p className="field-hint">
                {time(row.at)} by {row.by} · {row.published ? 'published' : 'not yet published'}
              </p>
              {row.undoable ? (
                <button type="button" className="btn btn-outline" disabled={busy} onClick={() => onUndo(row.id)}>
                  Undo<span className="visually-hidden">{` “${row.summary}”`}</span>
                </button>
              ) : (
                <p className="field-hint">The save before it is no longer kept, so it cannot be undone.</p>
              )}
            </li>
          ))}
        </ol>
      )}
      {olderPruned && <p className="field-hint">{OLDER_PRUNED_WORDS}</p>}
    </section>
  );
}
