import { crc32 } from 'node:zlib';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { MAX_PICTURE_PIXELS, rasterProblem } from './picture-decode.server';
import { pictureType } from './pictures';

/** A small picture with detail in it (so that half of its bytes is not a whole picture), as PNG, JPEG or WebP. */
const picture = (format: 'png' | 'jpeg' | 'webp', width = 64, height = 48) =>
  sharp(Buffer.from(Array.from({ length: width * height * 3 }, (_, i) => (i * 7919) % 256)), {
    raw: { width, height, channels: 3 },
  })
    [format]()
    .toBuffer()
    .then((b) => new Uint8Array(b));

const half = (bytes: Uint8Array) => bytes.subarray(0, Math.floor(bytes.length / 2));
const html = new TextEncoder().encode('<html><body><script>alert(document.cookie)</script></body></html>');
const join = (...parts: Uint8Array[]) => Uint8Array.from(parts.flatMap((p) => [...p]));

describe('a PNG, JPEG or WebP picture, decoded as it is uploaded', () => {
  it('is taken when it decodes whole', async () => {
    for (const format of ['png', 'jpeg', 'webp'] as const) expect(await rasterProblem(await picture(format)), format).toBeNull();
  });

  it('is refused in words when only its first bytes are a picture’s: HTML after the header, junk, cut short', async () => {
    const png = await picture('png');
    const jpeg = await picture('jpeg');
    const webp = await picture('webp');
    const cases: [string, Uint8Array][] = [
      ['png', join(png.subarray(0, 8), html)],
      ['png', half(png)],
      ['jpeg', join(jpeg.subarray(0, 3), html)],
      ['jpeg', half(jpeg)],
      ['webp', join(webp.subarray(0, 16), html)],
      ['webp', half(webp)],
    ];
    for (const [kind, bytes] of cases) {
      expect(pictureType(bytes), kind).not.toBeNull();
      const problem = await rasterProblem(bytes);
      expect(problem, kind).toMatch(/^This (PNG|JPEG|WebP) picture cannot be read: .*upload it again\.$/);
      // Words only: nothing of the decoder's own message, no path.
      expect(problem, kind).not.toMatch(/vips|libpng|buffer|header|\//i);
    }
  });

  it('is refused when it would open far larger than a product picture needs', async () => {
    // A small upload whose header says it is huge: a PNG's IHDR rewritten to 20000 × 20000 (its CRC made to match).
    const png = await picture('png');
    const ihdr = new DataView(png.buffer, png.byteOffset + 8);
    ihdr.setUint32(8, 20_000);
    ihdr.setUint32(12, 20_000);
    ihdr.setUint32(21, crc32(png.subarray(12, 29)));
    expect(20_000 * 20_000).toBeGreaterThan(MAX_PICTURE_PIXELS);
    expect(await rasterProblem(png)).toBe(
      'This picture is 20000 × 20000 pixels, more than a product picture needs: save it smaller (at most 40 megapixels) and upload it again.',
    );
  });

  it('leaves SVG and other files to pictureProblem', async () => {
    expect(await rasterProblem(new TextEncoder().encode('<svg xmlns="http://www.w3.org/2000/svg"/>'))).toBeNull();
    expect(await rasterProblem(html)).toBeNull();
  });
});
