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
  /** Final sale: it cannot be returned. */
  finalSale: boolean;
  sku: string;
  weight: string;
  /** One a line. */
  benefits: string;
  ingredients: string;
}

/** Each field's name as the form shows it, for the words that name it (refusals, a save that crossed another). */
export const FIELD_LABELS: Record<keyof FormInputs, string> = {
  name: 'Name',
  price: 'Price',
  sku: 'SKU',
  category: 'Category label',
  mainCategories: 'Home page categories',
  inStock: 'In stock',
  finalSale: 'Final sale',
  weight: 'Shipping weight',
  description: 'Short description',
  detailedDescription: 'About this product',
  usage: 'How to use',
  benefits: 'Benefits',
  ingredients: 'Ingredients',
  specifications: 'Specifications',
  sizes: 'Sizes',
  images: 'Pictures',
  colors: 'Colours',
};

/**
 * Why a save is refused, in the shop's words, and the field it is about: a key of the form (`price`), a part of a
 * picture or colour (`images.2.alt`, `colors.0.hex`), or `product` for the product as a whole. The server's 400 carries
 * these (`error.problems`); the form shows each beside its field.
 */
export interface Refusal {
  field: string;
  message: string;
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
    finalSale: fields.finalSale === true,
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

/** What the form sends: the fields as product data, or every input that cannot be read, with what to type. */
export function fromInputs(
  inputs: FormInputs,
  saved: Record<string, unknown>,
): { fields: Record<string, unknown> } | { problems: Refusal[] } {
  const problems: Refusal[] = [];
  const price = typedNumber(inputs.price);
  if (price === null) problems.push({ field: 'price', message: 'Enter the price in dollars, for example 45.00.' });
  const weight = typedNumber(inputs.weight);
  if (weight === null) problems.push({ field: 'weight', message: 'Enter the weight in pounds, for example 1.2.' });
  const savedSpecs = (saved.specifications && typeof saved.specifications === 'object' ? saved.specifications : {}) as Record<
    string,
    unknown
  >;
  const specifications: Record<string, string | number> = {};
  for (const line of inputs.specifications.split('\n')) {
    if (!line.trim()) continue;
    const at = line.indexOf(':');
    if (at <= 0) {
      problems.push({
        field: 'specifications',
        message: `Write each specification on its own line as “label: value”, for example “size: 8 oz” (not “${line.trim()}”).`,
      });
      break;
    }
    const key = line.slice(0, at).trim();
    const value = line.slice(at + 1).trim();
    // A number stays a number when it was one and still reads as the same.
    specifications[key] = typeof savedSpecs[key] === 'number' && typedNumber(value) !== null ? Number(value) : value;
  }
  if (problems.length > 0 || price === null || weight === null) return { problems };
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
      finalSale: inputs.finalSale,
      sku: inputs.sku,
      weight,
      benefits: inputs.benefits.split('\n').filter((line) => line.trim() !== ''),
      ingredients: inputs.ingredients,
    },
  };
}

/**
 * Which of the form's inputs a refusal's field is shown beside, as the end of its element id: `price`, `alt-2` (Picture
 * 3's description), `colour-img-0`; `images` and `colours` for the lists as a whole, `product` for none of them.
 */
export function inputFor(field: string): string {
  const [top, index, ...rest] = field.split('.');
  const n = index !== undefined && /^\d+$/.test(index) ? index : null;
  if (top === 'images') {
    if (n === null) return 'images';
    return rest[0] === 'alt' ? `alt-${n}` : `img-${n}`;
  }
  if (top === 'colors') {
    if (n === null) return 'colours';
    const tail = rest.join('.');
    if (tail === 'hex') return `hex-${n}`;
    if (tail === 'image.alt') return `colour-alt-${n}`;
    if (tail.startsWith('image')) return `colour-img-${n}`;
    return `colour-${n}`;
  }
  if (top === 'sale') return index === 'startsAt' ? 'saleStartsAt' : index === 'endsAt' ? 'saleEndsAt' : 'salePrice';
  return top && top in FIELD_LABELS ? top : 'product';
}

/** A picture's address for the editor's preview, by its file name. */
export const picture = (name: string) => `/api/admin/catalogue/pictures/${encodeURIComponent(name)}`;
/** A picture's file name, from how a product names it (`./images/x.svg` → `x.svg`). */
export const pictureOf = (src: string) => src.replace(/^\.\/images\//, '');

/** `list` with the item at `from` moved to `to`, the others keeping their order. */
export function moved<T>(list: readonly T[], from: number, to: number): T[] {
  const next = [...list];
  const [item] = next.splice(from, 1);
  if (item !== undefined) next.splice(to, 0, item);
  return next;
}
