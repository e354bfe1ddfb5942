// The product form's pictures: each with its preview, its file, its description, Move up / Move down (buttons, so the
// keyboard reaches them; the focus stays on the picture moved, and a polite note says where it went) and Remove; and the
// upload of a new one.
import { type ChangeEvent, useEffect, useState } from 'react';
import { type FormInputs, moved, picture, pictureOf } from './catalogue-form';
import { FieldProblem, fieldProps, type Problems, problemId } from './FieldProblem';

type Image = FormInputs['images'][number];

interface Props {
  base: string;
  images: Image[];
  /** Every picture a product may name. */
  pictures: string[];
  problems: Problems;
  busy: boolean;
  /** The new list; `clear`: the fields whose refusals no longer hold (`images` for all of them, when rows moved). */
  onChange: (images: Image[], clear: string[]) => void;
  onUpload: (e: ChangeEvent<HTMLInputElement>) => void;
}

export default function PictureList({ base, images, pictures, problems, busy, onChange, onUpload }: Props) {
  const [said, setSaid] = useState('');
  /** The button to focus once a move has rendered: the picture's own, in its new place. */
  const [follow, setFollow] = useState<{ index: number; way: 'up' | 'down' } | null>(null);

  useEffect(() => {
    if (!follow) return;
    const own = document.getElementById(`${base}-${follow.way}-${follow.index}`) as HTMLButtonElement | null;
    const other = document.getElementById(`${base}-${follow.way === 'up' ? 'down' : 'up'}-${follow.index}`);
    (own && !own.disabled ? own : other)?.focus();
    setFollow(null);
  }, [follow, base]);

  const move = (from: number, way: 'up' | 'down') => {
    const to = way === 'up' ? from - 1 : from + 1;
    if (to < 0 || to >= images.length) return;
    onChange(moved(images, from, to), ['images']);
    setSaid(
      `Picture ${from + 1} moved ${way}: it is now picture ${to + 1}${to === 0 ? ', the main picture' : ''}. Save to keep the order.`,
    );
    setFollow({ index: to, way });
  };

  const change = (i: number, next: Partial<Image>, clear: string) =>
    onChange(
      images.map((im, j) => (j === i ? { ...im, ...next } : im)),
      [clear],
    );

  return (
    <fieldset
      className="editor-pictures"
      id={`${base}-images`}
      aria-describedby={problems.has('images') ? problemId(base, 'images') : undefined}
    >
      <legend>Pictures (the first is the main picture; at least two)</legend>
      <FieldProblem base={base} input="images" problems={problems} />
      <ol>
        {images.map((image, i) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: the rows are positions in the list
          <li key={i}>
            <img src={picture(pictureOf(image.src))} alt="" width={64} height={64} />
            <div className="field">
              <label htmlFor={`${base}-img-${i}`}>Picture {i + 1}</label>
              <FieldProblem base={base} input={`img-${i}`} problems={problems} />
              <select
                {...fieldProps(base, `img-${i}`, problems)}
                value={pictureOf(image.src)}
                onChange={(e) => change(i, { src: `./images/${e.target.value}` }, `images.${i}.src`)}
              >
                {[...new Set([...pictures, pictureOf(image.src)])].map((name) => (
                  <option key={name} value={name}>
                    {name}
                  </option>
                ))}
              </select>
            </div>
            <div className="field">
              <label htmlFor={`${base}-alt-${i}`}>Picture {i + 1}: what it shows</label>
              <FieldProblem base={base} input={`alt-${i}`} problems={problems} />
              <input
                {...fieldProps(base, `alt-${i}`, problems)}
                value={image.alt}
                onChange={(e) => change(i, { alt: e.target.value }, `images.${i}.alt`)}
              />
            </div>
            <div className="editor-row-actions">
              <button
                type="button"
                className="btn btn-outline"
                id={`${base}-up-${i}`}
                disabled={i === 0}
                onClick={() => move(i, 'up')}
              >
                Move up<span className="visually-hidden">{` picture ${i + 1}`}</span>
              </button>
              <button
                type="button"
                className="btn btn-outline"
                id={`${base}-down-${i}`}
                disabled={i === images.length - 1}
                onClick={() => move(i, 'down')}
              >
                Move down<span className="visually-hidden">{` picture ${i + 1}`}</span>
              </button>
              <button
                type="button"
                className="btn btn-outline"
                onClick={() =>
                  onChange(
                    images.filter((_, j) => j !== i),
                    ['images'],
                  )
                }
              >
                Remove<span className="visually-hidden">{` picture ${i + 1}`}</span>
              </button>
            </div>
          </li>
        ))}
      </ol>
      <p className="visually-hidden" aria-live="polite">
        {said}
      </p>
      <div className="field">
        <label htmlFor={`${base}-upload`}>Upload a picture (SVG, PNG, JPEG or WebP, up to 1 MB)</label>
        <input
          id={`${base}-upload`}
          type="file"
          accept="image/svg+xml,image/png,image/jpeg,image/webp"
          onChange={onUpload}
          disabled={busy}
        />
      </div>
    </fieldset>
  );
}
