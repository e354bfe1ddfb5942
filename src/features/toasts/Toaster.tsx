import { useStore } from '@nanostores/react';
import { type CSSProperties, useEffect, useState } from 'react';
import { TOAST } from './toast.constants';
import { $toastQueue } from './toast.store';

type Sonner = typeof import('sonner');

/**
 * The page's one toast region. Sonner is loaded with the first message rather than with the page:
 * most visits show no toast, so its code stays out of the JavaScript every page pays for.
 */
export default function Toaster() {
  const queue = useStore($toastQueue);
  const [sonner, setSonner] = useState<Sonner | null>(null);

  useEffect(() => {
    if (queue.length > 0 && !sonner) {
      import('sonner').then(setSonner, () => undefined);
    }
  }, [queue, sonner]);

  // Runs after sonner's <Toaster> (a child) has subscribed, so no message is published before anyone listens.
  useEffect(() => {
    if (!sonner || queue.length === 0) return;
    for (const m of queue) {
      sonner.toast[m.kind](m.title, {
        ...(m.description ? { description: m.description } : {}),
        ...(m.durationMs ? { duration: m.durationMs } : {}),
      });
    }
    $toastQueue.set([]);
  }, [sonner, queue]);

  if (!sonner) return null;
  return (
    <sonner.Toaster
      position={TOAST.position}
      duration={TOAST.durationMs}
      visibleToasts={TOAST.visible}
      style={{ '--width': `${TOAST.widthPx}px` } as CSSProperties}
      closeButton
    />
  );
}
