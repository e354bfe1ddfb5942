// PNG, JPEG and WebP pictures are decoded as they are uploaded, not only known by their first bytes: a file whose
// header is a PNG's and whose rest is HTML (or junk, or a picture cut short) would be stored, then fail every publish
// that builds a product using it (the build reads every picture it shows). Decoded with sharp, the decoder the build's
// image service uses, from start to end, so that what is stored is a picture the build can read. SVG is checked apart
// (pictures.ts, svgProblem).
import { logger } from '@/server/log.server';
import { type PictureType, pictureType } from './pictures';

const log = logger('pictures');

/**
 * The most pixels a PNG, JPEG or WebP picture may have: 40 megapixels (a 7700 × 5200 photograph) is far more than a
 * product page shows, and a picture is decoded whole as it is uploaded and again by every build. A few KB can say it
 * is 20000 × 20000 (400 megapixels, over a gigabyte decoded): refused from its header, before anything is decoded.
 */
export const MAX_PICTURE_PIXELS = 40_000_000;

/** How each kind is named to the editor, and as sharp names its format. */
const KINDS: Record<Exclude<PictureType, 'svg'>, { name: string; format: string }> = {
  png: { name: 'PNG', format: 'png' },
  jpg: { name: 'JPEG', format: 'jpeg' },
  webp: { name: 'WebP', format: 'webp' },
};

/**
 * Why a PNG, JPEG or WebP upload is no picture the shop can show, in words, or null when it decodes whole (null too for
 * an SVG or anything else: pictureProblem decides those). The decoder's own message (with its library's words) is
 * logged, not shown.
 */
export async function rasterProblem(bytes: Uint8Array): Promise<string | null> {
  const type = pictureType(bytes);
  if (type === null || type === 'svg') return null;
  const kind = KINDS[type];
  const unreadable = `This ${kind.name} picture cannot be read: it may be damaged, cut short, or another kind of file with a picture’s name. Open it in a drawing program, save it again as ${kind.name}, and upload it again.`;
  // Loaded when a picture is uploaded, not with the server: a native module the shop needs for nothing else.
  const { default: sharp } = await import('sharp');
  try {
    const metadata = await sharp(bytes, { failOn: 'error', limitInputPixels: false }).metadata();
    if (metadata.format !== kind.format) return unreadable;
    const { width = 0, height = 0 } = metadata;
    if (width * height > MAX_PICTURE_PIXELS)
      return `This picture is ${width} × ${height} pixels, more than a product picture needs: save it smaller (at most ${MAX_PICTURE_PIXELS / 1_000_000} megapixels) and upload it again.`;
    // Every pixel decoded (stats reads the whole picture), and any error of the decoder's is a refusal.
    await sharp(bytes, { failOn: 'error', limitInputPixels: MAX_PICTURE_PIXELS }).stats();
  } catch (error) {
    log.info({ event: 'picture.unreadable', type, bytes: bytes.byteLength, err: error }, 'an uploaded picture does not decode');
    return unreadable;
  }
  return null;
}
