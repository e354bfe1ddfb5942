/** A form's problem, announced to screen readers as it appears; nothing when there is none. */
export default function FormError({ text }: { text: string | null }) {
  if (!text) return null;
  return (
    <p className="form-error" role="alert">
      {text}
    </p>
  );
}
