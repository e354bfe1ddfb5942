// A refusal shown beside its field: the message under the field's label, and the input marked invalid and described by
// it (with its hint, if it has one), so a screen reader says why as it reaches the field.
import type { Refusal } from './catalogue-form';
import { inputFor } from './catalogue-form';

/** The refusals of a form, by the input each is shown beside (`price`, `alt-2`, …). */
export type Problems = ReadonlyMap<string, string>;

/** The refusals by input: two about one input are said together. */
export function problemsByInput(refusals: readonly Refusal[]): Problems {
  const by = new Map<string, string>();
  for (const { field, message } of refusals) {
    const input = inputFor(field);
    by.set(input, by.has(input) ? `${by.get(input)} ${message}` : message);
  }
  return by;
}

/** The id of the message shown beside `input`. */
export const problemId = (base: string, input: string) => `${base}-${input}-problem`;

/** An input's id, and, when it is refused, aria-invalid and the message in its description (before its hint). */
export function fieldProps(base: string, input: string, problems: Problems, hint?: string) {
  const refused = problems.has(input);
  const described = [refused ? problemId(base, input) : '', hint ?? ''].filter(Boolean).join(' ');
  return {
    id: `${base}-${input}`,
    ...(refused ? { 'aria-invalid': true as const } : {}),
    ...(described ? { 'aria-describedby': described } : {}),
  };
}

/** The message beside a refused input, or nothing. */
export function FieldProblem({ base, input, problems }: { base: string; input: string; problems: Problems }) {
  const message = problems.get(input);
  return message ? (
    <p className="field-problem" id={problemId(base, input)}>
      {message}
    </p>
  ) : null;
}
