import { useStore } from '@nanostores/react';
import { type ComponentType, useEffect, useState } from 'react';
import { $authModal } from './auth.store';

/** Loads the login/signup dialog only when a shopper opens it, so pages do not pay for it up front. */
export default function AuthModalHost() {
  const pane = useStore($authModal);
  const [Modal, setModal] = useState<ComponentType | null>(null);
  useEffect(() => {
    if (pane !== 'closed' && !Modal) import('./AuthModal').then((m) => setModal(() => m.default));
  }, [pane, Modal]);
  return Modal ? <Modal /> : null;
}
