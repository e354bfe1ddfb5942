import { atom } from 'nanostores';

export type ToastKind = 'success' | 'error' | 'info';

export interface ToastMessage {
  id: number;
  kind: ToastKind;
  title: string;
  description?: string;
  durationMs?: number;
}

/** Messages waiting for the toaster. The toaster island drains it; until it has loaded, messages wait here. */
export const $toastQueue = atom<ToastMessage[]>([]);

let nextId = 1;

function push(kind: ToastKind, title: string, options: { description?: string; durationMs?: number } = {}): void {
  $toastQueue.set([...$toastQueue.get(), { id: nextId++, kind, title, ...options }]);
}

/** Shows a toast from any island: notify.error('Login to like products'). */
export const notify = {
  success: (title: string, options?: { description?: string; durationMs?: number }) => push('success', title, options),
  error: (title: string, options?: { description?: string; durationMs?: number }) => push('error', title, options),
  info: (title: string, options?: { description?: string; durationMs?: number }) => push('info', title, options),
};
