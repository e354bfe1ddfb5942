import { type SubmitEvent, useId, useState } from 'react';
import { type AddressFields, addressComplete, addressErrors } from './checkout';
import { US_STATES } from './states';

interface Field {
  key: keyof AddressFields;
  label: string;
  autoComplete: string;
  type?: string;
  inputMode?: 'numeric' | 'email';
}

// autocomplete tokens let browsers and password managers fill the form (WCAG 1.3.5).
const FIELDS: readonly Field[] = [
  { key: 'name', label: 'Full name', autoComplete: 'shipping name' },
  { key: 'email', label: 'Email', autoComplete: 'email', type: 'email', inputMode: 'email' },
  { key: 'address', label: 'Street address', autoComplete: 'shipping address-line1' },
  { key: 'city', label: 'City', autoComplete: 'shipping address-level2' },
];
const ZIP: Field = { key: 'zipCode', label: 'ZIP code', autoComplete: 'shipping postal-code', inputMode: 'numeric' };

export interface CheckoutAddressProps {
  initial: AddressFields;
  onContinue: (fields: AddressFields) => void;
}

/**
 * The address stage: name, e-mail, street, city, state (the 50 states) and ZIP; the country is the US. Continue is
 * enabled once every field is filled; a malformed e-mail or ZIP is named next to its field when Continue is pressed.
 */
export default function CheckoutAddress({ initial, onContinue }: CheckoutAddressProps) {
  const [fields, setFields] = useState(initial);
  const [shown, setShown] = useState<Partial<Record<keyof AddressFields, string>>>({});
  const id = useId();
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

  const input = (field: Field) => {
    const error = shown[field.key];
    const inputId = `${id}-${field.key}`;
    return (
      <div className="field" key={field.key}>
        <label htmlFor={inputId}>{field.label}</label>
        <input
          id={inputId}
          name={field.key}
          type={field.type ?? 'text'}
          inputMode={field.inputMode}
          autoComplete={field.autoComplete}
          required
          value={fields[field.key]}
          aria-invalid={error ? true : undefined}
          aria-describedby={error ? `${inputId}-error` : undefined}
          onChange={(e) => set(field.key, e.target.value)}
        />
        {error && (
          <p id={`${inputId}-error`} className="field-error">
            {error}
          </p>
        )}
      </div>
    );
  };

  const stateError = shown.state;
  return (
    <form className="checkout-form" noValidate onSubmit={submit} aria-label="Shipping address">
      {FIELDS.map(input)}
      <div className="field-row">
        <div className="field">
          <label htmlFor={`${id}-state`}>State</label>
          <select
            id={`${id}-state`}
            name="state"
            autoComplete="shipping address-level1"
            required
            value={fields.state}
            aria-invalid={stateError ? true : undefined}
            aria-describedby={stateError ? `${id}-state-error` : undefined}
            onChange={(e) => set('state', e.target.value)}
          >
            <option value="">Choose…</option>
            {US_STATES.map((s) => (
              <option key={s.code} value={s.code}>
                {s.name}
              </option>
            ))}
          </select>
          {stateError && (
            <p id={`${id}-state-error`} className="field-error">
              {stateError}
            </p>
          )}
        </div>
        {input(ZIP)}
      </div>
      <div className="field">
        <label htmlFor={`${id}-country`}>Country</label>
        <input id={`${id}-country`} value="United States" readOnly autoComplete="shipping country-name" />
      </div>
      <button type="submit" className="btn cart-checkout" disabled={!addressComplete(fields)}>
        Continue
      </button>
    </form>
  );
}
