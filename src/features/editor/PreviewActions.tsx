import { useId, useRef, useState } from 'react';
import { api } from '@/lib/api';
import {
  DEFAULT_PREVIEW_LINK_HOURS,
  linkHoursLabel,
  PREVIEW_LINK_HOURS,
  type PreviewLinkHours,
  previewProductHref,
} from './preview';
import type { PreviewLink } from './preview-routes.server';

interface Props {
  /** The product's file (what the link is made for) and id (its preview's address). */
  file: string;
  productId: number;
}

/**
 * The product form's Preview: opens the product as shoppers will see it once published (as saved), and makes a link
 * that shows it to someone without an account, for as long as the editor chooses.
 */
export default function PreviewActions({ file, productId }: Props) {
  const id = useId();
  const [hours, setHours] = useState<PreviewLinkHours>(DEFAULT_PREVIEW_LINK_HOURS);
  const [link, setLink] = useState<PreviewLink | null>(null);
  const [copied, setCopied] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const box = useRef<HTMLInputElement>(null);

  async function copyLink() {
    setBusy(true);
    setError(null);
    const r = await api<PreviewLink>('/api/admin/catalogue/preview-links', { file, hours });
    setBusy(false);
    if (!r.ok) return setError(`No link was made: ${r.message}`);
    setLink(r.data);
    setCopied(await copy(r.data.url));
    requestAnimationFrame(() => box.current?.select());
  }

  return (
    <section className="editor-preview" aria-labelledby={`${id}-heading`}>
      <h2 id={`${id}-heading`}>Preview</h2>
      <p className="field-hint">
        See this product, and the home page, as shoppers will once the catalogue is published: what is saved, not what is typed
        and not saved yet.
      </p>
      <div className="editor-preview-actions">
        <a className="btn btn-outline" href={previewProductHref(productId)} target="_blank" rel="noopener">
          Preview
        </a>
        <label htmlFor={`${id}-hours`}>Link works for</label>
        <select id={`${id}-hours`} value={hours} onChange={(e) => setHours(Number(e.currentTarget.value) as PreviewLinkHours)}>
          {PREVIEW_LINK_HOURS.map((h) => (
            <option key={h} value={h}>
              {linkHoursLabel(h)}
            </option>
          ))}
        </select>
        <button type="button" className="btn btn-outline" onClick={copyLink} disabled={busy}>
          Copy preview link
        </button>
      </div>
      {link && (
        <div className="field">
          <label htmlFor={`${id}-link`}>Preview link</label>
          <input id={`${id}-link`} ref={box} readOnly value={link.url} onFocus={(e) => e.currentTarget.select()} />
          <p className="field-hint" role="status">
            {copied ? 'Copied. ' : 'Copy it from the box above. '}
            {link.message}
          </p>
        </div>
      )}
      {error && (
        <p className="form-error" role="alert">
          {error}
        </p>
      )}
    </section>
  );
}

/** Puts `text` on the clipboard; false when the browser does not let the page (the link is then in the box to copy). */
async function copy(text: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    return false;
  }
}
