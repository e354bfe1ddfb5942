import { type ChangeEvent, type SubmitEvent, useId, useState } from 'react';
import { api } from '@/lib/api';
import type { ProductForm } from './catalogue-edit.server';
import { colourValue, type FormInputs, fromInputs, toInputs } from './catalogue-form';

interface Props {
  form: ProductForm;
  /** The shop's time zone, for the history's times. */
  timeZone: string;
  /**
   * The home page's categories and the sizes, from the page (catalog/categories.ts): imported here, the lists would
   * move into the chunk every shopper page loads, which this island shares with the catalogue's browser.
   */
  mainCategories: readonly string[];
  sizes: readonly string[];
}

interface SaveAnswer {
  saved: boolean;
  summary: string;
  at: string | null;
  message: string;
  /** What the save does beyond the product (a colour removed: its carts and orders), or null. */
  notice?: string | null;
  form: ProductForm;
}

type Status = { kind: 'saved' | 'info'; text: string } | { kind: 'error'; text: string } | null;

const time = (iso: string, timeZone: string) =>
  new Intl.DateTimeFormat('en-US', {
    month: 'short',
    day: 'numeric',
    hour: 'numeric',
    minute: '2-digit',
    timeZone,
    timeZoneName: 'short',
  }).format(new Date(iso));

const picture = (name: string) => `/api/admin/catalogue/pictures/${encodeURIComponent(name)}`;
const pictureOf = (src: string) => src.replace(/^\.\/images\//, '');

/**
 * A product's form in the shop's editor: every field an editor changes, the id, file name and likes shown but not
 * editable, the pictures with their previews and an upload, and the product's history with an Undo per save. A save
 * says "Saved" and what changed, and the note stays until the next change; a refused save says why and changes nothing.
 */
export default function ProductEditor(props: Props) {
  const id = useId();
  const [form, setForm] = useState(props.form);
  const [inputs, setInputs] = useState<FormInputs>(() => toInputs(props.form.fields));
  const [status, setStatus] = useState<Status>(null);
  const [busy, setBusy] = useState(false);
  const [invalid, setInvalid] = useState<keyof FormInputs | null>(null);

  const set = <K extends keyof FormInputs>(key: K, value: FormInputs[K]) => {
    setInputs((now) => ({ ...now, [key]: value }));
    setInvalid((k) => (k === key ? null : k));
  };

  function took(answer: SaveAnswer) {
    setForm(answer.form);
    setInputs(toInputs(answer.form.fields));
    setStatus(
      answer.saved
        ? {
            kind: 'saved',
            text: `${answer.message}${answer.at ? ` at ${time(answer.at, props.timeZone)}` : ''}: ${answer.summary}. ${
              answer.form.published ? 'This is what shoppers see already.' : 'Shoppers see it once the catalogue is published.'
            }${answer.notice ? ` ${answer.notice}` : ''}`,
          }
        : { kind: 'info', text: answer.message },
    );
  }

  async function save(e: SubmitEvent<HTMLFormElement>) {
    e.preventDefault();
    const sent = fromInputs(inputs, form.fields);
    if ('message' in sent) {
      setInvalid(sent.field);
      setStatus({ kind: 'error', text: sent.message });
      document.getElementById(`${id}-${sent.field}`)?.focus();
      return;
    }
    setBusy(true);
    const r = await api<SaveAnswer>(`/api/admin/catalogue/products/${form.slug}`, { base: form.revision, fields: sent.fields });
    setBusy(false);
    if (!r.ok) {
      const field = /^(\w+)[:.]/.exec(r.message)?.[1];
      setInvalid(field && field in inputs ? (field as keyof FormInputs) : null);
      return setStatus({ kind: 'error', text: `Not saved: ${r.message}` });
    }
    took(r.data);
  }

  async function undo(revision: number) {
    setBusy(true);
    const r = await api<SaveAnswer>('/api/admin/catalogue/undo', { revision });
    setBusy(false);
    if (!r.ok) return setStatus({ kind: 'error', text: `Not undone: ${r.message}` });
    took(r.data);
  }

  async function upload(e: ChangeEvent<HTMLInputElement>) {
    const file = e.target.files?.[0];
    e.target.value = '';
    if (!file) return;
    setBusy(true);
    try {
      const res = await fetch(`/api/admin/catalogue/pictures?name=${encodeURIComponent(file.name)}`, {
        method: 'POST',
        headers: { 'content-type': 'application/octet-stream' },
        body: file,
        credentials: 'same-origin',
      });
      const data = (await res.json().catch(() => ({}))) as { name?: string; src?: string; error?: { message?: string } };
      if (!res.ok || !data.name || !data.src) {
        setStatus({ kind: 'error', text: `Not uploaded: ${data.error?.message ?? `the shop answered ${res.status}`}` });
        return;
      }
      const { name, src } = data;
      setForm((f) => ({ ...f, pictures: [...new Set([...f.pictures, name])].sort() }));
      set('images', [...inputs.images, { src, alt: '' }]);
      setStatus({ kind: 'info', text: `Picture uploaded as ${name}. Describe it in its text for screen readers, then save.` });
    } catch {
      setStatus({ kind: 'error', text: 'Not uploaded: the network failed. Please try again.' });
    } finally {
      setBusy(false);
    }
  }

  const fieldId = (key: keyof FormInputs) => `${id}-${key}`;
  const described = (key: keyof FormInputs) =>
    invalid === key ? { 'aria-invalid': true as const, 'aria-describedby': `${id}-status` } : {};
  const textField = (key: 'name' | 'category' | 'sku' | 'price' | 'weight', label: string, hint?: string) => (
    <div className="field">
      <label htmlFor={fieldId(key)}>{label}</label>
      <input
        id={fieldId(key)}
        value={inputs[key]}
        autoComplete="off"
        inputMode={key === 'price' || key === 'weight' ? 'decimal' : undefined}
        onChange={(e) => set(key, e.target.value)}
        {...described(key)}
      />
      {hint && <p className="field-hint">{hint}</p>}
    </div>
  );
  const textArea = (
    key: 'description' | 'detailedDescription' | 'usage' | 'ingredients' | 'benefits' | 'specifications',
    label: string,
    rows: number,
    hint?: string,
  ) => (
    <div className="field">
      <label htmlFor={fieldId(key)}>{label}</label>
      <textarea
        id={fieldId(key)}
        rows={rows}
        value={inputs[key]}
        onChange={(e) => set(key, e.target.value)}
        {...described(key)}
      />
      {hint && <p className="field-hint">{hint}</p>}
    </div>
  );
  const choices = (key: 'mainCategories' | 'sizes', legend: string, options: readonly string[]) => (
    <fieldset className="editor-choices">
      <legend>{legend}</legend>
      {options.map((option) => (
        <label key={option}>
          <input
            type="checkbox"
            checked={inputs[key].includes(option)}
            onChange={(e) =>
              set(
                key,
                options.filter((o) => (o === option ? e.target.checked : inputs[key].includes(o))),
              )
            }
          />{' '}
          {option}
        </label>
      ))}
    </fieldset>
  );

  return (
    <div className="editor-product">
      <form onSubmit={save} noValidate aria-label={`Edit ${form.fields.name ?? form.file}`}>
        <dl className="editor-facts">
          <div>
            <dt>Product id (its address)</dt>
            <dd>{form.id === null ? '—' : `${form.id} (/product/${form.id})`}</dd>
          </div>
          <div>
            <dt>File</dt>
            <dd>{form.file}</dd>
          </div>
          <div>
            <dt>Likes</dt>
            <dd>{form.likes ?? '—'}</dd>
          </div>
          <div>
            <dt>Reviews</dt>
            <dd>{form.reviews}</dd>
          </div>
        </dl>
        <p className="field-hint">
          The id, the file name, the likes, the reviews and each colour’s key are not changed here: they keep the product’s
          address, its likes and its reviews as shoppers know them, and the colours that carts, stock counts and orders name.
        </p>
        {textField('name', 'Name')}
        {textField('price', 'Price (dollars)', 'At most two decimals, for example 45.00.')}
        {textField('sku', 'SKU', 'Upper-case letters, digits and dashes.')}
        {textField('category', 'Category label', 'The small label on product cards, for example Body Cream.')}
        {choices('mainCategories', 'Home page categories', props.mainCategories)}
        <div className="field editor-check">
          <label>
            <input type="checkbox" checked={inputs.inStock} onChange={(e) => set('inStock', e.target.checked)} /> In stock
          </label>
        </div>
        {textField('weight', 'Shipping weight (pounds)')}
        {textArea('description', 'Short description', 3, 'One or two sentences for cards and search results.')}
        {textArea('detailedDescription', 'About this product', 8)}
        {textArea('usage', 'How to use', 5, 'One step a line.')}
        {textArea('benefits', 'Benefits', 5, 'One a line.')}
        {textArea('ingredients', 'Ingredients', 3)}
        {textArea('specifications', 'Specifications', 6, 'One a line, as “label: value”.')}
        {choices('sizes', 'Sizes', props.sizes)}
        <fieldset className="editor-pictures">
          <legend>Pictures (the first is the main picture; at least two)</legend>
          <ol>
            {inputs.images.map((image, i) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: the rows are positions in the list
              <li key={i}>
                <img src={picture(pictureOf(image.src))} alt="" width={64} height={64} />
                <div className="field">
                  <label htmlFor={`${id}-img-${i}`}>Picture {i + 1}</label>
                  <select
                    id={`${id}-img-${i}`}
                    value={pictureOf(image.src)}
                    onChange={(e) =>
                      set(
                        'images',
                        inputs.images.map((im, j) => (j === i ? { ...im, src: `./images/${e.target.value}` } : im)),
                      )
                    }
                  >
                    {[...new Set([...form.pictures, pictureOf(image.src)])].map((name) => (
                      <option key={name} value={name}>
                        {name}
                      </option>
                    ))}
                  </select>
                </div>
                <div className="field">
                  <label htmlFor={`${id}-alt-${i}`}>Picture {i + 1}: what it shows</label>
                  <input
                    id={`${id}-alt-${i}`}
                    value={image.alt}
                    onChange={(e) =>
                      set(
                        'images',
                        inputs.images.map((im, j) => (j === i ? { ...im, alt: e.target.value } : im)),
                      )
                    }
                  />
                </div>
                <button
                  type="button"
                  className="btn btn-outline"
                  onClick={() =>
                    set(
                      'images',
                      inputs.images.filter((_, j) => j !== i),
                    )
                  }
                >
                  Remove picture {i + 1}
                </button>
              </li>
            ))}
          </ol>
          <div className="field">
            <label htmlFor={`${id}-upload`}>Upload a picture (SVG, PNG, JPEG or WebP, up to 1 MB)</label>
            <input
              id={`${id}-upload`}
              type="file"
              accept="image/svg+xml,image/png,image/jpeg,image/webp"
              onChange={upload}
              disabled={busy}
            />
          </div>
        </fieldset>
        <fieldset className="editor-pictures editor-colours">
          <legend>Colours (leave none for a product without colours)</legend>
          <ol>
            {inputs.colors.map((colour, i) => {
              const change = (next: Partial<FormInputs['colors'][number]>) =>
                set(
                  'colors',
                  inputs.colors.map((c, j) => (j === i ? { ...c, ...next } : c)),
                );
              return (
                // biome-ignore lint/suspicious/noArrayIndexKey: the rows are positions in the list
                <li key={i}>
                  {colour.image ? (
                    <img src={picture(pictureOf(colour.image.src))} alt="" width={64} height={64} />
                  ) : (
                    <svg className="editor-swatch" width={64} height={64} aria-hidden="true">
                      {/* A presentation attribute, not a style: the CSP allows no style attributes. */}
                      <rect
                        x={1}
                        y={1}
                        width={62}
                        height={62}
                        rx={6}
                        fill={/^#[0-9a-f]{6}$/i.test(colour.hex) ? colour.hex : 'none'}
                        stroke="#8f847b"
                      />
                    </svg>
                  )}
                  <div className="field">
                    <label htmlFor={`${id}-colour-${i}`}>Colour {i + 1}: name</label>
                    <input id={`${id}-colour-${i}`} value={colour.name} onChange={(e) => change({ name: e.target.value })} />
                  </div>
                  <div className="field">
                    <label htmlFor={`${id}-key-${i}`}>Colour {i + 1}: key in carts and stock counts</label>
                    <input
                      id={`${id}-key-${i}`}
                      value={colour.value || colourValue(colour.name)}
                      readOnly
                      aria-describedby={`${id}-key-hint-${i}`}
                    />
                    <p className="field-hint" id={`${id}-key-hint-${i}`}>
                      {colour.value
                        ? 'Fixed: carts, stock counts and orders know the colour by it. Its name and swatch can change.'
                        : 'Made from the name when you save, and fixed from then on.'}
                    </p>
                  </div>
                  <div className="field">
                    <label htmlFor={`${id}-hex-${i}`}>Colour {i + 1}: hex code</label>
                    <input
                      id={`${id}-hex-${i}`}
                      value={colour.hex}
                      autoComplete="off"
                      onChange={(e) => change({ hex: e.target.value })}
                    />
                    <p className="field-hint">Like #1f5fa8.</p>
                  </div>
                  <div className="field">
                    <label htmlFor={`${id}-colour-img-${i}`}>Colour {i + 1}: picture</label>
                    <select
                      id={`${id}-colour-img-${i}`}
                      value={colour.image ? pictureOf(colour.image.src) : ''}
                      onChange={(e) =>
                        change({
                          image: e.target.value ? { src: `./images/${e.target.value}`, alt: colour.image?.alt ?? '' } : null,
                        })
                      }
                    >
                      <option value="">No picture of its own</option>
                      {[...new Set([...form.pictures, ...(colour.image ? [pictureOf(colour.image.src)] : [])])].map((name) => (
                        <option key={name} value={name}>
                          {name}
                        </option>
                      ))}
                    </select>
                  </div>
                  {colour.image && (
                    <div className="field">
                      <label htmlFor={`${id}-colour-alt-${i}`}>Colour {i + 1}: what its picture shows</label>
                      <input
                        id={`${id}-colour-alt-${i}`}
                        value={colour.image.alt}
                        onChange={(e) => change({ image: { src: colour.image?.src ?? '', alt: e.target.value } })}
                      />
                    </div>
                  )}
                  <button
                    type="button"
                    className="btn btn-outline"
                    onClick={() =>
                      set(
                        'colors',
                        inputs.colors.filter((_, j) => j !== i),
                      )
                    }
                  >
                    Remove colour {i + 1}
                  </button>
                </li>
              );
            })}
          </ol>
          <button
            type="button"
            className="btn btn-outline"
            onClick={() => set('colors', [...inputs.colors, { name: '', value: '', hex: '', image: null }])}
          >
            Add a colour
          </button>
        </fieldset>
        <p
          id={`${id}-status`}
          className={`editor-status editor-status-${status?.kind ?? 'none'}`}
          role={status?.kind === 'error' ? 'alert' : 'status'}
        >
          {status?.text ?? (form.published ? 'Published: shoppers see this product as it is here.' : 'Saved, not yet published.')}
        </p>
        <button type="submit" className="btn" disabled={busy}>
          Save
        </button>
      </form>
      <section className="editor-history" aria-labelledby={`${id}-history`}>
        <h2 id={`${id}-history`}>History</h2>
        {form.history.length === 0 ? (
          <p>No saves yet: the product is as the shop was built with it.</p>
        ) : (
          <ol>
            {form.history.map((row) => (
              <li key={row.id}>
                <p>
                  <strong>{row.summary}</strong>
                </p>
                <p className="field-hint">
                  {time(row.at, props.timeZone)} by {row.by} · {row.published ? 'published' : 'not yet published'}
                </p>
                <button type="button" className="btn btn-outline" disabled={busy} onClick={() => undo(row.id)}>
                  Undo<span className="visually-hidden">{` “${row.summary}”`}</span>
                </button>
              </li>
            ))}
          </ol>
        )}
      </section>
    </div>
  );
}
