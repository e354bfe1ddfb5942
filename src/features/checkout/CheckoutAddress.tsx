import { useStore } from '@nanostores/react';
import { type KeyboardEvent, type SubmitEvent, useEffect, useId, useRef, useState } from 'react';
import { api } from '@/lib/api';
import { US_STATES } from '@/lib/us-states';
import { $user } from '../auth/auth.store';
import {
  type AddressSuggestion,
  fetchSuggestions,
  SUGGEST_DEBOUNCE_MS,
  suggestionLabel,
  wantsSuggestions,
} from './address-suggestions';
import { type AddressFields, addressComplete, addressErrors, addressLine, type CheckoutPrefill } from './checkout';

interface Field {
  key: keyof AddressFields;
  label: string;
  autoComplete: string;
  type?: string;
  inputMode?: 'numeric' | 'email';
  /** The one field Continue does not wait for. */
  optional?: true;
}

// autocomplete tokens let browsers and password managers fill the form (WCAG 1.3.5).
const FIELDS: readonly Field[] = [
  { key: 'name', label: 'Full name', autoComplete: 'shipping name' },
  { key: 'email', label: 'Email', autoComplete: 'email', type: 'email', inputMode: 'email' },
  { key: 'address', label: 'Street address', autoComplete: 'shipping address-line1' },
  { key: 'address2', label: 'Apartment, suite, etc. (optional)', autoComplete: 'shipping address-line2', optional: true },
  { key: 'city', label: 'City', autoComplete: 'shipping address-level2' },
];
const ZIP: Field = { key: 'zipCode', label: 'ZIP code', autoComplete: 'shipping postal-code', inputMode: 'numeric' };

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
 * The address stage: name, e-mail, street, city, state (the 50 states) and ZIP; the country is the US. Continue is
 * enabled once every field is filled; a malformed e-mail or ZIP is named next to its field when Continue is pressed.
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

  const input = (field: Field) => {
    const error = shown[field.key];
    const inputId = `${id}-${field.key}`;
    if (field.key === 'address') {
      return (
        <StreetField
          key={field.key}
          field={field}
          inputId={inputId}
          value={fields.address}
          error={error}
          onType={(value) => set('address', value)}
          onChoose={choose}
        />
      );
    }
    return (
      <div className="field" key={field.key}>
        <label htmlFor={inputId}>{field.label}</label>
        <input
          id={inputId}
          name={field.key}
          type={field.type ?? 'text'}
          inputMode={field.inputMode}
          autoComplete={field.autoComplete}
          required={!field.optional}
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
      <button ref={submitButton} type="submit" className="btn cart-checkout" disabled={!addressComplete(fields)}>
        Continue
      </button>
    </form>
  );
}

/**
 * Learned once per page from the server: the shop has no suggestion service (no GEOAPIFY_API_KEY), so the street field
 * stops asking and stays a plain text field.
 */
let suggestionsOff = false;

interface StreetFieldProps {
  field: Field;
  inputId: string;
  value: string;
  error: string | undefined;
  onType: (value: string) => void;
  onChoose: (suggestion: AddressSuggestion) => void;
}

/**
 * The street field as a combobox (the WAI-ARIA pattern, list autocomplete without automatic selection): from 3
 * characters and a 250 ms pause it asks /api/address-suggestions and lists up to 5 US addresses; Down and Up move
 * through them, Enter or a click chooses one (filling street, city, state and ZIP), Escape closes the list. A newer
 * keystroke aborts the request before it. No list appears when the shop has no suggestion service or the request
 * fails: the field is then just typed in.
 */
function StreetField({ field, inputId, value, error, onType, onChoose }: StreetFieldProps) {
  const [options, setOptions] = useState<AddressSuggestion[]>([]);
  const [open, setOpen] = useState(false);
  const [active, setActive] = useState(-1);
  // Decided once, when the field appears: its role does not change under a screen reader while the shopper types.
  const [plain] = useState(() => suggestionsOff);
  const pending = useRef<AbortController | null>(null);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const listId = `${inputId}-suggestions`;
  const expanded = open && options.length > 0;

  const cancel = () => {
    clearTimeout(timer.current);
    pending.current?.abort();
    pending.current = null;
  };
  // Nothing asked for may land after the field is gone.
  useEffect(
    () => () => {
      clearTimeout(timer.current);
      pending.current?.abort();
    },
    [],
  );

  const close = () => {
    setOpen(false);
    setActive(-1);
  };

  function ask(text: string) {
    cancel();
    setActive(-1);
    if (suggestionsOff || !wantsSuggestions(text)) {
      setOptions([]);
      close();
      return;
    }
    timer.current = setTimeout(() => {
      const controller = new AbortController();
      pending.current = controller;
      fetchSuggestions(text, controller.signal).then(
        (answer) => {
          if (controller.signal.aborted) return;
          if (answer && !answer.enabled) suggestionsOff = true;
          const list = answer?.enabled ? answer.suggestions : [];
          setOptions(list);
          setOpen(list.length > 0);
        },
        // Aborted: a newer keystroke's request owns the list now.
        () => {},
      );
    }, SUGGEST_DEBOUNCE_MS);
  }

  function choose(suggestion: AddressSuggestion) {
    cancel();
    setOptions([]);
    close();
    onChoose(suggestion);
  }

  function onKeyDown(event: KeyboardEvent<HTMLInputElement>) {
    const count = options.length;
    if ((event.key === 'ArrowDown' || event.key === 'ArrowUp') && count > 0) {
      event.preventDefault();
      const down = event.key === 'ArrowDown';
      setOpen(true);
      if (!expanded) setActive(down ? 0 : count - 1);
      else setActive((i) => (down ? (i + 1) % count : i <= 0 ? count - 1 : i - 1));
    } else if (event.key === 'Enter' && expanded && active >= 0) {
      // Chooses the address instead of submitting the form.
      event.preventDefault();
      const chosen = options[active];
      if (chosen) choose(chosen);
    } else if (event.key === 'Escape' && expanded) {
      // Closes the list only: the drawer (a modal dialog) would otherwise close on the same key.
      event.preventDefault();
      event.stopPropagation();
      close();
    } else if (event.key === 'Tab') {
      close();
    }
  }

  const errorId = `${inputId}-error`;
  return (
    <div className="field">
      <label htmlFor={inputId}>{field.label}</label>
      <div className="combobox">
        <input
          id={inputId}
          name={field.key}
          type="text"
          autoComplete={field.autoComplete}
          required
          value={value}
          aria-invalid={error ? true : undefined}
          aria-describedby={error ? errorId : undefined}
          {...(plain
            ? {}
            : {
                role: 'combobox',
                'aria-autocomplete': 'list' as const,
                'aria-expanded': expanded,
                'aria-controls': listId,
                'aria-activedescendant': expanded && active >= 0 ? `${listId}-${active}` : undefined,
                onKeyDown,
                onBlur: close,
              })}
          onChange={(e) => {
            onType(e.target.value);
            if (!plain) ask(e.target.value);
          }}
        />
        {!plain && (
          <div id={listId} role="listbox" aria-label="Address suggestions" className="combobox-list" hidden={!expanded}>
            {options.map((option, i) => (
              // biome-ignore lint/a11y/useKeyWithClickEvents lint/a11y/useFocusableInteractive: the ARIA combobox pattern: focus and keys stay on the input, which points at the option with aria-activedescendant.
              <div
                key={suggestionLabel(option)}
                id={`${listId}-${i}`}
                role="option"
                aria-selected={i === active}
                className="combobox-option"
                // Keeps focus in the field, so its blur does not close the list before the click lands.
                onMouseDown={(e) => e.preventDefault()}
                onClick={() => choose(option)}
              >
                {suggestionLabel(option)}
              </div>
            ))}
          </div>
        )}
      </div>
      {!plain && (
        <p className="visually-hidden" role="status">
          {expanded
            ? `${options.length} address suggestion${options.length === 1 ? '' : 's'}. Use the up and down keys to choose one.`
            : ''}
        </p>
      )}
      {error && (
        <p id={errorId} className="field-error">
          {error}
        </p>
      )}
    </div>
  );
}
