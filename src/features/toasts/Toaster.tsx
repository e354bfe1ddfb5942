import { useStore } from '@nanostores/react';
import { type PointerEvent, useEffect, useRef, useState } from 'react';
import { TOAST } from './toast.constants';
import { $toasts, dismiss, isSwipeDismiss, type ToastMessage } from './toast.store';
import './toasts.css';

/**
 * The page's one toast region, top-right (spec section 9: 4 s each, at most 3, 356 px wide, swipe 45 px to dismiss).
 * Our own rather than a library's: it injects no <style> at run time, so the Content-Security-Policy holds.
 */
export default function Toaster() {
  // Hydration renders no toast, as the build did; one raised before this island woke up appears right after.
  const toasts = useStore($toasts, { ssr: 'initial' });
  return (
    <section className="toaster" aria-label="Notifications">
      <ol>
        {[...toasts].reverse().map((t) => (
          <Toast key={t.id} toast={t} />
        ))}
      </ol>
    </section>
  );
}

function Toast({ toast }: { toast: ToastMessage }) {
  const [paused, setPaused] = useState(false);
  const [dx, setDx] = useState(0);
  const start = useRef<number | null>(null);

  // Hovering or touching holds the toast; letting go gives it its full time again.
  useEffect(() => {
    if (paused) return undefined;
    const timer = window.setTimeout(() => dismiss(toast.id), toast.durationMs ?? TOAST.durationMs);
    return () => window.clearTimeout(timer);
  }, [paused, toast.id, toast.durationMs]);

  const onPointerDown = (e: PointerEvent) => {
    start.current = e.clientX;
    setPaused(true);
  };
  const onPointerMove = (e: PointerEvent) => {
    if (start.current !== null) setDx(e.clientX - start.current);
  };
  const onPointerUp = () => {
    if (isSwipeDismiss(dx)) dismiss(toast.id);
    start.current = null;
    setDx(0);
    setPaused(false);
  };

  return (
    <li
      className={`toast toast-${toast.kind}`}
      ref={(el) => {
        // Set through the DOM, not a style attribute, so the CSP's style-src needs no 'unsafe-inline'.
        if (el) el.style.transform = dx ? `translateX(${dx}px)` : '';
      }}
      onPointerDown={onPointerDown}
      onPointerMove={onPointerMove}
      onPointerUp={onPointerUp}
      onPointerCancel={onPointerUp}
      onMouseEnter={() => setPaused(true)}
      onMouseLeave={() => setPaused(false)}
    >
      {/* The role is on the content, not the list item: an <li> must stay a list item for the list to be valid. */}
      <div className="toast-body" role={toast.kind === 'error' ? 'alert' : 'status'}>
        <p className="toast-title">{toast.title}</p>
        {toast.description && <p className="toast-description">{toast.description}</p>}
      </div>
      <button type="button" className="toast-close" onClick={() => dismiss(toast.id)}>
        <span aria-hidden="true">×</span>
        <span className="visually-hidden">Close notification</span>
      </button>
    </li>
  );
}
