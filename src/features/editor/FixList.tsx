// What stops a save, listed by the Save button: each refusal links to its field (the field is focused, as on a long
// form the field may be thousands of pixels away).
import { inputFor, type Refusal } from './catalogue-form';

/** The element to focus for a refusal's input: the input, or the first control of a group (a fieldset). */
export function focusable(base: string, input: string): HTMLElement | null {
  const el = document.getElementById(`${base}-${input}`);
  if (el?.tagName !== 'FIELDSET') return el;
  return el.querySelector<HTMLElement>('input:not([type="hidden"]), select, textarea, button');
}

/** Focuses the first of `refusals`' fields in the page's order, or `fallback` when none has a field on the form. */
export function focusFirst(base: string, refusals: readonly Refusal[], fallback: HTMLElement | null): void {
  const targets = refusals
    .map((r) => focusable(base, inputFor(r.field)))
    .filter((el): el is HTMLElement => el !== null)
    .sort((a, b) => (a.compareDocumentPosition(b) & Node.DOCUMENT_POSITION_FOLLOWING ? -1 : 1));
  const target = targets[0] ?? fallback;
  target?.focus();
  target?.scrollIntoView({ block: 'center' });
}

export default function FixList({ base, refusals }: { base: string; refusals: readonly Refusal[] }) {
  if (refusals.length === 0) return null;
  return (
    <section className="editor-fix" aria-labelledby={`${base}-fix`}>
      <h2 id={`${base}-fix`} tabIndex={-1}>
        To fix before saving
      </h2>
      <ul>
        {refusals.map((r) => {
          const input = inputFor(r.field);
          return (
            <li key={`${r.field} ${r.message}`}>
              {input === 'product' ? (
                r.message
              ) : (
                <a
                  href={`#${base}-${input}`}
                  onClick={(e) => {
                    e.preventDefault();
                    focusFirst(base, [r], null);
                  }}
                >
                  {r.message}
                </a>
              )}
            </li>
          );
        })}
      </ul>
    </section>
  );
}
