import { useState } from 'react';
import { notify } from '@/features/toasts/toast.store';
import { api } from '@/lib/api';
import Confirm from '../Confirm';
import type { OrderOpsAnswer } from './order-ops';

/** A new idempotency key for one deliberate resend. */
const newKey = () => crypto.randomUUID();

/**
 * Sends the customer their order confirmation again, after the admin confirms. The key is made when the admin asks,
 * so a double click, a retried request or a second server sends the one e-mail; asking again is a new key.
 */
export default function ResendConfirmation({ orderId, number, email }: { orderId: string; number: string; email: string }) {
  const [key, setKey] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function send(sending: string) {
    setKey(null);
    setBusy(true);
    const r = await api<OrderOpsAnswer>(`/api/admin/orders/${orderId}/resend-confirmation`, { key: sending });
    setBusy(false);
    if (!r.ok) return notify.failure('The confirmation was not resent', r);
    if (r.data.changed) notify.success(r.data.message);
    else notify.info(r.data.message);
  }

  return (
    <div className="admin-action-row">
      <button type="button" className="btn btn-outline" disabled={busy} onClick={() => setKey(newKey())}>
        Resend the confirmation e-mail
      </button>
      {key && (
        <Confirm
          title={`Resend the confirmation of ${number}?`}
          confirmLabel="Resend it"
          keepLabel="Not now"
          onConfirm={() => void send(key)}
          onKeep={() => setKey(null)}
        >
          <p>
            {email} gets the order’s confirmation again, as the order is now (its address, its items, its link to the order page).
          </p>
        </Confirm>
      )}
    </div>
  );
}
