// Shown on a product's form when a deploy changed the product's file in the repository after editors saved it
// (decision 018): both versions (what differs in words, their texts word by word, each file whole), what shoppers are
// served meanwhile, and the choice: keep the saved version or take the repository's, either a save.
import { Change } from './EditHistory';
import type { RepositoryChange as Found } from './repository-changes.server';

interface Props {
  base: string;
  change: Found;
  busy: boolean;
  time: (iso: string) => string;
  onChoose: (choice: 'keep' | 'take') => void;
}

export default function RepositoryChange({ base, change, busy, time, onChoose }: Props) {
  return (
    <section className="editor-conflict editor-repository" aria-labelledby={`${base}-repository`}>
      <h2 id={`${base}-repository`}>Changed in the repository</h2>
      <p>
        A deploy on {time(change.foundAt)} brought a new version of this product’s file from the repository, after editors had
        saved it. Neither version wins by itself: choose which to keep.
      </p>
      <p>
        <strong>{change.served}</strong>
      </p>
      <p>
        From the saved version to the repository’s: <span className="editor-repository-summary">{change.summary}</span>.
      </p>
      {change.texts.length > 0 && (
        <>
          <p className="field-hint">Struck through: only in the saved version. Underlined: only in the repository’s.</p>
          {change.texts.map((text) => (
            <Change key={text.label} change={text} />
          ))}
        </>
      )}
      <details>
        <summary>The saved version, whole</summary>
        <pre className="editor-file">{change.savedText}</pre>
      </details>
      <details>
        <summary>The repository’s version, whole</summary>
        <pre className="editor-file">{change.repositoryText}</pre>
      </details>
      <p className="field-hint">
        Keep the saved version: the shop goes on with it, and the repository’s change is set aside (export the catalogue so the
        repository has the saved version too). Take the repository’s version: it becomes a new save, undoable, which shoppers see
        once published.
      </p>
      <div className="editor-row-actions">
        <button type="button" className="btn" disabled={busy} onClick={() => onChoose('keep')}>
          Keep the saved version
        </button>
        <button type="button" className="btn btn-outline" disabled={busy} onClick={() => onChoose('take')}>
          Take the repository’s version
        </button>
      </div>
    </section>
  );
}
