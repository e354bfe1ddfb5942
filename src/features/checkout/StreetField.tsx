import { type KeyboardEvent, useEffect, useRef, useState } from 'react';
import Field, { describedBy } from '@/components/Field';
import {
  type AddressSuggestion,
  fetchSuggestions,
  SUGGEST_DEBOUNCE_MS,
  suggestionLabel,
  wantsSuggestions,
} from './address-suggestions';

/**
 * Learned once per page from the server: the shop has no suggestion service (no GEOAPIFY_API_KEY), so the street field
 * stops asking and stays a plain text field.
 */
let suggestionsOff = false;

interface StreetFieldProps {
  label: string;
  name: string;
  autoComplete: string;
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
 * keystroke makes the request before it stale (its list is never shown) without aborting it: its answer may still say
 * that the shop has no suggestion service, and the field then stops asking. No list appears when the shop has none or
 * the request fails: the field is then just typed in.
 */
export default function StreetField({ label, name, autoComplete, inputId, value, error, onType, onChoose }: StreetFieldProps) {
  const [options, setOptions] = useState<AddressSuggestion[]>([]);
  const [open, setOpen] = useState(false);
  const [active, setActive] = useState(-1);
  // Decided once, when the field appears: its role does not change under a screen reader while the shopper types.
  const [plain] = useState(() => suggestionsOff);
  const pending = useRef<AbortController | null>(null);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  /** Counts what was typed: an answer to anything but the newest is stale. */
  const typed = useRef(0);
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
    clearTimeout(timer.current);
    const turn = ++typed.current;
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
          // The shop has no suggestion service: learnt even from an answer a newer keystroke made stale.
          if (answer && !answer.enabled) suggestionsOff = true;
          if (controller.signal.aborted || turn !== typed.current) return;
          const list = answer?.enabled ? answer.suggestions : [];
          setOptions(list);
          setOpen(list.length > 0);
        },
        // Aborted: the field is gone, or a suggestion was chosen.
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

  return (
    <Field id={inputId} label={label} error={error}>
      <div className="combobox">
        <input
          id={inputId}
          name={name}
          type="text"
          autoComplete={autoComplete}
          required
          value={value}
          {...describedBy(inputId, error)}
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
    </Field>
  );
}
