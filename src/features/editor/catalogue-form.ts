// The product form's fields as the editor types them (text in inputs) and as a save sends them (the product's data).
// Pure, for the island and its tests.

/** A product's editable fields as the form holds them: text for every input. */
export interface FormInputs {
  name: string;
  category: string;
  mainCategories: string[];
  price: string;
  description: string;
  detailedDescription: string;
  images: { src: string; alt: string }[];
  /** `value` names the colour in carts and stock counts: shown, not changed, for a colour that exists. */
  colors: { name: string; value: string; hex: string; image: { src: string; alt: string } | null }[];
  sizes: string[];
  usage: string;
  /** `label: value`, one a line. */
  specifications: string;
  inStock: boolean;
  sku: string;
  weight: string;
  /** One a line. */
  benefits: string;
  ingredients: string;
}

const text = (v: unknown) => (typeof v === 'string' ? v : v === undefined || v === null ? '' : String(v));
const list = (v: unknown) => (Array.isArray(v) ? v.map(text) : []);

/** The inputs for a product's saved fields. */
export function toInputs(fields: Record<string, unknown>): FormInputs {
  const specs = fields.specifications && typeof fields.specifications === 'object' ? fields.specifications : {};
  return {
    name: text(fields.name),
    category: text(fields.category),
    mainCategories: list(fields.mainCategories),
    price: typeof fields.price === 'number' ? fields.price.toFixed(2) : text(fields.price),
    description: text(fields.description),
    detailedDescription: text(fields.detailedDescription),
    images: Array.isArray(fields.images)
      ? fields.images.map((i: { src?: unknown; alt?: unknown }) => ({ src: text(i.src), alt: text(i.alt) }))
      : [],
    colors: Array.isArray(fields.colors)
      ? fields.colors.map((c: { name?: unknown; value?: unknown; hex?: unknown; image?: { src?: unknown; alt?: unknown } }) => ({
          name: text(c.name),
          value: text(c.value),
          hex: text(c.hex),
          image: c.image ? { src: text(c.image.src), alt: text(c.image.alt) } : null,
        }))
      : [],
    sizes: list(fields.sizes),
    usage: text(fields.usage),
    specifications: Object.entries(specs)
      .map(([k, v]) => `${k}: ${text(v)}`)
      .join('\n'),
    inStock: fields.inStock === true,
    sku: text(fields.sku),
    weight: text(fields.weight),
    benefits: list(fields.benefits).join('\n'),
    ingredients: text(fields.ingredients),
  };
}

/** A new colour's value (its name in carts and stock counts), at most 40 characters: 'Powder Blue' → 'powder-blue'. */
export function colourValue(name: string): string {
  return name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+/, '')
    .slice(0, 40)
    .replace(/-+$/, '');
}

/** A number as typed ('45', '45.00', '29.999'), or null when it is not one. Never rounded: the schema judges decimals. */
export function typedNumber(value: string): number | null {
  const trimmed = value.trim().replace(/^\$/, '');
  return /^\d+(\.\d+)?$/.test(trimmed) ? Number(trimmed) : null;
}

/** What the form sends: the fields as product data, or the first input that cannot be read, with what to do. */
export function fromInputs(
  inputs: FormInputs,
  saved: Record<string, unknown>,
): { fields: Record<string, unknown> } | { field: keyof FormInputs; message: string } {
  const price = typedNumber(inputs.price);
  if (price === null) return { field: 'price', message: 'Enter the price in dollars, for example 45.00.' };
  const weight = typedNumber(inputs.weight);
  if (weight === null) return { field: 'weight', message: 'Enter the weight in pounds, for example 1.2.' };
  const savedSpecs = (saved.specifications && typeof saved.specifications === 'object' ? saved.specifications : {}) as Record<
    string,
    unknown
  >;
  const specifications: Record<string, string | number> = {};
  for (const line of inputs.specifications.split('\n')) {
    if (!line.trim()) continue;
    const at = line.indexOf(':');
    if (at <= 0) return { field: 'specifications', message: `Write each specification as “label: value” (“${line.trim()}”).` };
    const key = line.slice(0, at).trim();
    const value = line.slice(at + 1).trim();
    // A number stays a number when it was one and still reads as the same.
    specifications[key] = typeof savedSpecs[key] === 'number' && typedNumber(value) !== null ? Number(value) : value;
  }
  return {
    fields: {
      name: inputs.name,
      category: inputs.category,
      mainCategories: inputs.mainCategories,
      price,
      description: inputs.description,
      detailedDescription: inputs.detailedDescription,
      images: inputs.images,
      colors: inputs.colors.map(({ name, value, hex, image }) => ({
        name,
        // A new colour is named in carts by its name as a slug.
        value: value || colourValue(name),
        hex,
        ...(image ? { image } : {}),
      })),
      sizes: inputs.sizes,
      usage: inputs.usage,
      specifications,
      inStock: inputs.inStock,
      sku: inputs.sku,
      weight,
      benefits: inputs.benefits.split('\n').filter((line) => line.trim() !== ''),
      ingredients: inputs.ingredients,
    },
  };
}
