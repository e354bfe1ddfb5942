// Fields Keystatic does not have in the shape our files use: a picture referenced as `./images/<file>` (Keystatic's
// own image field stores pictures in a folder per entry and renames them), a free-form map of labelled values, and an
// optional sale (a price with a start and an end).

import { TextArea, TextField } from '@keystar/ui/text-field';
import type { BasicFormField, FormFieldStoredValue } from '@keystatic/core';
import { useState } from 'react';
import { SALE_TIME } from '@/features/catalogue/sale';

const IMAGE_SRC = /^\.\/images\/[^/]+$/;

/** The name an uploaded picture is stored under in content/products/images/: lowercase, no spaces. */
export function imageFileName(original: string): string {
  return original
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, '-')
    .replace(/^[^a-z0-9]+/, '');
}

function base64Url(bytes: Uint8Array): string {
  let binary = '';
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** Writes a picture into content/products/images/ through the editor's API (the same guarded route saves use). */
async function upload(file: File): Promise<string> {
  const name = imageFileName(file.name);
  const res = await fetch('/api/keystatic/update', {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'no-cors': '1' },
    body: JSON.stringify({
      additions: [{ path: `content/products/images/${name}`, contents: base64Url(new Uint8Array(await file.arrayBuffer())) }],
      deletions: [],
    }),
  });
  if (!res.ok) throw new Error(await res.text());
  return `./images/${name}`;
}

type Picture = { src: string; alt: string };

function pictureProblems(value: Picture, optional: boolean): { src?: string; alt?: string } {
  if (optional && value.src === '' && value.alt === '') return {};
  return {
    ...(IMAGE_SRC.test(value.src) ? {} : { src: 'Choose or upload a picture (./images/<file>)' }),
    ...(value.alt.trim() ? {} : { alt: 'Describe the picture for screen readers' }),
  };
}

function PictureInput(props: {
  label: string;
  optional: boolean;
  value: Picture;
  onChange(value: Picture): void;
  forceValidation: boolean;
}) {
  const [touched, setTouched] = useState(false);
  const [uploadError, setUploadError] = useState<string>();
  const problems = props.forceValidation || touched ? pictureProblems(props.value, props.optional) : {};
  return (
    <fieldset style={{ border: 0, padding: 0, margin: 0, display: 'grid', gap: 8 }}>
      <legend style={{ fontWeight: 600, marginBottom: 4 }}>{props.label}</legend>
      <TextField
        label="File"
        description="./images/<file> in content/products/images/"
        value={props.value.src}
        onChange={(src) => props.onChange({ ...props.value, src })}
        onBlur={() => setTouched(true)}
        errorMessage={uploadError ?? problems.src}
      />
      <label style={{ fontSize: 14 }}>
        Upload a picture{' '}
        <input
          type="file"
          accept="image/svg+xml,image/png,image/jpeg,image/webp,image/avif"
          onChange={async (event) => {
            const file = event.currentTarget.files?.[0];
            if (!file) return;
            try {
              setUploadError(undefined);
              props.onChange({ ...props.value, src: await upload(file) });
            } catch (error) {
              setUploadError(`Upload failed: ${(error as Error).message}`);
            }
          }}
        />
      </label>
      {IMAGE_SRC.test(props.value.src) && (
        <img
          src={`/api/keystatic/editor-image/${props.value.src.slice('./images/'.length)}`}
          alt=""
          style={{ maxWidth: 160, maxHeight: 160, objectFit: 'contain', border: '1px solid #ddd' }}
        />
      )}
      <TextField
        label="Alt text"
        value={props.value.alt}
        onChange={(alt) => props.onChange({ ...props.value, alt })}
        onBlur={() => setTouched(true)}
        errorMessage={problems.alt}
      />
    </fieldset>
  );
}

function asRecord(value: FormFieldStoredValue): Record<string, unknown> {
  return value && typeof value === 'object' && !Array.isArray(value) && !(value instanceof Date)
    ? (value as Record<string, unknown>)
    : {};
}

/** A picture `{src: ./images/<file>, alt}`; an optional one is left out of the file when both are empty. */
export function picture({
  label,
  optional = false,
}: {
  label: string;
  optional?: boolean;
}): BasicFormField<Picture, Picture, unknown> {
  return {
    kind: 'form',
    label,
    // Keystatic takes a field's component from its factory, called once per field when the config loads.
    // biome-ignore lint/correctness/noComponentHookFactories: created once at config time, never during a render
    Input: (props) => <PictureInput label={label} optional={optional} {...props} />,
    defaultValue: () => ({ src: '', alt: '' }),
    parse(value) {
      const v = asRecord(value);
      return { src: typeof v.src === 'string' ? v.src : '', alt: typeof v.alt === 'string' ? v.alt : '' };
    },
    serialize(value) {
      if (optional && value.src === '' && value.alt === '') return { value: undefined };
      return { value: { src: value.src, alt: value.alt } };
    },
    validate(value) {
      const problems = pictureProblems(value, optional);
      const message = problems.src ?? problems.alt;
      if (message) throw new Error(`${label}: ${message}`);
      return value;
    },
    reader: { parse: (value) => value },
  };
}

const SPEC_LINE = /^([^:]+):\s*(.+)$/;

function specProblem(text: string): string | undefined {
  const bad = text
    .split('\n')
    .map((l) => l.trim())
    .find((l) => l !== '' && !SPEC_LINE.test(l));
  return bad === undefined ? undefined : `“${bad}” is not “label: value”`;
}

function SpecificationsInput(props: {
  label: string;
  description: string;
  value: string;
  onChange(value: string): void;
  forceValidation: boolean;
}) {
  const [touched, setTouched] = useState(false);
  return (
    <TextArea
      label={props.label}
      description={props.description}
      value={props.value}
      onChange={props.onChange}
      onBlur={() => setTouched(true)}
      errorMessage={props.forceValidation || touched ? specProblem(props.value) : undefined}
    />
  );
}

/** Free-form labelled values (`keyIngredient: Vitamin C`), edited as one `label: value` per line. */
export function specifications({
  label,
  description,
}: {
  label: string;
  description: string;
}): BasicFormField<string, string, unknown> {
  return {
    kind: 'form',
    label,
    // biome-ignore lint/correctness/noComponentHookFactories: created once at config time, never during a render
    Input: (props) => <SpecificationsInput label={label} description={description} {...props} />,
    defaultValue: () => '',
    parse: (value) =>
      Object.entries(asRecord(value))
        .map(([k, v]) => `${k}: ${String(v)}`)
        .join('\n'),
    serialize(text) {
      const entries = text.split('\n').flatMap((l) => {
        const m = SPEC_LINE.exec(l.trim());
        return m?.[1] && m[2] ? [[m[1].trim(), m[2].trim()] as const] : [];
      });
      return { value: Object.fromEntries(entries) };
    },
    validate(text) {
      const problem = specProblem(text);
      if (problem) throw new Error(`${label}: ${problem}`);
      return text;
    },
    reader: { parse: (value) => value },
  };
}

type SaleText = { price: string; startsAt: string; endsAt: string };
const NO_SALE: SaleText = { price: '', startsAt: '', endsAt: '' };

function saleProblems(value: SaleText): Partial<SaleText> {
  if (value.price === '' && value.startsAt === '' && value.endsAt === '') return {};
  const time = 'A date and time with its offset from UTC, e.g. 2026-12-24T09:00:00-05:00';
  return {
    ...(/^\d+(\.\d{1,2})?$/.test(value.price.trim()) ? {} : { price: 'Dollars with at most two decimals, e.g. 29.99' }),
    ...(SALE_TIME.test(value.startsAt.trim()) ? {} : { startsAt: time }),
    ...(SALE_TIME.test(value.endsAt.trim()) ? {} : { endsAt: time }),
  };
}

function SaleInput(props: { label: string; value: SaleText; onChange(value: SaleText): void; forceValidation: boolean }) {
  const [touched, setTouched] = useState(false);
  const problems = props.forceValidation || touched ? saleProblems(props.value) : {};
  const input = (key: keyof SaleText, label: string, description: string) => (
    <TextField
      label={label}
      description={description}
      value={props.value[key]}
      onChange={(v) => props.onChange({ ...props.value, [key]: v })}
      onBlur={() => setTouched(true)}
      errorMessage={problems[key]}
    />
  );
  return (
    <fieldset style={{ border: 0, padding: 0, margin: 0, display: 'grid', gap: 8 }}>
      <legend style={{ fontWeight: 600, marginBottom: 4 }}>{props.label}</legend>
      {input('price', 'Sale price (dollars)', 'Lower than the price; leave the three empty for no sale')}
      {input('startsAt', 'Starts', 'Included, e.g. 2026-12-24T09:00:00-05:00')}
      {input('endsAt', 'Ends', 'Excluded, e.g. 2026-12-27T00:00:00-05:00')}
    </fieldset>
  );
}

/** An optional sale `{price, startsAt, endsAt}`, left out of the file when its three fields are empty. */
export function sale({ label }: { label: string }): BasicFormField<SaleText, SaleText, unknown> {
  const text = (v: unknown) => (v instanceof Date ? v.toISOString() : v === undefined || v === null ? '' : String(v));
  return {
    kind: 'form',
    label,
    // biome-ignore lint/correctness/noComponentHookFactories: created once at config time, never during a render
    Input: (props) => <SaleInput label={label} {...props} />,
    defaultValue: () => NO_SALE,
    parse(value) {
      const v = asRecord(value);
      return { price: text(v.price), startsAt: text(v.startsAt), endsAt: text(v.endsAt) };
    },
    serialize(value) {
      if (value.price === '' && value.startsAt === '' && value.endsAt === '') return { value: undefined };
      return { value: { price: Number(value.price), startsAt: value.startsAt.trim(), endsAt: value.endsAt.trim() } };
    },
    validate(value) {
      const problems = saleProblems(value);
      const message = problems.price ?? problems.startsAt ?? problems.endsAt;
      if (message) throw new Error(`${label}: ${message}`);
      return value;
    },
    reader: { parse: (value) => value },
  };
}
