import { type SubmitEvent, useId, useState } from 'react';
import Field, { describedBy } from '@/components/Field';
import type { ShipTo } from '@/features/orders/orders';
import { notifyOnNextPage } from '@/features/toasts/next-page-toast';
import { notify } from '@/features/toasts/toast.store';
import { api } from '@/lib/api';
import { US_STATES } from '@/lib/us-states';
import { type AddressField, fieldOfCode, type OrderOpsAnswer } from './order-ops';

type Editable = Exclude<AddressField, 'state'>;

const FIELDS: readonly { key: Editable; label: string; autoComplete: string; inputMode?: 'numeric' }[] = [
  { key: 'name', label: 'Full name', autoComplete: 'off' },
  { key: 'street1', label: 'Street address', autoComplete: 'off' },
  { key: 'street2', label: 'Apartment, suite, etc. (optional)', autoComplete: 'off' },
  { key: 'city', label: 'City', autoComplete: 'off' },
  { key: 'zip', label: 'ZIP code', autoComplete: 'off', inputMode: 'numeric' },
];

/**
 * Where the order ships, changed by the admin until its label is bought: a form with the address as it is, in the same
 * state (shipping was paid for it). The server checks it as the checkout does and says which field is wrong; a change
 * reloads the page, so the address, the label and the jobs shown are the order's as it is now.
 */
export default function AddressChange({ orderId, address }: { orderId: string; address: ShipTo }) {
  const [open, setOpen] = useState(false);
  const [fields, setFields] = useState<Record<Editable, string>>(address);
  const [errors, setErrors] = useState<Partial<Record<AddressField, string>>>({});
  const [busy, setBusy] = useState(false);
  const id = useId();
  const state = US_STATES.find((s) => s.code === address.state)?.name ?? address.state;

  async function save(e: SubmitEvent<HTMLFormElement>) {
    e.preventDefault();
    setBusy(true);
    const r = await api<OrderOpsAnswer>(`/api/admin/orders/${orderId}/address`, { ...fields, state: address.state });
    setBusy(false);
    if (!r.ok) {
      const field = fieldOfCode(r.code);
      if (field) return setErrors({ [field]: r.message });
      setErrors({});
      return notify.failure('The address was not changed', r);
    }
    setErrors({});
    if (!r.data.changed) {
      setOpen(false);
      return notify.info(r.data.message);
    }
    notifyOnNextPage('success', r.data.message);
    window.location.reload();
  }

  if (!open) {
    return (
      <div className="admin-action-row">
        <button type="button" className="btn btn-outline" onClick={() => setOpen(true)}>
          Change the address
        </button>
      </div>
    );
  }
  return (
    <form className="admin-address-form" onSubmit={save} noValidate aria-label="New shipping address">
      {FIELDS.map(({ key, label, autoComplete, inputMode }) => (
        <Field key={key} id={`${id}-${key}`} label={label} error={errors[key]}>
          <input
            id={`${id}-${key}`}
            value={fields[key]}
            autoComplete={autoComplete}
            inputMode={inputMode}
            onChange={(e) => setFields({ ...fields, [key]: e.target.value })}
            {...describedBy(`${id}-${key}`, errors[key])}
          />
        </Field>
      ))}
      <p className={errors.state ? 'form-error' : 'admin-note'} role={errors.state ? 'alert' : undefined}>
        {errors.state ?? `State: ${state}. Shipping was paid for ${state}, so the new address stays in it.`}
      </p>
      <div className="admin-action-row">
        <button type="submit" className="btn" disabled={busy}>
          Save the address
        </button>
        <button
          type="button"
          className="btn btn-outline"
          disabled={busy}
          onClick={() => {
            setFields(address);
            setErrors({});
            setOpen(false);
          }}
        >
          Keep it as it is
        </button>
      </div>
    </form>
  );
}
