// Shown when a save finds that someone saved the product since the form was opened: who saved what, then each field
// where what was typed and the newer save differ, to keep one's own or take the newer; then save over the newer save.
// What was typed stays in the form meanwhile.
import { useEffect, useRef, useState } from 'react';
import type { ProductForm } from './catalogue-edit.server';
import type { FormInputs } from './catalogue-form';
import type { Difference } from './save-conflict';

interface Props {
  base: string;
  /** The save the form was opened on. */
  revision: number;
  newer: ProductForm;
  /** Where the form, as it is now, and the newer save differ. */
  found: Difference[];
  busy: boolean;
  time: (iso: string) => string;
  /** Save over the newer save, keeping the editor's own value in these fields. */
  onSave: (keepMine: Set<keyof FormInputs>) => void;
  /** Drop what was typed and show the newer save. */
  onTakeNewer: () => void;
}

export default function SaveConflict({ base, revision, newer, found, busy, time, onSave, onTakeNewer }: Props) {
  // The editor's choices; a field not chosen keeps what the editor changed and takes the newer save's otherwise.
  const [chosen, setChosen] = useState<Partial<Record<keyof FormInputs, boolean>>>({});
  const keepsMine = (d: Difference) => chosen[d.key] ?? d.changedByMe;
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), []);
  const since = newer.history.filter((row) => row.id > revision);
  const choose = (key: keyof FormInputs, mine: boolean) => setChosen((now) => ({ ...now, [key]: mine }));

  return (
    <section className="editor-conflict" aria-labelledby={`${base}-conflict`}>
      <h2 id={`${base}-conflict`} ref={heading} tabIndex={-1}>
        Someone saved this product while you were editing
      </h2>
      <ul>
        {since.map((row) => (
          <li key={row.id}>
            {row.by} saved at {time(row.at)}: {row.summary}.
          </li>
        ))}
      </ul>
      {found.length === 0 ? (
        <p>Their save and your form are the same: save to keep it, or take theirs.</p>
      ) : (
        <p>
          Nothing you typed is lost: it is still in the form above. Where your form and their save differ, choose which to keep,
          then save it over theirs.
        </p>
      )}
      {found.map((d) => {
        const who =
          d.changedByMe && d.changedByThem ? 'you both changed it' : d.changedByMe ? 'you changed it' : 'they changed it';
        return (
          <fieldset key={d.key} className="editor-conflict-field">
            <legend>
              {d.label} <span className="field-hint">({who})</span>
            </legend>
            <label>
              <input type="radio" name={`${base}-keep-${d.key}`} checked={keepsMine(d)} onChange={() => choose(d.key, true)} />{' '}
              Keep mine
              <span className="editor-conflict-value">{d.mine}</span>
            </label>
            <label>
              <input type="radio" name={`${base}-keep-${d.key}`} checked={!keepsMine(d)} onChange={() => choose(d.key, false)} />{' '}
              Take the newer save
              <span className="editor-conflict-value">{d.newer}</span>
            </label>
          </fieldset>
        );
      })}
      <div className="editor-row-actions">
        <button
          type="button"
          className="btn"
          disabled={busy}
          onClick={() => onSave(new Set(found.filter(keepsMine).map((d) => d.key)))}
        >
          Save with these choices
        </button>
        <button type="button" className="btn btn-outline" disabled={busy} onClick={onTakeNewer}>
          Drop mine, show their save
        </button>
      </div>
    </section>
  );
}
