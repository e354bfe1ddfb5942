// What the build adds to dist/client once Astro has written it (the `aurelia:precompress` integration in
// astro.config.mjs, so `npm run build`, `npm start` and `npm run test:e2e` all get it):
// 1. the SVG pictures minified with SVGO, keeping them pixel for pixel as drawn (comments, blanks, defaults and unused
//    definitions out: the hand-written artwork is compact already, so this is a few per cent), and any script out;
// 2. every text file of more than MIN_BYTES precompressed beside itself, brotli at its best level (file.br) and gzip at
//    its best (file.gz), each kept only when it is smaller than the file. the edge (src/edge) sends whichever the
//    browser accepts; compressing once here costs the server nothing per request, and the best levels, too slow for
//    compressing as pages are answered, make the brotli files 13 % smaller than gzip's at its best.
//
//   node scripts/precompress.mjs [dir]   (dir defaults to dist/client; the build runs it by itself)
import { readdir, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { extname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import { ENCODINGS, MIN_BYTES, TEXT_TYPES } from '../src/edge/file-types.ts';

const brotli = promisify(zlib.brotliCompress);
const gzip = promisify(zlib.gzip);

// What counts as text, and the encodings written beside it, are the edge's (src/edge/file-types.ts): it serves them.
export { ENCODINGS, MIN_BYTES, TEXT_TYPES };

/** Every file under `dir`, as absolute paths. */
async function filesUnder(dir) {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries.filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name));
}

/**
 * SVGO's default preset, less what would change a picture or a reference (measured over the catalogue's artwork in
 * Chromium: this set renders every picture pixel for pixel as its source; the full preset moved edges by up to 38 of
 * 255 and, merging paths, made the brotli files larger, not smaller):
 * - every id is kept as written: the artwork's <title id> is named by `aria-labelledby`, which SVGO's id clean-up does
 *   not count as a reference, so it would drop it; gradients are referenced by theirs;
 * - `role` is kept (`role="img"` with the title is how the picture names itself);
 * - paths, shapes, transforms and groups are left as drawn, and numbers keep 5 significant decimals (with 3, gradient
 *   stops moved by one level);
 * - the viewBox is kept (SVGO 4 keeps it by default), so pictures scale as before.
 * What is left takes out comments, blanks, default values and unused definitions: a few per cent.
 */
const SVGO_CONFIG = {
  multipass: true,
  floatPrecision: 5,
  plugins: [
    {
      name: 'preset-default',
      params: {
        overrides: {
          cleanupIds: false,
          removeUnknownsAndDefaults: { keepRoleAttr: true },
          mergePaths: false,
          convertPathData: false,
          convertShapeToPath: false,
          convertEllipseToCircle: false,
          convertTransform: false,
          collapseGroups: false,
          moveElemsAttrsToGroup: false,
          moveGroupAttrsToElems: false,
        },
      },
    },
    // Defence in depth: every picture was checked as it was uploaded (src/features/editor/pictures.ts) and is served
    // under a policy that runs nothing (PICTURE_POLICY), but should script reach the build some other way, it is taken
    // out here too (script elements, also under another prefix, event handler attributes, javascript: links).
    'removeScripts',
  ],
};

/**
 * Minifies every SVG under `dir` in place; a file SVGO would make larger is left as it is.
 * @returns {Promise<{ files: number, before: number, after: number }>}
 */
export async function minifySvgs(dir) {
  const { optimize } = await import('svgo');
  const totals = { files: 0, before: 0, after: 0 };
  for (const file of (await filesUnder(dir)).filter((f) => f.endsWith('.svg'))) {
    const source = await readFile(file, 'utf8');
    const { data } = optimize(source, { ...SVGO_CONFIG, path: file });
    const kept = Buffer.byteLength(data) < Buffer.byteLength(source) ? data : source;
    if (kept !== source) await writeFile(file, kept);
    totals.files++;
    totals.before += Buffer.byteLength(source);
    totals.after += Buffer.byteLength(kept);
  }
  return totals;
}

/**
 * Writes file.br and file.gz beside every text file under `dir` larger than MIN_BYTES, each only when smaller than the
 * file (a stale one from an earlier run is removed otherwise). They get the file's modification time, so every
 * encoding of a file says the same Last-Modified.
 * @returns {Promise<{ files: number, raw: number, br: number, gzip: number }>}
 */
export async function precompress(dir) {
  const totals = { files: 0, raw: 0, br: 0, gzip: 0 };
  const files = (await filesUnder(dir)).filter((f) => Object.hasOwn(TEXT_TYPES, extname(f)));
  // Two at a time: the machine has two cores, and brotli's best level is the slow part of the build.
  const queue = [...files];
  async function worker() {
    for (let file = queue.shift(); file !== undefined; file = queue.shift()) {
      const [body, info] = await Promise.all([readFile(file), stat(file)]);
      const encoded = {
        br: await brotli(body, {
          params: {
            [zlib.constants.BROTLI_PARAM_QUALITY]: zlib.constants.BROTLI_MAX_QUALITY,
            [zlib.constants.BROTLI_PARAM_MODE]: zlib.constants.BROTLI_MODE_TEXT,
            [zlib.constants.BROTLI_PARAM_SIZE_HINT]: body.length,
          },
        }),
        gzip: await gzip(body, { level: zlib.constants.Z_BEST_COMPRESSION }),
      };
      let wrote = false;
      for (const [name, suffix] of Object.entries(ENCODINGS)) {
        const output = encoded[/** @type {keyof typeof ENCODINGS} */ (name)];
        const target = `${file}${suffix}`;
        if (body.length > MIN_BYTES && output.length < body.length) {
          await writeFile(target, output);
          await utimes(target, info.atimeMs / 1000, info.mtimeMs / 1000);
          totals[/** @type {keyof typeof ENCODINGS} */ (name)] += output.length;
          wrote = true;
        } else {
          await rm(target, { force: true });
        }
      }
      if (wrote) {
        totals.files++;
        totals.raw += body.length;
      }
    }
  }
  await Promise.all([worker(), worker()]);
  return totals;
}

const kb = (bytes) => `${(bytes / 1024).toFixed(1)} KB`;

/** Minifies the SVGs, then precompresses, under `dir`; returns one line saying what it did. */
export async function optimiseBuild(dir) {
  const svg = await minifySvgs(dir);
  const packed = await precompress(dir);
  return (
    `${svg.files} SVG pictures minified (${kb(svg.before)} → ${kb(svg.after)}); ` +
    `${packed.files} text files precompressed (${kb(packed.raw)} → brotli ${kb(packed.br)}, gzip ${kb(packed.gzip)})`
  );
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const dir = process.argv[2] ?? fileURLToPath(new URL('../dist/client', import.meta.url));
  console.log(`${relative(process.cwd(), dir) || '.'}: ${await optimiseBuild(dir)}`);
}
