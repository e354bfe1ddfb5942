import { type ChangeEvent, type SubmitEvent, useEffect, useId, useRef, useState } from 'react';
import { api } from '@/lib/api';
import ColourList from './ColourList';
import type { ProductForm } from './catalogue-edit.server';
import { type FormInputs, fromInputs, type Refusal, toInputs } from './catalogue-form';
import EditHistory from './EditHistory';
import { FieldProblem, fieldProps, problemId, problemsByInput } from './FieldProblem';
import FixList, { focusFirst } from './FixList';
import PictureList from './PictureList';
import RepositoryChange from './RepositoryChange';
import SaleFields from './SaleFields';
import SaveConflict from './SaveConflict';
import { saleFromInputs, saleInputs } from './sale-form';
import { differences, merged } from './save-conflict';

interface Props {
  form: ProductForm;
  /** The shop's time zone, for the history's times. */
  timeZone: string;
  /**
   * The home page's categories and the sizes, from the page (catalogue/categories.ts): imported here, the lists would
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

/**
 * A product's form in the shop's editor: every field an editor changes, the id, file name and likes shown but not
 * editable, the pictures with their previews, their order and an upload, and the product's history with an Undo per
 * save. A save says "Saved" and what changed, and the note stays until the next change; a refused save changes nothing
 * and says why beside each field concerned, lists them by the Save button and takes the focus to the first.
 */
export default function ProductEditor(props: Props) {
  const id = useId();
  const [form, setForm] = useState(props.form);
  const [inputs, setInputs] = useState<FormInputs>(() => toInputs(props.form.fields));
  const [status, setStatus] = useState<Status>(null);
  const [busy, setBusy] = useState(false);
  /** The sale's inputs, on the shop's clock: saved with the form (a crossed save keeps the sale as typed here). */
  const [sale, setSale] = useState(() => saleInputs(props.form.fields.sale, props.timeZone));
  const [refusals, setRefusals] = useState<Refusal[]>([]);
  /** A newer save than the form's, found by a save: shown beside what was typed until the editor chooses. */
  const [conflict, setConflict] = useState<ProductForm | null>(null);
  /** Counts refused saves: each takes the focus to the first field refused, once it has rendered. */
  const [refusedSaves, setRefusedSaves] = useState(0);
  const fixList = useRef<HTMLDivElement>(null);
  const problems = problemsByInput(refusals);

  // biome-ignore lint/correctness/useExhaustiveDependencies: only a new refusal moves the focus, not each keystroke after it
  useEffect(() => {
    if (refusedSaves > 0) focusFirst(id, refusals, fixList.current?.querySelector('h2') ?? null);
  }, [refusedSaves, id]);

  /** Drops the refusals of `fields` (and of their parts): what the editor has changed since. */
  const clear = (fields: readonly string[]) =>
    setRefusals((now) => now.filter((r) => !fields.some((f) => r.field === f || r.field.startsWith(`${f}.`))));

  const set = <K extends keyof FormInputs>(key: K, value: FormInputs[K], fields: readonly string[] = [key]) => {
    setInputs((now) => ({ ...now, [key]: value }));
    clear(fields);
  };

  function refuse(found: Refusal[]) {
    setRefusals(found);
    setStatus({
      kind: 'error',
      text: `Not saved: ${found.length === 1 ? 'one thing' : `${found.length} things`} to fix, each said beside its field.`,
    });
    setRefusedSaves((n) => n + 1);
  }

  function took(answer: SaveAnswer) {
    setRefusals([]);
    setConflict(null);
    setForm(answer.form);
    setInputs(toInputs(answer.form.fields));
    setSale(saleInputs(answer.form.fields.sale, props.timeZone));
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

  /** Saves `typed` over save `over` (the one the form shows, or a newer one the editor chose to save over). */
  async function send(typed: FormInputs, over: ProductForm) {
    const sent = fromInputs(typed, over.fields);
    const saleSent = saleFromInputs(sale, props.timeZone);
    if ('problems' in sent || 'problems' in saleSent)
      return refuse([...('problems' in sent ? sent.problems : []), ...('problems' in saleSent ? saleSent.problems : [])]);
    setBusy(true);
    const r = await api<SaveAnswer>(`/api/admin/catalogue/products/${over.slug}`, {
      base: over.revision,
      fields: { ...sent.fields, sale: saleSent.sale },
    });
    setBusy(false);
    if (r.ok) return took(r.data);
    setRefusals([]);
    if (r.problems?.length) return refuse(r.problems);
    if (r.code === 'changed_meanwhile') {
      // Someone saved since: what was typed stays in the form, and the newer save is fetched to compare it with.
      const newer = await api<ProductForm>(`/api/admin/catalogue/products/${over.slug}`);
      if (newer.ok) {
        setConflict(newer.data);
        return setStatus({
          kind: 'error',
          text: 'Not saved: someone saved this product since you opened it. What you typed is kept: choose below what to keep.',
        });
      }
    }
    setStatus({ kind: 'error', text: `Not saved: ${r.message}` });
  }

  function save(e: SubmitEvent<HTMLFormElement>) {
    e.preventDefault();
    return send(inputs, form);
  }

  /** Saves over the newer save, the editor's own value in each field of `keepMine`. */
  function saveOver(newer: ProductForm, keepMine: Set<keyof FormInputs>) {
    const typed = merged(inputs, toInputs(newer.fields), keepMine);
    setConflict(null);
    setForm(newer);
    setInputs(typed);
    return send(typed, newer);
  }

  function takeNewer(newer: ProductForm) {
    setConflict(null);
    setForm(newer);
    setInputs(toInputs(newer.fields));
    setSale(saleInputs(newer.fields.sale, props.timeZone));
    setStatus({ kind: 'info', text: 'The form shows their save now; what you typed is dropped.' });
  }

  /** For a product changed in the repository: keeps the saved version or takes the repository's (a save either way). */
  async function chooseVersion(change: number, choice: 'keep' | 'take') {
    setBusy(true);
    const r = await api<SaveAnswer>(`/api/admin/catalogue/products/${form.slug}/repository`, {
      change,
      base: form.revision,
      choice,
    });
    setBusy(false);
    if (!r.ok) return setStatus({ kind: 'error', text: `Not chosen: ${r.message}` });
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
      set('images', [...inputs.images, { src, alt: '' }], []);
      setStatus({ kind: 'info', text: `Picture uploaded as ${name}. Describe it in its text for screen readers, then save.` });
    } catch {
      setStatus({ kind: 'error', text: 'Not uploaded: the network failed. Please try again.' });
    } finally {
      setBusy(false);
    }
  }

  const textField = (key: 'name' | 'category' | 'sku' | 'price' | 'weight', label: string, hint?: string) => (
    <div className="field">
      <label htmlFor={`${id}-${key}`}>{label}</label>
      <FieldProblem base={id} input={key} problems={problems} />
      <input
        {...fieldProps(id, key, problems, hint ? `${id}-${key}-hint` : undefined)}
        value={inputs[key]}
        autoComplete="off"
        inputMode={key === 'price' || key === 'weight' ? 'decimal' : undefined}
        onChange={(e) => set(key, e.target.value)}
      />
      {hint && (
        <p className="field-hint" id={`${id}-${key}-hint`}>
          {hint}
        </p>
      )}
    </div>
  );
  const textArea = (
    key: 'description' | 'detailedDescription' | 'usage' | 'ingredients' | 'benefits' | 'specifications',
    label: string,
    rows: number,
    hint?: string,
  ) => (
    <div className="field">
      <label htmlFor={`${id}-${key}`}>{label}</label>
      <FieldProblem base={id} input={key} problems={problems} />
      <textarea
        {...fieldProps(id, key, problems, hint ? `${id}-${key}-hint` : undefined)}
        rows={rows}
        value={inputs[key]}
        onChange={(e) => set(key, e.target.value)}
      />
      {hint && (
        <p className="field-hint" id={`${id}-${key}-hint`}>
          {hint}
        </p>
      )}
    </div>
  );
  const choices = (key: 'mainCategories' | 'sizes', legend: string, options: readonly string[]) => (
    <fieldset
      className="editor-choices"
      id={`${id}-${key}`}
      aria-describedby={problems.has(key) ? problemId(id, key) : undefined}
    >
      <legend>{legend}</legend>
      <FieldProblem base={id} input={key} problems={problems} />
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
      {form.repository && (
        <RepositoryChange
          base={id}
          change={form.repository}
          busy={busy}
          time={(at) => time(at, props.timeZone)}
          onChoose={(choice) => form.repository && chooseVersion(form.repository.id, choice)}
        />
      )}
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
        <SaleFields
          base={id}
          value={sale}
          problems={problems}
          timeZone={props.timeZone}
          onChange={(next, fields) => {
            setSale(next);
            clear(fields);
          }}
        />
        {textField('sku', 'SKU', 'Upper-case letters, digits and dashes.')}
        {textField('category', 'Category label', 'The small label on product cards, for example Body Cream.')}
        {choices('mainCategories', 'Home page categories', props.mainCategories)}
        <div className="field editor-check">
          <FieldProblem base={id} input="inStock" problems={problems} />
          <label>
            <input
              type="checkbox"
              {...fieldProps(id, 'inStock', problems)}
              checked={inputs.inStock}
              onChange={(e) => set('inStock', e.target.checked)}
            />{' '}
            In stock
          </label>
        </div>
        <div className="field editor-check">
          <FieldProblem base={id} input="finalSale" problems={problems} />
          <label>
            <input
              type="checkbox"
              {...fieldProps(id, 'finalSale', problems, `${id}-final-sale-hint`)}
              checked={inputs.finalSale}
              onChange={(e) => set('finalSale', e.target.checked)}
            />{' '}
            Final sale
          </label>
          <p className="field-hint" id={`${id}-final-sale-hint`}>
            Cannot be returned (opened skincare, for hygiene); the product page and the shopper’s order say so.
          </p>
        </div>
        {textField('weight', 'Shipping weight (pounds)')}
        {textArea('description', 'Short description', 3, 'One or two sentences for cards and search results.')}
        {textArea('detailedDescription', 'About this product', 8)}
        {textArea('usage', 'How to use', 5, 'One step a line.')}
        {textArea('benefits', 'Benefits', 5, 'One a line.')}
        {textArea('ingredients', 'Ingredients', 3)}
        {textArea('specifications', 'Specifications', 6, 'One a line, as “label: value”.')}
        {choices('sizes', 'Sizes', props.sizes)}
        <PictureList
          base={id}
          images={inputs.images}
          pictures={form.pictures}
          problems={problems}
          busy={busy}
          onChange={(images, fields) => set('images', images, fields)}
          onUpload={upload}
        />
        <ColourList
          base={id}
          colours={inputs.colors}
          pictures={form.pictures}
          problems={problems}
          onChange={(colours, fields) => set('colors', colours, fields)}
        />
        <p
          id={`${id}-status`}
          className={`editor-status editor-status-${status?.kind ?? 'none'}`}
          role={status?.kind === 'error' ? 'alert' : 'status'}
        >
          {status?.text ?? (form.published ? 'Published: shoppers see this product as it is here.' : 'Saved, not yet published.')}
        </p>
        <div ref={fixList}>
          <FixList base={id} refusals={refusals} />
        </div>
        {conflict && (
          <SaveConflict
            base={id}
            revision={form.revision}
            newer={conflict}
            found={differences(toInputs(form.fields), inputs, toInputs(conflict.fields))}
            busy={busy}
            time={(at) => time(at, props.timeZone)}
            onSave={(keepMine) => saveOver(conflict, keepMine)}
            onTakeNewer={() => takeNewer(conflict)}
          />
        )}
        <button type="submit" className="btn" disabled={busy}>
          Save
        </button>
      </form>
      <EditHistory
        base={id}
        history={form.history}
        olderPruned={form.olderPruned}
        busy={busy}
        time={(at) => time(at, props.timeZone)}
        onUndo={undo}
      />
    </div>
  );
}
