// The product form's colours: each with its swatch or picture, name, key (shown, never changed), hex code and picture.
import { colourValue, type FormInputs, picture, pictureOf } from './catalogue-form';
import { FieldProblem, fieldProps, type Problems, problemId } from './FieldProblem';

type Colour = FormInputs['colors'][number];

interface Props {
  base: string;
  colours: Colour[];
  pictures: string[];
  problems: Problems;
  /** The new list; `clear`: the fields whose refusals no longer hold (`colors` for all of them). */
  onChange: (colours: Colour[], clear: string[]) => void;
}

export default function ColourList({ base, colours, pictures, problems, onChange }: Props) {
  return (
    <fieldset
      className="editor-pictures editor-colours"
      id={`${base}-colours`}
      aria-describedby={problems.has('colours') ? problemId(base, 'colours') : undefined}
    >
      <legend>Colours (leave none for a product without colours)</legend>
      <FieldProblem base={base} input="colours" problems={problems} />
      <ol>
        {colours.map((colour, i) => {
          const change = (next: Partial<Colour>, clear: string) =>
            onChange(
              colours.map((c, j) => (j === i ? { ...c, ...next } : c)),
              [clear],
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
                <label htmlFor={`${base}-colour-${i}`}>Colour {i + 1}: name</label>
                <FieldProblem base={base} input={`colour-${i}`} problems={problems} />
                <input
                  {...fieldProps(base, `colour-${i}`, problems)}
                  value={colour.name}
                  onChange={(e) => change({ name: e.target.value }, `colors.${i}.name`)}
                />
              </div>
              <div className="field">
                <label htmlFor={`${base}-key-${i}`}>Colour {i + 1}: key in carts and stock counts</label>
                <input
                  id={`${base}-key-${i}`}
                  value={colour.value || colourValue(colour.name)}
                  readOnly
                  aria-describedby={`${base}-key-hint-${i}`}
                />
                <p className="field-hint" id={`${base}-key-hint-${i}`}>
                  {colour.value
                    ? 'Fixed: carts, stock counts and orders know the colour by it. Its name and swatch can change.'
                    : 'Made from the name when you save, and fixed from then on.'}
                </p>
              </div>
              <div className="field">
                <label htmlFor={`${base}-hex-${i}`}>Colour {i + 1}: hex code</label>
                <FieldProblem base={base} input={`hex-${i}`} problems={problems} />
                <input
                  {...fieldProps(base, `hex-${i}`, problems, `${base}-hex-hint-${i}`)}
                  value={colour.hex}
                  autoComplete="off"
                  onChange={(e) => change({ hex: e.target.value }, `colors.${i}.hex`)}
                />
                <p className="field-hint" id={`${base}-hex-hint-${i}`}>
                  Like #1f5fa8.
                </p>
              </div>
              <div className="field">
                <label htmlFor={`${base}-colour-img-${i}`}>Colour {i + 1}: picture</label>
                <FieldProblem base={base} input={`colour-img-${i}`} problems={problems} />
                <select
                  {...fieldProps(base, `colour-img-${i}`, problems)}
                  value={colour.image ? pictureOf(colour.image.src) : ''}
                  onChange={(e) =>
                    change(
                      { image: e.target.value ? { src: `./images/${e.target.value}`, alt: colour.image?.alt ?? '' } : null },
                      `colors.${i}.image`,
                    )
                  }
                >
                  <option value="">No picture of its own</option>
                  {[...new Set([...pictures, ...(colour.image ? [pictureOf(colour.image.src)] : [])])].map((name) => (
                    <option key={name} value={name}>
                      {name}
                    </option>
                  ))}
                </select>
              </div>
              {colour.image && (
                <div className="field">
                  <label htmlFor={`${base}-colour-alt-${i}`}>Colour {i + 1}: what its picture shows</label>
                  <FieldProblem base={base} input={`colour-alt-${i}`} problems={problems} />
                  <input
                    {...fieldProps(base, `colour-alt-${i}`, problems)}
                    value={colour.image.alt}
                    onChange={(e) =>
                      change({ image: { src: colour.image?.src ?? '', alt: e.target.value } }, `colors.${i}.image.alt`)
                    }
                  />
                </div>
              )}
              <div className="editor-row-actions">
                <button
                  type="button"
                  className="btn btn-outline"
                  onClick={() =>
                    onChange(
                      colours.filter((_, j) => j !== i),
                      ['colors'],
                    )
                  }
                >
                  Remove colour {i + 1}
                </button>
              </div>
            </li>
          );
        })}
      </ol>
      <button
        type="button"
        className="btn btn-outline"
        onClick={() => onChange([...colours, { name: '', value: '', hex: '', image: null }], [])}
      >
        Add a colour
      </button>
    </fieldset>
  );
}
