// The developers' editor (Keystatic) asks the shop's catalogue guard (src/features/editor/catalogue-guard.ts) before it
// writes, about the catalogue as it is on disk: the same rules as a save in the shop's own editor, one implementation.
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { catalogueProblem, IMAGES_DIR, kindOfPath, PRODUCTS_DIR, type Update } from '@/features/editor/catalogue-guard';
import { pictureProblem } from '@/features/editor/pictures';

export { fileProblems, frontMatter, IMAGES_DIR, PRODUCTS_DIR, type Update } from '@/features/editor/catalogue-guard';

/**
 * Why the editor must not apply `update` to the catalogue in `root`, or null when it may (see catalogueProblem): the
 * product files and pictures are the ones under `root`'s content/products.
 */
export async function updateProblem(root: string, update: Update): Promise<string | null> {
  // A picture is what an editor's upload to the shop may be (pictureProblem): this editor's are published the same way.
  for (const { path, contents } of update.additions) {
    const problem = kindOfPath(path) === 'picture' ? pictureProblem(contents) : null;
    if (problem) return `${path}: ${problem}`;
  }
  const files = new Map<string, string>();
  for (const name of await readdir(join(root, PRODUCTS_DIR))) {
    if (name.endsWith('.md')) files.set(`${PRODUCTS_DIR}/${name}`, await readFile(join(root, PRODUCTS_DIR, name), 'utf8'));
  }
  return catalogueProblem({ files, pictureExists: (name) => existsSync(join(root, IMAGES_DIR, name)) }, update);
}
