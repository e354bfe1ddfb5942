// Product files read as the shop reads them (decision 018): through the build's own schema (product.schema.ts), with
// each picture reference measured as astro:assets measures it and sent from the address a caller gives. A release of
// the catalogue is made from this, and so is a preview of what is saved (preview.server.ts).
import type { ImageMetadata } from 'astro';
import { imageMetadata } from 'astro/assets/utils';
import { z } from 'astro/zod';
import { productSchema } from '@/features/catalogue/product.schema';
import type { ProductData } from '@/features/catalogue/served-catalogue.server';
import type { ProductFiles } from './catalogue-files.server';
import { frontMatter } from './catalogue-guard';

/** A picture's size and kind, as astro:assets reads them. */
export type PictureSize = Omit<ImageMetadata, 'src'>;

/** `bytes` (the picture `name`) measured, or null when it cannot be read as a picture. */
export async function measurePicture(name: string, bytes: Uint8Array): Promise<PictureSize | null> {
  try {
    const { width, height, format, orientation } = await imageMetadata(bytes, name);
    return { width, height, format: format as ImageMetadata['format'], ...(orientation ? { orientation } : {}) };
  } catch {
    return null;
  }
}

/** The catalogue the files make: its products by id, and why any file is left out ('file: field: reason'). */
export interface ReadCatalogue {
  products: ProductData[];
  problems: string[];
  /** Each product's file. */
  fileOf: Map<number, string>;
}

/**
 * Reads `files` through the build's schema, a picture `./images/<name>` becoming `{ src: url(name), ...size }` when
 * `sizeOf(name)` knows it (else the file is refused, as the build refuses a picture it cannot read). Two files with
 * one id: the second is refused.
 */
export function readCatalogue(
  files: ProductFiles,
  { sizeOf, url }: { sizeOf: (name: string) => PictureSize | undefined; url: (name: string) => string },
): ReadCatalogue {
  const picture = z.string().transform((src, ctx): ImageMetadata => {
    const name = /^\.\/images\/([^/\\]+)$/.exec(src)?.[1] ?? '';
    const size = sizeOf(name);
    if (!size) {
      ctx.addIssue({ code: 'custom', message: `${src} is not a picture the shop has, or cannot be read` });
      return z.NEVER;
    }
    return { src: url(name), ...size };
  });
  const schema = productSchema(picture);
  const products: ProductData[] = [];
  const problems: string[] = [];
  const fileOf = new Map<number, string>();
  for (const [file, contents] of files) {
    let parsed: ReturnType<typeof schema.safeParse>;
    try {
      parsed = schema.safeParse(frontMatter(contents));
    } catch (error) {
      problems.push(`${file}: the front matter is not valid YAML: ${(error as Error).message}`);
      continue;
    }
    if (!parsed.success) {
      problems.push(`${file}: ${parsed.error.issues.map((i) => `${i.path.join('.') || 'product'}: ${i.message}`).join('; ')}`);
      continue;
    }
    const product = parsed.data as ProductData;
    const twin = products.find((p) => p.id === product.id);
    if (twin) problems.push(`${file}: id ${product.id} is already the id of ${twin.name}`);
    else {
      products.push(product);
      fileOf.set(product.id, file);
    }
  }
  products.sort((a, b) => a.id - b.id);
  return { products, problems, fileOf };
}
