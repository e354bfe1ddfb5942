import type { CSSProperties } from 'react';
import { Toaster as Sonner } from 'sonner';
import { TOAST } from './toast.constants';

/** The one toast region of the page; any island calls `toast()` from 'sonner' to show a message here. */
export default function Toaster() {
  return (
    <Sonner
      position={TOAST.position}
      duration={TOAST.durationMs}
      visibleToasts={TOAST.visible}
      style={{ '--width': `${TOAST.widthPx}px` } as CSSProperties}
      closeButton
    />
  );
}
