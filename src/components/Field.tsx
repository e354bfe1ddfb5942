import type { ReactNode } from 'react';

/** What a field's control carries so its error is announced with it: pass the control's `id` and the error. */
export function describedBy(id: string, error: string | undefined) {
  return { 'aria-invalid': error ? true : undefined, 'aria-describedby': error ? `${id}-error` : undefined } as const;
}

interface FieldProps {
  /** The control's id: the label points at it, and the error's id is `${id}-error`. */
  id: string;
  label: string;
  error?: string | undefined;
  /** The control (with `id` and `{...describedBy(id, error)}`), and anything that belongs under it. */
  children: ReactNode;
}

/** One form field: its label, its control, and the error that describes it, under it. */
export default function Field({ id, label, error, children }: FieldProps) {
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      {children}
      {error && (
        <p id={`${id}-error`} className="field-error">
          {error}
        </p>
      )}
    </div>
  );
}
