import { useStore } from '@nanostores/react';
import { type PointerEvent, useEffect, useRef, useState } from 'react';
import { createPortal } from 'react-dom';
import { NEXT_PAGE_KEY, TOAST } from './toast.constants';
import { $toasts, dismiss, isSwipeDismiss, type ToastMessage } from './toast.store';
import './toasts.css';

/**
 * The page's one toast region, top-right (product spec: 4 s each, at most 3, 356 px wide, swipe 45 px to dismiss).
 * Our own rather than a library's: it injects no <style> at run time, so the Content-Security-Policy holds.
 *
 * While a modal dialog is open (the cart drawer, the login dialog) the page behind it is inert and painted under it
 * and its backdrop, the toaster included: a shopper who paid saw 'Order … placed!' greyed under the drawer, unable to
 * close it, unannounced. So the region then lives inside that dialog, where it is not inert, as a popover: shown, it
 * joins the top layer above the dialog and is not clipped by it.
 */
export default function Toaster() {
  // Hydration renders no toast, as the build did; one raised before this island woke up appears right after.
  const toasts = useStore($toasts, { ssr: 'initial' });
  const dialog = useOpenModalDialog();
  // What the page before this one left to be seen (the order just placed, before the spec's reload): its code loads
  // only when there is one.
  useEffect(() => {
    if (waitingForThisPage()) void import('./next-page-toast').then((m) => m.showNextPageToast());
  }, []);
  const region = (
    <section
      className="toaster"
      aria-label="Notifications"
      popover={dialog ? 'manual' : undefined}
      ref={(el) => {
        if (el && dialog && !el.matches(':popover-open')) el.showPopover();
      }}
    >
      <ol>
        {[...toasts].reverse().map((t) => (
          <Toast key={t.id} toast={t} />
        ))}
      </ol>
    </section>
  );
  return dialog ? createPortal(region, dialog) : region;
}

function waitingForThisPage(): boolean {
  try {
    return sessionStorage.getItem(NEXT_PAGE_KEY) !== null;
  } catch {
    return false;
  }
}

/** The modal dialog open on the page, or null: followed as dialogs open and close. */
function useOpenModalDialog(): HTMLDialogElement | null {
  const [dialog, setDialog] = useState<HTMLDialogElement | null>(null);
  useEffect(() => {
    const find = () => setDialog(document.querySelector<HTMLDialogElement>('dialog:modal'));
    find();
    // showModal() and close() set and remove the open attribute.
    const observer = new MutationObserver(find);
    observer.observe(document.body, { subtree: true, attributes: true, attributeFilter: ['open'] });
    return () => observer.disconnect();
  }, []);
  return dialog;
}

function Toast({ toast }: { toast: ToastMessage }) {
  const [paused, setPaused] = useState(false);
  const [dx, setDx] = useState(0);
  const start = useRef<number | null>(null);

  // Hovering or touching holds the toast; letting go gives it its full time again.
  useEffect(() => {
    const durationMs = toast.durationMs ?? TOAST.durationMs;
    if (paused || !Number.isFinite(durationMs)) return undefined;
    const timer = window.setTimeout(() => dismiss(toast.id), durationMs);
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
        {toast.link && (
          <a className="toast-link" href={toast.link.href}>
            {toast.link.label}
          </a>
        )}
        {toast.action && (
          <button
            type="button"
            className="toast-link link-button"
            onClick={() => {
              toast.action?.run();
              dismiss(toast.id);
            }}
          >
            {toast.action.label}
          </button>
        )}
      </div>
      <button type="button" className="toast-close" onClick={() => dismiss(toast.id)}>
        <span aria-hidden="true">×</span>
        <span className="visually-hidden">Close notification</span>
      </button>
    </li>
  );
}
