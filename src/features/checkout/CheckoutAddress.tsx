import { useStore } from '@nanostores/react';
import { type SubmitEvent, useEffect, useId, useRef, useState } from 'react';
import Field, { describedBy } from '@/components/Field';
import { api } from '@/lib/api';
import { US_STATES } from '@/lib/us-states';
import { $user } from '../auth/auth.store';
import type { AddressSuggestion } from './address-suggestions';
import { type AddressFields, addressComplete, addressErrors, addressLine, type CheckoutPrefill } from './checkout';
import StreetField from './StreetField';

interface FieldSpec {
  key: keyof AddressFields;
  label: string;
  autoComplete: string;
  type?: string;
  inputMode?: 'numeric' | 'email';
  /** The one field Continue does not wait for. */
  optional?: true;
}

// autocomplete tokens let browsers and password managers fill the form (WCAG 1.3.5).
const FIELDS: readonly FieldSpec[] = [
  { key: 'name', label: 'Full name', autoComplete: 'shipping name' },
  { key: 'email', label: 'Email', autoComplete: 'email', type: 'email', inputMode: 'email' },
  { key: 'address', label: 'Street address', autoComplete: 'shipping address-line1' },
  { key: 'address2', label: 'Apartment, suite, etc. (optional)', autoComplete: 'shipping address-line2', optional: true },
  { key: 'city', label: 'City', autoComplete: 'shipping address-level2' },
];
const ZIP: FieldSpec = { key: 'zipCode', label: 'ZIP code', autoComplete: 'shipping postal-code', inputMode: 'numeric' };

export interface CheckoutAddressProps {
  initial: AddressFields;
  onContinue: (fields: AddressFields) => void;
}

/** The signed-in shopper's details, asked once per page and shopper (a failure is asked again next time). */
let asked: { userId: string; answer: Promise<CheckoutPrefill | null> } | null = null;

/** What the form can start from: null for a guest, and until the server has answered. */
function usePrefill(): CheckoutPrefill | null {
  const userId = useStore($user)?.id ?? null;
  const [prefill, setPrefill] = useState<CheckoutPrefill | null>(null);
  useEffect(() => {
    setPrefill(null);
    if (!userId) return;
    if (asked?.userId !== userId) {
      const answer = api<CheckoutPrefill>('/api/checkout/prefill').then((res) => (res.ok ? res.data : null));
      asked = { userId, answer };
      void answer.then((value) => {
        if (!value && asked?.answer === answer) asked = null;
      });
    }
    let current = true;
    void asked.answer.then((value) => {
      if (current) setPrefill(value);
    });
    return () => {
      current = false;
    };
  }, [userId]);
  return prefill;
}

/** Whether the form already holds this address (so offering it again would do nothing). */
const holds = (fields: AddressFields, a: Omit<AddressFields, 'email'>) =>
  (['address', 'address2', 'city', 'state', 'zipCode'] as const).every((key) => fields[key].trim() === a[key].trim());

/**
 * The address stage: name, e-mail, street, an optional apartment or suite, city, state (the 50 states) and ZIP; the
 * country is the US. Continue is enabled once every field but the apartment is filled; a malformed e-mail or ZIP is
 * named next to its field when Continue is pressed. A signed-in shopper finds their name and e-mail filled in, and the
 * address of their last order offered above the form.
 */
export default function CheckoutAddress({ initial, onContinue }: CheckoutAddressProps) {
  const [fields, setFields] = useState(initial);
  const [shown, setShown] = useState<Partial<Record<keyof AddressFields, string>>>({});
  const id = useId();
  const prefill = usePrefill();
  const submitButton = useRef<HTMLButtonElement>(null);
  const last = prefill?.lastAddress ?? null;

  // The account's name and e-mail fill the fields the shopper has not filled already.
  useEffect(() => {
    if (!prefill) return;
    setFields((f) => ({ ...f, name: f.name || prefill.name, email: f.email || prefill.email }));
  }, [prefill]);

  function shipToLast(a: Omit<AddressFields, 'email'>) {
    setFields((f) => ({ ...f, ...a, name: a.name || f.name }));
    setShown(({ email }) => (email ? { email } : {}));
    // The offer goes once it is taken: focus moves on to what comes next rather than to the page.
    requestAnimationFrame(() => submitButton.current?.focus());
  }

  const set = (key: keyof AddressFields, value: string) => {
    setFields((f) => ({ ...f, [key]: value }));
    // A message goes once its field changes: it described the old value.
    if (shown[key]) setShown((s) => ({ ...s, [key]: undefined }));
  };

  function submit(event: SubmitEvent) {
    event.preventDefault();
    const errors = addressErrors(fields);
    setShown(errors);
    if (Object.values(errors).some(Boolean)) {
      const first = (Object.keys(errors) as (keyof AddressFields)[]).find((k) => errors[k]);
      if (first) document.getElementById(`${id}-${first}`)?.focus();
      return;
    }
    onContinue({ ...fields, email: fields.email.trim(), zipCode: fields.zipCode.trim() });
  }

  function choose(suggestion: AddressSuggestion) {
    // What the suggestion names replaces what was typed; what it leaves out (a ZIP, now and then) stays as it was.
    setFields((f) => ({
      ...f,
      address: suggestion.street,
      city: suggestion.city || f.city,
      state: suggestion.state,
      zipCode: suggestion.zip || f.zipCode,
    }));
    // Messages about the fields it filled described the old values.
    setShown(({ name, email }) => ({ ...(name ? { name } : {}), ...(email ? { email } : {}) }));
  }

  const input = (field: FieldSpec) => {
    const error = shown[field.key];
    const inputId = `${id}-${field.key}`;
    if (field.key === 'address') {
      return (
        <StreetField
          key={field.key}
          label={field.label}
          name={field.key}
          autoComplete={field.autoComplete}
          inputId={inputId}
          value={fields.address}
          error={error}
          onType={(value) => set('address', value)}
          onChoose={choose}
        />
      );
    }
    return (
      <Field key={field.key} id={inputId} label={field.label} error={error}>
        <input
          id={inputId}
          name={field.key}
          type={field.type ?? 'text'}
          inputMode={field.inputMode}
          autoComplete={field.autoComplete}
          required={!field.optional}
          value={fields[field.key]}
          {...describedBy(inputId, error)}
          onChange={(e) => set(field.key, e.target.value)}
        />
      </Field>
    );
  };

  const stateId = `${id}-state`;
  return (
    <form className="checkout-form" noValidate onSubmit={submit} aria-label="Shipping address">
      {last && !holds(fields, last) && (
        <div className="checkout-last-address">
          <p>
            <strong>Ship to your last address?</strong>
            <br />
            {[last.name, addressLine(last)].filter(Boolean).join(', ')}
          </p>
          <button type="button" className="btn btn-outline" onClick={() => shipToLast(last)}>
            Use this address
          </button>
        </div>
      )}
      {FIELDS.map(input)}
      <div className="field-row">
        <Field id={stateId} label="State" error={shown.state}>
          <select
            id={stateId}
            name="state"
            autoComplete="shipping address-level1"
            required
            value={fields.state}
            {...describedBy(stateId, shown.state)}
            onChange={(e) => set('state', e.target.value)}
          >
            <option value="">Choose…</option>
            {US_STATES.map((s) => (
              <option key={s.code} value={s.code}>
                {s.name}
              </option>
            ))}
          </select>
        </Field>
        {input(ZIP)}
      </div>
      <div className="field">
        <label htmlFor={`${id}-country`}>Country</label>
        <input id={`${id}-country`} value="United States" readOnly autoComplete="shipping country-name" />
      </div>
      <button ref={submitButton} type="submit" className="btn cart-checkout" disabled={!addressComplete(fields)}>
        Continue
      </button>
    </form>
  );
}
