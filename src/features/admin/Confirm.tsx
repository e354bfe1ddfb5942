import { type ReactNode, useEffect, useId, useRef } from 'react';

/** A modal confirmation (native <dialog>: the page behind is inert, Escape keeps things as they are). */
export default function Confirm(props: {
  title: string;
  confirmLabel: string;
  keepLabel: string;
  onConfirm: () => void;
  onKeep: () => void;
  children: ReactNode;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  const keep = useRef<HTMLButtonElement>(null);
  const titleId = useId();
  useEffect(() => {
    const d = dialog.current;
    if (d && !d.open) d.showModal();
    // The safe choice has the focus: Enter on an unread dialog keeps things as they are.
    keep.current?.focus();
    return () => d?.close();
  }, []);
  return (
    <dialog ref={dialog} className="admin-confirm" aria-labelledby={titleId} onClose={props.onKeep}>
      <h2 id={titleId}>{props.title}</h2>
      {props.children}
      <div className="admin-action-row">
        <button type="button" className="btn" onClick={props.onConfirm}>
          {props.confirmLabel}
        </button>
        <button ref={keep} type="button" className="btn btn-outline" onClick={props.onKeep}>
          {props.keepLabel}
        </button>
      </div>
    </dialog>
  );
}
